/// A chart: an instrument's candles from one connection, oldest first.
public struct CandleSeries: Codable, Sendable, Hashable {
    /// The instrument charted.
    public var instrument: Instrument
    /// The gateway connection whose broker gave the candles.
    public var connectionId: String?
    /// The width of every candle of the series.
    public var interval: CandleInterval
    /// The bars, oldest first.
    public var candles: [Candle]

    /// A series as an adapter maps it: `candles` oldest first.
    public init(instrument: Instrument, connectionId: String? = nil, interval: CandleInterval, candles: [Candle]) {
        self.instrument = instrument
        self.connectionId = connectionId
        self.interval = interval
        self.candles = candles
    }
}
