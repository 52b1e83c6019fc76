/// The account holder at one broker connection.
public struct Client: Codable, Sendable, Hashable {
    /// The broker's id for the client (Saxo `ClientKey`, Alpaca account id, TradeIt user id).
    public var id: String
    public var connectionId: String
    public var broker: BrokerKind
    public var name: String?
    public var defaultAccountId: String?
    public var defaultCurrency: String?

    public init(
        id: String,
        connectionId: String,
        broker: BrokerKind,
        name: String? = nil,
        defaultAccountId: String? = nil,
        defaultCurrency: String? = nil
    ) {
        self.id = id
        self.connectionId = connectionId
        self.broker = broker
        self.name = name
        self.defaultAccountId = defaultAccountId
        self.defaultCurrency = defaultCurrency
    }
}
