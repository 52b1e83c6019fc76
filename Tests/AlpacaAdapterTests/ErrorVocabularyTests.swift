import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import AlpacaAdapter

/// Alpaca's refusals of an order in the gateway's one error vocabulary (README, "Errors"): the same mistake answers
/// the same code and field at every broker. Bodies are the ones Alpaca sends (the wire reference's 403 and 422
/// messages) as the sandbox gives them.
@Suite("Alpaca errors in the gateway's vocabulary")
struct AlpacaErrorVocabularyTests {
    static let rows: [(status: Int, body: String, code: GatewayError.Code, field: String?)] = [
        (
            403, #"{"buying_power":"176531.28","code":40310000,"cost_basis":"48640000","message":"insufficient buying power"}"#,
            .insufficientFunds, nil
        ),
        (
            403,
            #"{"available":"6","code":40310000,"existing_qty":"10","held_for_orders":"4","message":"insufficient qty available for order (requested: 7, available: 6)","symbol":"AAPL"}"#,
            .insufficientFunds, nil
        ),
        (
            403,
            #"{"available":"0.05","balance":"0.05","code":40310000,"message":"insufficient balance for BTC (requested: 1, available: 0.05)","symbol":"BTC"}"#,
            .insufficientFunds, nil
        ),
        (422, #"{"code":42210000,"message":"asset \"NOSUCH\" not found"}"#, .unprocessable, "symbol"),
        (422, #"{"code":42210000,"message":"qty must be >= 0.0001"}"#, .unprocessable, "quantity"),
        (422, #"{"code":40010001,"message":"qty must have at most 9 decimal places"}"#, .unprocessable, "quantity"),
        (422, #"{"code":42210000,"message":"fractional orders are not supported for GME"}"#, .unprocessable, "quantity"),
        (
            422, #"{"code":42210000,"message":"invalid limit_price 150.001. sub-penny increment does not fulfill minimum pricing criteria"}"#,
            .unprocessable, "limitPrice"
        ),
        (
            422, #"{"code":42210000,"message":"invalid stop_price 150.001. sub-penny increment does not fulfill minimum pricing criteria"}"#,
            .unprocessable, "stopPrice"
        ),
        (422, #"{"code":42210000,"message":"invalid crypto time_in_force"}"#, .unprocessable, "timeInForce"),
        (422, #"{"code":42210000,"message":"order is already in \"filled\" state"}"#, .conflict, nil),
    ]

    @Test("each refusal answers its vocabulary code and names its field", arguments: rows)
    func row(_ row: (status: Int, body: String, code: GatewayError.Code, field: String?)) {
        let error = AlpacaErrors.error(for: BrokerResponse(status: row.status, body: Data(row.body.utf8)), now: Date())
        #expect(error.code == row.code, "\(error)")
        #expect(error.code.httpStatus == 422 || error.code == .conflict)
        #expect(error.details.map(\.field) == (row.field.map { [$0] } ?? []), "\(error.details)")
    }

    @Test("a validation message naming no known parameter names no field")
    func noField() {
        let error = AlpacaErrors.error(
            for: BrokerResponse(status: 422, body: Data(#"{"code":42210000,"message":"request could not be processed"}"#.utf8)),
            now: Date()
        )
        #expect(error.code == .unprocessable)
        #expect(error.details.isEmpty)
    }
}
