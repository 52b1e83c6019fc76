import Foundation
import Hummingbird
import SandboxKit

/// Authentication and the per-minute request budget in front of every Alpaca endpoint.
///
/// Authenticated answers, errors included, carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
/// `X-RateLimit-Reset` (unix seconds when the window ends) and an `X-Request-ID`.
struct AlpacaGatekeeper: RouterMiddleware {
    typealias Context = SandboxRequestContext

    /// Which Alpaca API the endpoints behind this middleware belong to.
    enum API: Sendable {
        /// `paper-api.alpaca.markets`: credentials required, `{"code","message"}` errors.
        case trading
        /// `data.alpaca.markets` stock data: credentials required, `{"message"}` errors.
        case stockData
        /// `data.alpaca.markets` crypto data: credentials optional (checked when sent), `{"message"}` errors.
        case cryptoData
    }

    let sandbox: AlpacaSandbox
    let api: API

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var headers = HTTPFields()
        headers[HeaderName.requestID] = RandomID.hex()
        let unauthorized = api == .trading ? AlpacaAPIError.unauthorized : .data(.unauthorized, "unauthorized.")
        let account = sandbox.authenticate(request.headers)
        let sentCredentials =
            request.headers[.authorization] != nil || request.headers[HeaderName.apiKeyID] != nil
            || request.headers[HeaderName.apiSecretKey] != nil
        if account == nil, api != .cryptoData || sentCredentials {
            return .json(unauthorized.body, status: .unauthorized, headers: headers)
        }
        let budget = sandbox.consumeRateLimit(account: account, api: api == .trading ? "trading" : "data")
        headers[HeaderName.rateLimitLimit] = String(budget.limit)
        headers[HeaderName.rateLimitRemaining] = String(budget.remaining)
        headers[HeaderName.rateLimitReset] = String(budget.reset)

        var response: Response
        if budget.allowed {
            var context = context
            context.principal = account?.uuidString
            do {
                response = try await next(request, context)
            } catch {
                response = AlpacaAPIError.render(error, request: request, context: context)
            }
        } else {
            let limited = api == .trading ? AlpacaAPIError.rateLimited : .data(.tooManyRequests, "too many requests.")
            response = .json(limited.body, status: .tooManyRequests)
        }
        for field in headers { response.headers[field.name] = field.value }
        return response
    }
}

/// Alpaca's own headers: API key credentials and the per-minute rate-limit budget.
extension HeaderName {
    static let apiKeyID = Name("APCA-API-KEY-ID")!
    static let apiSecretKey = Name("APCA-API-SECRET-KEY")!
    static let rateLimitLimit = Name("X-RateLimit-Limit")!
    static let rateLimitRemaining = Name("X-RateLimit-Remaining")!
    static let rateLimitReset = Name("X-RateLimit-Reset")!
}
