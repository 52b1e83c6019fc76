import Foundation
import GatewayModel

extension Client {
    /*
     {"id": "e6fe16f3-64a4-4921-8928-cadf02f92f98", "account_number": "010203ABCD", "currency": "USD", ...}
     */
    /// An Alpaca key pair (or OAuth token) reaches exactly one account: the client is that account's holder.
    init(alpaca account: AlpacaAccount, connectionId: String) {
        self.init(
            id: account.id,
            connectionId: connectionId,
            broker: .alpaca,
            name: account.accountNumber,
            defaultAccountId: account.id,
            defaultCurrency: account.currency ?? "USD"
        )
    }
}
