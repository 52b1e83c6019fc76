public import GatewayModel

/// Every operation an adapter may offer.
public enum BrokerOperation: String, WireEnum {
    case clients, accounts, balances, positions
    case watchlists, createWatchlist, updateWatchlist, deleteWatchlist
    case orders, order, previewOrder, placeOrder, modifyOrder, cancelOrder
    case quotes, searchInstruments, candles
    /// The resting bids and asks of one instrument (`GET /v1/orderbook`).
    case orderBook
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
    public var operations: [BrokerOperation: Support]
    public var assetClasses: [AssetClass]
    public var orderTypes: [OrderType]
    public var timeInForce: [TimeInForce]
    /// Free-text facts a client should know (e.g. "no client order ids: lost placements are found by matching").
    public var notes: [String]

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

    public func support(for operation: BrokerOperation) -> Support {
        operations[operation] ?? .unsupported
    }

    enum CodingKeys: String, CodingKey { case operations, assetClasses, orderTypes, timeInForce, notes }

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
