public import Foundation

/// Top of book and day statistics for one instrument at one moment.
public struct MarketQuote: Sendable, Equatable, Codable {
    public var symbol: String
    /// Start of the price bucket this quote belongs to.
    public var timestamp: Date
    public var bid: Decimal
    public var ask: Decimal
    public var bidSize: Decimal
    public var askSize: Decimal
    /// Last trade price (the mid rounded to a tick).
    public var last: Decimal
    public var lastSize: Decimal
    /// Identifies the last trade; increases with time.
    public var tradeID: Int64
    public var open: Decimal
    public var high: Decimal
    public var low: Decimal
    /// Last price of the previous (UTC) day.
    public var previousClose: Decimal
    /// True when the price comes from an override rather than the simulated path.
    public var isOverridden: Bool

    public var mid: Decimal { (bid + ask) / 2 }
    public var change: Decimal { last - previousClose }
    /// Fractional change from the previous close (0.01 = 1 %).
    public var changeFraction: Decimal {
        previousClose.isZero ? 0 : DecimalText.round(change / previousClose, scale: 8)
    }
}
