import Foundation
import GatewayModel

extension Account {
    /*
     {"id": "e6fe16f3-64a4-4921-8928-cadf02f92f98", "account_number": "010203ABCD", "status": "ACTIVE",
      "currency": "USD", "cash": "-23140.2", "buying_power": "262113.632", "equity": "103820.56",
      "trading_blocked": false, "account_blocked": false, "trade_suspended_by_user": false, ...}
     */
    /// Tradable while `ACTIVE` and not blocked or suspended by the user.
    init(alpaca account: AlpacaAccount, connectionId: String) {
        let blocked =
            account.tradingBlocked == true || account.accountBlocked == true
            || account.tradeSuspendedByUser == true
        self.init(
            id: account.id,
            connectionId: connectionId,
            broker: .alpaca,
            name: account.accountNumber,
            currency: account.currency ?? "USD",
            tradable: account.status == "ACTIVE" && !blocked,
            status: account.status
        )
    }
}
