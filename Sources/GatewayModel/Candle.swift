public import Foundation

/// One bar of a price chart. For quote-driven markets (FX) the prices are mid prices.
public struct Candle: Codable, Sendable, Hashable {
    /// When the bar opens.
    public var time: Date
    /// The first price of the bar.
    @DecimalString public var open: Decimal
    /// The highest price of the bar.
    @DecimalString public var high: Decimal
    /// The lowest price of the bar.
    @DecimalString public var low: Decimal
    /// The last price of the bar.
    @DecimalString public var close: Decimal
    /// The volume traded in the bar, as the broker reports it; absent where it reports none (FX).
    @OptionalDecimalString public var volume: Decimal?

    /// One bar as an adapter maps it.
    public init(time: Date, open: Decimal, high: Decimal, low: Decimal, close: Decimal, volume: Decimal? = nil) {
        self.time = time
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }
}
