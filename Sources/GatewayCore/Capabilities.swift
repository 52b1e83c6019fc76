public import GatewayModel

/// Every operation an adapter may offer.
public enum BrokerOperation: String, WireEnum {
    /// The account reads of the same names on ``BrokerAdapter``.
    case clients, accounts, balances, positions
    /// The broker-side watchlist operations of ``BrokerAdapter``.
    case watchlists, createWatchlist, updateWatchlist, deleteWatchlist
    /// Listing, reading, previewing, placing, changing and cancelling orders.
    case orders, order, previewOrder, placeOrder, modifyOrder, cancelOrder
    /// Market data: latest quotes, instrument search, candles.
    case quotes, searchInstruments, candles
    /// The resting bids and asks of one instrument (`GET /v1/orderbook`).
    case orderBook
    /// The broker finds an order by the client order id it was placed with
    /// (``BrokerAdapter/order(clientOrderId:accountId:)``); without it, a placement whose outcome is unknown is
    /// resolved by matching the broker's orders against the request.
    case orderByClientOrderId
    /// The broker lists orders that are no longer open (filled, cancelled), so not finding an order proves the
    /// broker never had it. Without it, a lost placement that filled at once cannot be told from one never received.
    case closedOrders
    /// The broker takes orders sized in money (`notional`) instead of units. Without it a notional request is refused
    /// with `unprocessable` naming `notional` before anything is sent.
    case notionalOrders
}

/// How an adapter offers an operation.
public enum Support: String, WireEnum {
    /// The broker does it natively.
    case supported
    /// The gateway does it on the broker's behalf (e.g. modify as cancel + place, or a gateway-side watchlist).
    case emulated
    /// Not available; the operation answers `not_supported`.
    case unsupported
}

/// What an adapter can do, declared up front so clients can discover it (`GET /v1/brokers`).
public struct Capabilities: Codable, Sendable, Hashable {
    /// How each operation is offered; an operation missing here is `unsupported` (``support(for:)``).
    public var operations: [BrokerOperation: Support]
    /// The asset classes the broker trades and quotes; fan-outs skip connections whose broker lacks the symbol's.
    public var assetClasses: [AssetClass]
    /// The order types this broker takes; a placement of another type is refused before the broker is called.
    public var orderTypes: [OrderType]
    /// The times in force this broker takes; another is refused before the broker is called.
    public var timeInForce: [TimeInForce]
    /// Free-text facts a client should know (e.g. "no client order ids: lost placements are found by matching").
    public var notes: [String]

    /// A declaration, as an adapter factory writes it once for its broker.
    public init(
        operations: [BrokerOperation: Support],
        assetClasses: [AssetClass],
        orderTypes: [OrderType],
        timeInForce: [TimeInForce],
        notes: [String] = []
    ) {
        self.operations = operations
        self.assetClasses = assetClasses
        self.orderTypes = orderTypes
        self.timeInForce = timeInForce
        self.notes = notes
    }

    /// How `operation` is offered; `unsupported` when the declaration does not name it.
    public func support(for operation: BrokerOperation) -> Support {
        operations[operation] ?? .unsupported
    }

    enum CodingKeys: String, CodingKey { case operations, assetClasses, orderTypes, timeInForce, notes }

    /// Reads a declaration, skipping operation names this version does not know, so a client reads a newer
    /// gateway's `GET /v1/brokers`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let raw = try c.decode([String: Support].self, forKey: .operations)
        var operations: [BrokerOperation: Support] = [:]
        for (key, value) in raw {
            if let operation = BrokerOperation(rawValue: key) { operations[operation] = value }
        }
        self.operations = operations
        assetClasses = try c.decode([AssetClass].self, forKey: .assetClasses)
        orderTypes = try c.decode([OrderType].self, forKey: .orderTypes)
        timeInForce = try c.decode([TimeInForce].self, forKey: .timeInForce)
        notes = try c.decodeIfPresent([String].self, forKey: .notes) ?? []
    }

    /// Writes `operations` as an object naming every ``BrokerOperation``, undeclared ones as `unsupported`, so a
    /// client need not know the default.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        var raw: [String: Support] = [:]
        for operation in BrokerOperation.allCases { raw[operation.rawValue] = support(for: operation) }
        try c.encode(raw, forKey: .operations)
        try c.encode(assetClasses, forKey: .assetClasses)
        try c.encode(orderTypes, forKey: .orderTypes)
        try c.encode(timeInForce, forKey: .timeInForce)
        try c.encode(notes, forKey: .notes)
    }
}
