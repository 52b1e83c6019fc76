/// A trading account. `id` is the broker's own account id; (`connectionId`, `id`) is unique in a tenant.
public struct Account: Codable, Sendable, Hashable {
    /// The broker's account id, as the account holder sees it (Saxo `AccountId`, Alpaca's account id, TradeIt's account
    /// number): what requests name as `accountId`.
    public var id: String
    /// The gateway connection (`conn_…`) the account is reached through.
    public var connectionId: String
    /// The dialect of the connection's broker.
    public var broker: BrokerKind
    /// The broker's display name for the account (Alpaca sends its account number); `nil` when the broker gives none.
    public var name: String?
    /// The base currency.
    public var currency: String
    /// Whether the broker lets the account place orders now, as it says (Alpaca: `ACTIVE` and not blocked; Saxo
    /// `Active`; TradeIt `tradable`); `true` when the broker does not say.
    public var tradable: Bool
    /// The broker's description of the account's state (`ACTIVE`, `Normal`, ...); descriptive only.
    public var status: String?
    /// The key the broker wants in requests when it differs from the display id (Saxo `AccountKey`).
    public var brokerKey: String?

    /// An account as an adapter maps it from its broker's answer.
    public init(
        id: String,
        connectionId: String,
        broker: BrokerKind,
        name: String? = nil,
        currency: String,
        tradable: Bool = true,
        status: String? = nil,
        brokerKey: String? = nil
    ) {
        self.id = id
        self.connectionId = connectionId
        self.broker = broker
        self.name = name
        self.currency = currency
        self.tradable = tradable
        self.status = status
        self.brokerKey = brokerKey
    }
}
