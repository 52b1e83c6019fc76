import GatewayModel

extension Account {
    /*
     {"AccountGroupKey": "Cf4xZWiYL6W1nMKpygBLLA==", "AccountId": "9226397", "AccountKey": "Cf4xZWiYL6W1nMKpygBLLA==",
      "AccountType": "Normal", "Active": true, "ClientId": "9226397", "ClientKey": "Cf4xZWiYL6W1nMKpygBLLA==",
      "Currency": "EUR", "CurrencyDecimals": 2, "IsTrialAccount": true, ...}
     */
    /// `id` is the `AccountId` users see; `brokerKey` the `AccountKey` requests need. `status` is the `AccountType`.
    init(saxo account: SaxoAccount, connectionId: String) throws {
        guard let currency = account.currency else {
            throw SaxoErrors.malformed("an account without a currency")
        }
        self.init(
            id: account.accountId,
            connectionId: connectionId,
            broker: .saxo,
            name: account.displayName,
            currency: currency,
            tradable: account.active ?? true,
            status: account.accountType,
            brokerKey: account.accountKey
        )
    }
}
