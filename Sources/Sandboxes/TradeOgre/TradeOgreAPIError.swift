import Hummingbird
import SandboxKit

/// A failure answered the way TradeOgre answers: `{"success":false,"error":"<text>"}`.
///
/// TradeOgre sent its failures with HTTP 200: clients inspect only the body (ccxt's `handle_errors`), and the seed
/// app (kroucis/TradeOgre-iOS) treats any status but 200 as a transport failure yet decodes `{"success":false}` from
/// a refused cancel, so the venue answered those with 200. Only the sandbox's own HTTP failures (an unknown path,
/// injected faults) use other statuses.
struct TradeOgreAPIError: Error, HTTPResponseError, Sendable, Equatable {
    var message: String
    var status: HTTPResponse.Status = .ok

    var body: JSON { ["success": false, "error": .string(message)] }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        .json(body, status: status)
    }

    // The four messages clients know (ccxt's `exceptions.exact` for tradeogre).
    static let unauthorized = TradeOgreAPIError(message: "Must be authorized")
    static let marketNotFound = TradeOgreAPIError(message: "Market not found")
    static let insufficientFunds = TradeOgreAPIError(message: "Insufficient funds")
    static let orderNotFound = TradeOgreAPIError(message: "Order not found")

    // The sandbox's own wording for problems whose real text is not on record.
    static let invalidQuantity = TradeOgreAPIError(message: "Invalid quantity")
    static let invalidPrice = TradeOgreAPIError(message: "Invalid price")
    static let currencyNotFound = TradeOgreAPIError(message: "Currency not found")
    static let invalidInterval = TradeOgreAPIError(message: "Invalid interval")

    /// The body for a bare HTTP status (unknown paths, injected faults).
    static func forStatus(_ status: Int) -> TradeOgreAPIError {
        let message: String =
            switch status {
            case 404: "Not found"
            case 405: "Method not allowed"
            case 413: "Request too large"
            case 429: "Too many requests"
            case 500...599: "Service unavailable"
            default: "Request failed"
            }
        return TradeOgreAPIError(message: message, status: .init(code: status))
    }
}

extension TradeOgreAPIError: SandboxWireError {
    func wireResponse() -> Response { .json(body, status: status) }

    static func framework(status: HTTPResponse.Status, request: Request) -> TradeOgreAPIError { withStatus(status) }

    static var unexpected: TradeOgreAPIError { withStatus(.internalServerError) }

    private static func withStatus(_ status: HTTPResponse.Status) -> TradeOgreAPIError {
        var error = forStatus(Int(status.code))
        error.status = status
        return error
    }
}
