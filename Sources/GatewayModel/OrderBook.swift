public import Foundation

/// The resting orders of one instrument at one broker: bids best (highest) first, asks best (lowest) first, at most
/// the depth asked for on each side. Prices and sizes are decimals, written as strings.
public struct OrderBook: Codable, Sendable, Hashable {
    /// The instrument whose book this is.
    public var instrument: Instrument
    /// The gateway connection whose broker gave the book.
    public var connectionId: String?
    /// The dialect of that connection's broker.
    public var broker: BrokerKind?
    /// The buy side: highest price first.
    public var bids: [OrderBookLevel]
    /// The sell side: lowest price first.
    public var asks: [OrderBookLevel]
    /// When the broker took the book, when it says (TradeOgre does not).
    public var time: Date?

    /// A book as the broker sent it; ``normalized(depth:)`` puts it in canonical order.
    public init(
        instrument: Instrument,
        connectionId: String? = nil,
        broker: BrokerKind? = nil,
        bids: [OrderBookLevel],
        asks: [OrderBookLevel],
        time: Date? = nil
    ) {
        self.instrument = instrument
        self.connectionId = connectionId
        self.broker = broker
        self.bids = bids
        self.asks = asks
        self.time = time
    }

    /// The deepest book a read may ask for, per side.
    public static let maximumDepth = 500

    /// The book in canonical order (bids descending, asks ascending, levels of one price merged) cut to `depth` levels
    /// a side: brokers send maps (TradeOgre) or lists in their own order.
    public func normalized(depth: Int) -> OrderBook {
        func merge(_ levels: [OrderBookLevel], descending: Bool) -> [OrderBookLevel] {
            var sizes: [Decimal: Decimal] = [:]
            for level in levels where level.size > 0 { sizes[level.price, default: 0] += level.size }
            let sorted = sizes.sorted { descending ? $0.key > $1.key : $0.key < $1.key }
            return sorted.prefix(max(0, depth)).map { OrderBookLevel(price: $0.key, size: $0.value) }
        }
        var book = self
        book.bids = merge(bids, descending: true)
        book.asks = merge(asks, descending: false)
        return book
    }
}
