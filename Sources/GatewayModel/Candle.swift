public import Foundation

/// The width of one candle.
public enum CandleInterval: String, WireEnum {
    case oneMinute = "1m"
    case fiveMinutes = "5m"
    case fifteenMinutes = "15m"
    case thirtyMinutes = "30m"
    case oneHour = "1h"
    case fourHours = "4h"
    case oneDay = "1d"
    case oneWeek = "1w"

    public var minutes: Int {
        switch self {
        case .oneMinute: 1
        case .fiveMinutes: 5
        case .fifteenMinutes: 15
        case .thirtyMinutes: 30
        case .oneHour: 60
        case .fourHours: 240
        case .oneDay: 1440
        case .oneWeek: 10080
        }
    }
}

/// One bar of a price chart. For quote-driven markets (FX) the prices are mid prices.
public struct Candle: Codable, Sendable, Hashable {
    /// When the bar opens.
    public var time: Date
    public var open: Decimal
    public var high: Decimal
    public var low: Decimal
    public var close: Decimal
    public var volume: Decimal?

    public init(time: Date, open: Decimal, high: Decimal, low: Decimal, close: Decimal, volume: Decimal? = nil) {
        self.time = time
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }

    enum CodingKeys: String, CodingKey { case time, open, high, low, close, volume }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = try c.decode(Date.self, forKey: .time)
        open = try c.decodeDecimal(forKey: .open)
        high = try c.decodeDecimal(forKey: .high)
        low = try c.decodeDecimal(forKey: .low)
        close = try c.decodeDecimal(forKey: .close)
        volume = try c.decodeDecimalIfPresent(forKey: .volume)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time, forKey: .time)
        try c.encodeDecimal(open, forKey: .open)
        try c.encodeDecimal(high, forKey: .high)
        try c.encodeDecimal(low, forKey: .low)
        try c.encodeDecimal(close, forKey: .close)
        try c.encodeDecimalIfPresent(volume, forKey: .volume)
    }
}

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
