/// The account holder at one broker connection.
public struct Client: Codable, Sendable, Hashable {
    /// The broker's id for the client (Saxo `ClientKey`, Alpaca account id, TradeIt user id).
    public var id: String
    /// The gateway connection (`conn_…`) the client was read through.
    public var connectionId: String
    /// The dialect of the connection's broker.
    public var broker: BrokerKind
    /// The holder's name as the broker gives it (Saxo `Name`; Alpaca has none and sends its account number); `nil` when
    /// it gives none.
    public var name: String?
    /// The broker's default account of the client (`Account.id`), where it names one (Saxo `DefaultAccountId`).
    public var defaultAccountId: String?
    /// The client's default currency, where the broker says (Saxo `DefaultCurrency`, Alpaca's account currency).
    public var defaultCurrency: String?

    /// A client as an adapter maps it from its broker's answer.
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
