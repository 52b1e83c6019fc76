import Foundation
import GatewayModel

extension Balance {
    /*
     {"cash": "-23140.2", "buying_power": "262113.632", "non_marginable_buying_power": "98945.02",
      "equity": "103820.56", "portfolio_value": "103820.56", "multiplier": "4", ...}
     */
    /// `total` is the cash balance. `available` is the part of it that can still be spent without margin:
    /// `non_marginable_buying_power` (which Alpaca reduces by open buy orders), else `buying_power`, capped to the
    /// cash; `held` is the rest. Negative cash (a margin loan) is all `available` (a debt, nothing held), so
    /// `available + held == total` always holds.
    init(alpaca account: AlpacaAccount, connectionId: String) {
        let total = account.cash ?? 0
        let spendable = account.nonMarginableBuyingPower ?? account.buyingPower ?? total
        let available: Decimal
        if total <= 0 {
            available = total
        } else {
            available = min(total, max(0, spendable))
        }
        self.init(
            connectionId: connectionId,
            accountId: account.id,
            currency: account.currency ?? "USD",
            total: total,
            available: available,
            held: total - available,
            buyingPower: account.buyingPower,
            accountValue: account.equity ?? account.portfolioValue
        )
    }
}
