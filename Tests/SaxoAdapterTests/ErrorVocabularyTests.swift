import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import SaxoAdapter

/// Saxo's trading error codes in the gateway's one error vocabulary (README, "Errors"). The codes and their meanings
/// are Saxo's, from the developer portal's error list for `POST /trade/v2/orders`
/// (https://www.developer.saxo/openapi/referencedocs/trade/v2/orders/post__trade) and for
/// `DELETE /trade/v2/orders/{OrderIds}` (`TooLateToCancelOrder`); the body shape (`ErrorInfo` with `ErrorCode` and
/// `Message`) is the one Saxo's samples show for a single order (SaxoBank/openapi-samples-js).
@Suite("Saxo errors in the gateway's vocabulary")
struct SaxoErrorVocabularyTests {
    static let rows: [(errorCode: String, code: GatewayError.Code, field: String?)] = [
        ("InsufficentCash", .insufficientFunds, nil),
        ("WouldExceedMargin", .insufficientFunds, nil),
        ("ShortTradeDisabled", .insufficientFunds, nil),
        ("IllegalInstrumentId", .unprocessable, "symbol"),
        ("IllegalAmount", .unprocessable, "quantity"),
        ("AmountBelowMinimumLotSize", .unprocessable, "quantity"),
        ("AmountNotInLotSize", .unprocessable, "quantity"),
        ("PriceNotInTickSizeIncrements", .unprocessable, "limitPrice"),
        ("OnWrongSideOfMarket", .unprocessable, "limitPrice"),
        ("MarketClosed", .marketClosed, nil),
        ("TooLateToCancelOrder", .conflict, nil),
        ("OrderNotFound", .notFound, nil),
        ("ClientExposureLimitation", .rejected, nil),
    ]

    @Test("each trading code answers its vocabulary code and names its field", arguments: rows)
    func row(_ row: (errorCode: String, code: GatewayError.Code, field: String?)) {
        let body = #"{"ErrorInfo": {"ErrorCode": "\#(row.errorCode)", "Message": "Saxo's message"}}"#
        let error = SaxoErrors.error(for: BrokerResponse(status: 400, body: Data(body.utf8)))
        #expect(error.code == row.code, "\(error)")
        #expect(error.brokerCode == row.errorCode)
        #expect(error.details.map(\.field) == (row.field.map { [$0] } ?? []), "\(error.details)")
        // A placement answered 200 with an ErrorInfo (no OrderId) reads the same.
        let info = SaxoErrorInfo(errorCode: row.errorCode, message: "Saxo's message")
        #expect(SaxoErrors.error(for: info, status: 200).code == row.code)
    }

    @Test("a market that is closed is 422 market_closed, not retryable")
    func marketClosed() {
        let error = SaxoErrors.error(
            for: BrokerResponse(status: 400, body: Data(#"{"ErrorInfo": {"ErrorCode": "MarketClosed", "Message": "Market is closed"}}"#.utf8))
        )
        #expect(error.code == .marketClosed)
        #expect(error.code.httpStatus == 422)
        #expect(!error.retryable)
        #expect(error.message == "Saxo: Market is closed")
    }
}
