public import Foundation

/// Top of book and day statistics for one instrument at one moment.
public struct MarketQuote: Sendable, Equatable, Codable {
    /// The instrument's canonical symbol (`AAPL`, `BTC/USD`).
    public var symbol: String
    /// Start of the price bucket this quote belongs to.
    public var timestamp: Date
    /// The best bid: the price a market sell fills at.
    public var bid: Decimal
    /// The best ask: the price a market buy fills at.
    public var ask: Decimal
    /// The size quoted at the bid, a small multiple of the instrument's size unit.
    public var bidSize: Decimal
    /// The size quoted at the ask, a small multiple of the instrument's size unit.
    public var askSize: Decimal
    /// Last trade price (the mid rounded to a tick).
    public var last: Decimal
    /// The size of the last trade.
    public var lastSize: Decimal
    /// Identifies the last trade; increases with time.
    public var tradeID: Int64
    /// The day's first price (UTC day).
    public var open: Decimal
    /// The day's highest price so far (UTC day), overrides included.
    public var high: Decimal
    /// The day's lowest price so far (UTC day), overrides included.
    public var low: Decimal
    /// Last price of the previous (UTC) day.
    public var previousClose: Decimal
    /// True when the price comes from an override rather than the simulated path.
    public var isOverridden: Bool

    /// The midpoint of bid and ask, unrounded.
    public var mid: Decimal { (bid + ask) / 2 }
    /// The last price minus the previous close.
    public var change: Decimal { last - previousClose }
    /// Fractional change from the previous close (0.01 = 1 %).
    public var changeFraction: Decimal {
        previousClose.isZero ? 0 : DecimalText.round(change / previousClose, scale: 8)
    }
}
