import Foundation
import GatewayModel

/// `GET port/v1/balances?ClientKey=&AccountKey=` (one object, not a list). Amounts are JSON numbers.
struct SaxoBalance: Decodable, Sendable {
    var currency: String?
    var cashBalance: Decimal?
    var cashBlocked: Decimal?
    var cashAvailableForTrading: Decimal?
    var totalValue: Decimal?
    var marginAvailableForTrading: Decimal?
    var marginUtilizationPct: Decimal?

    enum CodingKeys: String, CodingKey {
        case currency = "Currency"
        case cashBalance = "CashBalance"
        case cashBlocked = "CashBlocked"
        case cashAvailableForTrading = "CashAvailableForTrading"
        case totalValue = "TotalValue"
        case marginAvailableForTrading = "MarginAvailableForTrading"
        case marginUtilizationPct = "MarginUtilizationPct"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        currency = try c.decodeIfPresent(String.self, forKey: .currency)
        cashBalance = try c.decodeDecimalIfPresent(forKey: .cashBalance)
        cashBlocked = try c.decodeDecimalIfPresent(forKey: .cashBlocked)
        cashAvailableForTrading = try c.decodeDecimalIfPresent(forKey: .cashAvailableForTrading)
        totalValue = try c.decodeDecimalIfPresent(forKey: .totalValue)
        marginAvailableForTrading = try c.decodeDecimalIfPresent(forKey: .marginAvailableForTrading)
        marginUtilizationPct = try c.decodeDecimalIfPresent(forKey: .marginUtilizationPct)
    }
}
