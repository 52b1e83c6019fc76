public import Foundation

/// A market snapshot for one instrument.
public struct Quote: Codable, Sendable, Hashable {
    public var instrument: Instrument
    public var connectionId: String?
    @OptionalDecimalString public var bid: Decimal?
    @OptionalDecimalString public var ask: Decimal?
    @OptionalDecimalString public var last: Decimal?
    @OptionalDecimalString public var open: Decimal?
    @OptionalDecimalString public var high: Decimal?
    @OptionalDecimalString public var low: Decimal?
    @OptionalDecimalString public var previousClose: Decimal?
    @OptionalDecimalString public var netChange: Decimal?
    /// Percentage change from the previous close (1.5 = 1.5 %).
    @OptionalDecimalString public var percentChange: Decimal?
    @OptionalDecimalString public var volume: Decimal?
    public var time: Date?

    public init(
        instrument: Instrument,
        connectionId: String? = nil,
        bid: Decimal? = nil,
        ask: Decimal? = nil,
        last: Decimal? = nil,
        open: Decimal? = nil,
        high: Decimal? = nil,
        low: Decimal? = nil,
        previousClose: Decimal? = nil,
        netChange: Decimal? = nil,
        percentChange: Decimal? = nil,
        volume: Decimal? = nil,
        time: Date? = nil
    ) {
        self.instrument = instrument
        self.connectionId = connectionId
        self.bid = bid
        self.ask = ask
        self.last = last
        self.open = open
        self.high = high
        self.low = low
        self.previousClose = previousClose
        self.netChange = netChange
        self.percentChange = percentChange
        self.volume = volume
        self.time = time
    }
}
