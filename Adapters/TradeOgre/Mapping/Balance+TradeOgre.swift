import Foundation
import GatewayModel

extension Balance {
    /*
     {"success":true,"balance":"0.00015033","available":"0.00009034"}
     */
    /// `total` is `balance` (which includes what open orders hold), `available` what can be used, `held` the
    /// difference. An `available` above the total (the two read at different moments) is capped to it, so
    /// `available + held == total` always holds.
    init(tradeOgre balance: TradeOgreBalance, currency: String, connectionId: String, accountId: String) {
        let available = min(balance.available, balance.balance)
        self.init(
            connectionId: connectionId, accountId: accountId, currency: currency, total: balance.balance,
            available: available, held: balance.balance - available)
    }
}
