import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import TradeItAdapter

/// TradeIt's code 200 (BROKER_EXECUTION_ERROR, "user must fix the trade input") in the gateway's one error vocabulary
/// (README, "Errors"): TradeIt has no finer code, so the broker's text decides. The texts are the sandbox's `Dummy`
/// broker's (`Sources/Sandboxes/TradeIt`), the envelope TradeIt's (JavaApi `TradeItErrorCode`, `TradeItResponse`).
@Suite("TradeIt errors in the gateway's vocabulary")
struct TradeItErrorVocabularyTests {
    static let rows: [(text: String, code: GatewayError.Code, field: String?)] = [
        ("Your buying power of $50000 is not enough for this order of $20000000.", .insufficientFunds, nil),
        ("You can sell at most 10 AAPL; short sales are not available in this account.", .insufficientFunds, nil),
        ("Short sales are not available in this account.", .insufficientFunds, nil),
        ("The symbol NOSUCH was not found.", .unprocessable, "symbol"),
        ("The minimum quantity for BTC/USD is 0.0001.", .unprocessable, "quantity"),
        ("Orders must be for whole shares.", .unprocessable, "quantity"),
        ("The order 8000014 is filled and cannot be canceled.", .conflict, nil),
        ("My long error message", .rejected, nil),
    ]

    @Test("each execution error answers its vocabulary code and names its field", arguments: rows)
    func row(_ row: (text: String, code: GatewayError.Code, field: String?)) {
        let error = TradeItErrors.error(code: 200, shortMessage: "Could Not Complete Your Order", longMessages: [row.text])
        #expect(error.code == row.code, "\(error)")
        #expect(error.brokerCode == "200")
        #expect(!error.retryable)
        #expect(error.message.contains(row.text))
        #expect(error.details.map(\.field) == (row.field.map { [$0] } ?? []), "\(error.details)")
    }

    @Test("a 429 is rate_limited with its Retry-After even when its body is a SYSTEM_ERROR envelope")
    func throttledWithEnvelope() {
        let body = #"{"status":"ERROR","code":100,"shortMessage":"System Error","longMessages":["Too many requests."]}"#
        let error = TradeItErrors.error(
            for: BrokerResponse(status: 429, headers: [(name: "Retry-After", value: "2")], body: Data(body.utf8)),
            path: "/api/v2/balance/getAccountOverview"
        )
        #expect(error.code == .rateLimited, "\(error)")
        #expect(error.retryable)
        #expect(error.retryAfter == 2)
        // Any other status with an envelope still reads the envelope's code.
        let unavailable = TradeItErrors.error(for: BrokerResponse(status: 503, body: Data(body.utf8)), path: "/api/v2/x")
        #expect(unavailable.code == .upstreamUnavailable)
    }

    @Test("other codes keep their table rows whatever the text says")
    func otherCodes() {
        #expect(
            TradeItErrors.error(code: 500, shortMessage: "Invalid parameter", longMessages: ["The symbol X was not found."]).code == .invalidRequest
        )
        #expect(TradeItErrors.error(code: 400, shortMessage: nil, longMessages: ["buying power"]).code == .forbidden)
    }
}
