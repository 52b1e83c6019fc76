/// A chart: an instrument's candles from one connection, oldest first.
public struct CandleSeries: Codable, Sendable, Hashable {
    public var instrument: Instrument
    public var connectionId: String?
    public var interval: CandleInterval
    public var candles: [Candle]

    public init(instrument: Instrument, connectionId: String? = nil, interval: CandleInterval, candles: [Candle]) {
        self.instrument = instrument
        self.connectionId = connectionId
        self.interval = interval
        self.candles = candles
    }
}
