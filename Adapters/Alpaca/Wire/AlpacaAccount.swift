import Foundation
import GatewayModel

/// `GET /v2/account`. Only `id`, `account_number` and `status` are certain: the live field list drifts, so every
/// figure is optional, and each one present must still be a valid decimal.
struct AlpacaAccount: Decodable, Sendable {
    var id: String
    var accountNumber: String
    var status: String
    var currency: String?
    var cash: Decimal?
    var buyingPower: Decimal?
    var nonMarginableBuyingPower: Decimal?
    var equity: Decimal?
    var portfolioValue: Decimal?
    var multiplier: Decimal?
    var tradingBlocked: Bool?
    var accountBlocked: Bool?
    var tradeSuspendedByUser: Bool?
    var balanceAsOf: String?

    enum CodingKeys: String, CodingKey {
        case id, status, currency, cash, equity, multiplier
        case accountNumber = "account_number"
        case buyingPower = "buying_power"
        case nonMarginableBuyingPower = "non_marginable_buying_power"
        case portfolioValue = "portfolio_value"
        case tradingBlocked = "trading_blocked"
        case accountBlocked = "account_blocked"
        case tradeSuspendedByUser = "trade_suspended_by_user"
        case balanceAsOf = "balance_asof"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        accountNumber = try c.decode(String.self, forKey: .accountNumber)
        status = try c.decode(String.self, forKey: .status)
        currency = try c.decodeIfPresent(String.self, forKey: .currency)
        cash = try c.decodeDecimalIfPresent(forKey: .cash)
        buyingPower = try c.decodeDecimalIfPresent(forKey: .buyingPower)
        nonMarginableBuyingPower = try c.decodeDecimalIfPresent(forKey: .nonMarginableBuyingPower)
        equity = try c.decodeDecimalIfPresent(forKey: .equity)
        portfolioValue = try c.decodeDecimalIfPresent(forKey: .portfolioValue)
        multiplier = try c.decodeDecimalIfPresent(forKey: .multiplier)
        tradingBlocked = try c.decodeIfPresent(Bool.self, forKey: .tradingBlocked)
        accountBlocked = try c.decodeIfPresent(Bool.self, forKey: .accountBlocked)
        tradeSuspendedByUser = try c.decodeIfPresent(Bool.self, forKey: .tradeSuspendedByUser)
        balanceAsOf = try c.decodeIfPresent(String.self, forKey: .balanceAsOf)
    }
}
