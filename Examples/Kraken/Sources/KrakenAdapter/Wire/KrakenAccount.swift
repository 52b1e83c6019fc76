import Foundation
import GatewayModel

/*
 POST /0/private/BalanceEx
 {"error": [], "result": {"ZUSD": {"balance": 25435.21, "hold_trade": 8249.76},
   "XXBT": {"balance": 1.24350000, "hold_trade": 0.84230000}}}
 (the schema has strings, "3.46840030"; both are read)
 */
/// One asset of `BalanceEx`. Available = balance + credit - credit_used - hold_trade (SPEC's description).
struct KrakenBalance: Decodable, Sendable {
    var balance: Decimal
    var holdTrade: Decimal
    var credit: Decimal
    var creditUsed: Decimal

    enum CodingKeys: String, CodingKey {
        case balance, credit
        case holdTrade = "hold_trade"
        case creditUsed = "credit_used"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        balance = try c.decodeDecimal(forKey: .balance)
        holdTrade = try c.decodeDecimalIfPresent(forKey: .holdTrade) ?? 0
        credit = try c.decodeDecimalIfPresent(forKey: .credit) ?? 0
        creditUsed = try c.decodeDecimalIfPresent(forKey: .creditUsed) ?? 0
    }
}
