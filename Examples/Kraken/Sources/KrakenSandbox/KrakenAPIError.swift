import Hummingbird
import SandboxKit

/// A failure answered the way Kraken answers: HTTP 200 and `{"error": ["<severity><category>:<text>"]}` ("HTTP status
/// codes are generally not used by our API to convey information about the state of requests", Spot REST
/// Introduction). Only the sandbox's own HTTP failures (an unknown path, injected faults) use other statuses.
struct KrakenAPIError: Error, HTTPResponseError, Sendable, Equatable {
    var message: String
    var status: HTTPResponse.Status = .ok

    var body: JSON { ["error": [.string(message)]] }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        .json(body, status: status)
    }

    // Strings from Kraken's errors guide (docs/brokers/kraken.md §1.4, §2).
    static let invalidKey = KrakenAPIError(message: "EAPI:Invalid key")
    static let invalidSignature = KrakenAPIError(message: "EAPI:Invalid signature")
    static let invalidNonce = KrakenAPIError(message: "EAPI:Invalid nonce")
    static let unknownPair = KrakenAPIError(message: "EQuery:Unknown asset pair")
    static let insufficientFunds = KrakenAPIError(message: "EOrder:Insufficient funds")
    static let orderMinimum = KrakenAPIError(message: "EOrder:Order minimum not met")
    /// The sandbox answers `EOrder:Unknown order` for an order it does not know (ccxt's string: its `cancel_order`
    /// turns it into `OrderNotFound`); Kraken's newer SDK documents `EOrder:Invalid order` (§7.1).
    static let unknownOrder = KrakenAPIError(message: "EOrder:Unknown order")
    static let unknownMethod = KrakenAPIError(message: "EGeneral:Unknown method", status: .notFound)

    static func invalidArguments(_ field: String) -> KrakenAPIError {
        KrakenAPIError(message: "EGeneral:Invalid arguments:\(field)")
    }

    /// The body for a bare HTTP status (unknown paths, injected faults).
    static func forStatus(_ status: Int) -> KrakenAPIError {
        let message: String =
            switch status {
            case 404, 405: "EGeneral:Unknown method"
            case 413: "EGeneral:Invalid arguments"
            case 429: "EAPI:Rate limit exceeded"
            case 500...599: "EService:Unavailable"
            default: "EGeneral:Internal error"
            }
        return KrakenAPIError(message: message, status: .init(code: status))
    }
}

extension KrakenAPIError: SandboxWireError {
    func wireResponse() -> Response { .json(body, status: status) }

    static func framework(status: HTTPResponse.Status, request: Request) -> KrakenAPIError {
        var error = forStatus(Int(status.code))
        error.status = status
        return error
    }

    static var unexpected: KrakenAPIError { KrakenAPIError(message: "EGeneral:Internal error", status: .internalServerError) }
}
