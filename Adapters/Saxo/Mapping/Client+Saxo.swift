import GatewayModel

extension Client {
    /*
     {"AccountValueProtectionLimit": 0, "ClientId": "9226397", "ClientKey": "Cf4xZWiYL6W1nMKpygBLLA==",
      "CurrencyDecimals": 2, "DefaultAccountId": "9226397", "DefaultAccountKey": "Cf4xZWiYL6W1nMKpygBLLA==",
      "DefaultCurrency": "EUR", "IsMarginTradingAllowed": true, "Name": "F. Brekeveld", ...}
     */
    /// `id` is the `ClientKey`, the key every other Saxo call takes.
    init(saxo client: SaxoClient, connectionId: String) {
        self.init(
            id: client.clientKey,
            connectionId: connectionId,
            broker: .saxo,
            name: client.name,
            defaultAccountId: client.defaultAccountId,
            defaultCurrency: client.defaultCurrency
        )
    }
}
