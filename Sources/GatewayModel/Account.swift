/// A trading account. `id` is the broker's own account id; (`connectionId`, `id`) is unique in a tenant.
public struct Account: Codable, Sendable, Hashable {
    public var id: String
    public var connectionId: String
    public var broker: BrokerKind
    public var name: String?
    /// The base currency.
    public var currency: String
    public var tradable: Bool
    /// The broker's description of the account's state (`ACTIVE`, `Normal`, ...); descriptive only.
    public var status: String?
    /// The key the broker wants in requests when it differs from the display id (Saxo `AccountKey`).
    public var brokerKey: String?

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
