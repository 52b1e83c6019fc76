import Hummingbird
import SandboxKit

/// An error answered the way Alpaca answers.
///
/// The Trading API sends `{"code":<8 digits>,"message":"...", ...extra}`; the market-data API sends only
/// `{"message":"..."}` (`code` nil). Members come in alphabetical order, as Alpaca's Go servers marshal maps:
/// `{"available":"0","balance":"0","code":40310000,"message":"insufficient balance for USD (...)","symbol":"USD"}`.
struct AlpacaAPIError: Error, HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var code: Int?
    var message: String
    /// Extra members besides `code` and `message` (e.g. `buying_power`, `cost_basis`).
    var extra: [JSON.Member] = []

    var body: JSON {
        var members = extra + [.init(key: "message", value: .string(message))]
        if let code { members.append(.init(key: "code", value: .int(code))) }
        return .object(members.sorted { $0.key < $1.key })
    }

    /// A market-data API error: `{"message":"..."}` only.
    static func data(_ status: HTTPResponse.Status, _ message: String) -> AlpacaAPIError {
        AlpacaAPIError(status: status, code: nil, message: message)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        .json(body, status: status)
    }

    /// 400 40010000: a body that is not JSON, or a field of the wrong JSON type.
    static let malformedBody = AlpacaAPIError(status: .badRequest, code: 40_010_000, message: "request body format is invalid")
    /// 401 40110000.
    static let unauthorized = AlpacaAPIError(status: .unauthorized, code: 40_110_000, message: "request is not authorized")
    /// 429 42910000.
    static let rateLimited = AlpacaAPIError(status: .tooManyRequests, code: 42_910_000, message: "rate limit exceeded")

    /// 422 40010001: a parameter is missing or invalid.
    static func invalid(_ message: String) -> AlpacaAPIError {
        .init(status: .unprocessableContent, code: 40_010_001, message: message)
    }

    /// 422 42210000: the request is well formed but cannot be done in the current state.
    static func unprocessable(_ message: String) -> AlpacaAPIError {
        .init(status: .unprocessableContent, code: 42_210_000, message: message)
    }

    /// 404 40410000.
    static func notFound(_ message: String) -> AlpacaAPIError {
        .init(status: .notFound, code: 40_410_000, message: message)
    }

    /// 403 40310000 with extra members.
    static func forbidden(_ message: String, _ extra: [JSON.Member] = []) -> AlpacaAPIError {
        .init(status: .forbidden, code: 40_310_000, message: message, extra: extra)
    }

    /// The body Alpaca would send for a bare HTTP status (used by fault injection and unmatched routes):
    /// the status followed by `10000`, like Alpaca's own codes (40110000, 42210000, 42910000).
    static func forStatus(_ status: Int) -> AlpacaAPIError {
        let message: String =
            switch status {
            case 400: "bad request"
            case 401: "request is not authorized"
            case 403: "forbidden"
            case 404: "endpoint not found"
            case 405: "method not allowed"
            case 413: "request body too large"
            case 429: "rate limit exceeded"
            case 500: "internal server error"
            case 502: "bad gateway"
            case 503: "service unavailable"
            case 504: "gateway timeout"
            default: (400..<500).contains(status) ? "request failed" : "internal server error"
            }
        return AlpacaAPIError(status: .init(code: status), code: status * 100_000 + 10_000, message: message)
    }
}

extension AlpacaAPIError: SandboxWireError {
    func wireResponse() -> Response { .json(body, status: status) }

    static func framework(status: HTTPResponse.Status, request: Request) -> AlpacaAPIError { withStatus(status) }

    static var unexpected: AlpacaAPIError { withStatus(.internalServerError) }

    private static func withStatus(_ status: HTTPResponse.Status) -> AlpacaAPIError {
        var error = forStatus(Int(status.code))
        error.status = status
        return error
    }
}
