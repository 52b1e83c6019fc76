public import Foundation

/// One bar of a price chart. For quote-driven markets (FX) the prices are mid prices.
public struct Candle: Codable, Sendable, Hashable {
    /// When the bar opens.
    public var time: Date
    @DecimalString public var open: Decimal
    @DecimalString public var high: Decimal
    @DecimalString public var low: Decimal
    @DecimalString public var close: Decimal
    @OptionalDecimalString public var volume: Decimal?

    public init(time: Date, open: Decimal, high: Decimal, low: Decimal, close: Decimal, volume: Decimal? = nil) {
        self.time = time
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }
}
