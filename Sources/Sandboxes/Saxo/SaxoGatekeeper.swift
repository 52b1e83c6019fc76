import Foundation
import Hummingbird
import SandboxKit

/// Authentication, rate limits and Saxo's response headers in front of every OpenAPI endpoint.
///
/// Every answer carries `X-Correlation` and echoes `X-Request-ID`. Authenticated answers carry
/// `X-RateLimit-Session-{Limit,Remaining,Reset}` for the request's service group (the first path segment:
/// `port`, `trade`, `ref`, `chart`) and `X-RateLimit-AppDay-*`; order placements and changes also carry
/// `X-RateLimit-SessionOrders-*`. `Reset` is in seconds. A request past a limit gets 429 with the same headers.
/// A missing, unknown or expired bearer token gets 401 with an empty body.
struct SaxoGatekeeper: RouterMiddleware {
    typealias Context = SandboxRequestContext

    let sandbox: SaxoSandbox

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var headers = HTTPFields()
        headers[SaxoHeader.correlation] = RandomID.hex()
        if let requestID = request.headers[HeaderName.requestID] { headers[HeaderName.requestID] = requestID }

        var response = await gate(request, context: context, headers: &headers, next: next)
        for field in headers { response.headers[field.name] = field.value }
        return response
    }

    private func gate(
        _ request: Request,
        context: Context,
        headers: inout HTTPFields,
        next: (Request, Context) async throws -> Response
    ) async -> Response {
        guard let session = bearerSession(request) else {
            headers[.wwwAuthenticate] = "Bearer"
            return SaxoAPIError.unauthorized.render()
        }
        let configuration = sandbox.configuration
        let segments = SaxoPath(request.uri.path).segments
        let group = segments.first?.lowercased() ?? "root"

        let day = Timestamp.formatDate(sandbox.market.now)
        let app = sandbox.count("app|\(sandbox.app(ofSession: session) ?? "")|\(day)", limit: configuration.appRequestsPerDay, length: 86_400)
        headers[SaxoHeader.appDayLimit] = String(app.limit)
        headers[SaxoHeader.appDayRemaining] = String(app.remaining)
        headers[SaxoHeader.appDayReset] = String(app.reset)
        let budget = sandbox.count("session|\(session)|\(group)", limit: configuration.sessionRequestsPerMinute, length: 60)
        headers[SaxoHeader.sessionLimit] = String(budget.limit)
        headers[SaxoHeader.sessionRemaining] = String(budget.remaining)
        headers[SaxoHeader.sessionReset] = String(budget.reset)
        guard app.allowed, budget.allowed else { return SaxoAPIError.rateLimited.render() }

        if Self.isOrderOperation(method: request.method, segments: segments), let limit = configuration.sessionOrdersPerSecond {
            let orders = sandbox.count("orders|\(session)", limit: limit, length: 1)
            headers[SaxoHeader.ordersLimit] = String(orders.limit)
            headers[SaxoHeader.ordersRemaining] = String(orders.remaining)
            headers[SaxoHeader.ordersReset] = String(orders.reset)
            guard orders.allowed else { return SaxoAPIError.rateLimited.render() }
        }

        var context = context
        context.principal = session
        do {
            return try await next(request, context)
        } catch {
            return SaxoAPIError.render(error, request: request, context: context)
        }
    }

    private func bearerSession(_ request: Request) -> String? {
        guard let authorization = request.headers[.authorization] else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return sandbox.session(forBearer: String(parts[1]).trimmingCharacters(in: .whitespaces))
    }

    /// Placing or changing an order: what the `SessionOrders` limit counts (precheck and cancel do not count).
    static func isOrderOperation(method: HTTPRequest.Method, segments: [String]) -> Bool {
        let lower = segments.map { $0.lowercased() }
        guard lower.count >= 3, lower[0] == "trade", lower[2] == "orders" else { return false }
        switch (lower[1], method) {
        case ("v2", .post): return lower.count == 3
        case ("v2", .patch): return lower.count == 3
        case ("v1", .post): return lower.count == 3
        case ("v1", .patch): return lower.count == 4
        default: return false
        }
    }
}

/// The OpenAPI path of a request, after `/sim/openapi` or `/openapi`, split into percent-decoded segments.
/// Empty segments (a trailing slash, as `saxo_openapi` sends for `orders/me/`) are dropped.
struct SaxoPath {
    let segments: [String]

    init(_ rawPath: String) {
        var parts = rawPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if let index = parts.firstIndex(where: { $0.lowercased() == "openapi" }) {
            parts.removeFirst(index + 1)
        }
        segments = parts.map { $0.removingPercentEncoding ?? $0 }
    }
}

enum SaxoHeader {
    typealias Name = HTTPFields.Element.Name
    static let correlation = Name("X-Correlation")!
    static let sessionLimit = Name("X-RateLimit-Session-Limit")!
    static let sessionRemaining = Name("X-RateLimit-Session-Remaining")!
    static let sessionReset = Name("X-RateLimit-Session-Reset")!
    static let ordersLimit = Name("X-RateLimit-SessionOrders-Limit")!
    static let ordersRemaining = Name("X-RateLimit-SessionOrders-Remaining")!
    static let ordersReset = Name("X-RateLimit-SessionOrders-Reset")!
    static let appDayLimit = Name("X-RateLimit-AppDay-Limit")!
    static let appDayRemaining = Name("X-RateLimit-AppDay-Remaining")!
    static let appDayReset = Name("X-RateLimit-AppDay-Reset")!
}
