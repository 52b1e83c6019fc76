public import Foundation

/// A market snapshot for one instrument, as one broker reports it. Prices are decimals (strings on the wire) in the
/// currency the instrument is quoted in; a field the broker does not report is absent.
public struct Quote: Codable, Sendable, Hashable {
    /// The instrument quoted.
    public var instrument: Instrument
    /// The gateway connection whose broker gave the quote.
    public var connectionId: String?
    /// The best bid: the highest price a buyer offers; absent when there is none (an empty side) or the broker does not
    /// say.
    @OptionalDecimalString public var bid: Decimal?
    /// The best ask: the lowest price a seller asks; absent when there is none (an empty side) or the broker does not
    /// say.
    @OptionalDecimalString public var ask: Decimal?
    /// The price of the latest trade; absent where there is none (Saxo FX has no trades).
    @OptionalDecimalString public var last: Decimal?
    /// The opening price of the broker's period: the session's open, or the price 24 hours ago (TradeOgre).
    @OptionalDecimalString public var open: Decimal?
    /// The highest price of the broker's period (the session, or 24 hours for TradeOgre).
    @OptionalDecimalString public var high: Decimal?
    /// The lowest price of the broker's period (the session, or 24 hours for TradeOgre).
    @OptionalDecimalString public var low: Decimal?
    /// The previous session's closing price (Saxo `LastClose`; TradeIt's last price less its change).
    @OptionalDecimalString public var previousClose: Decimal?
    /// The price change over the broker's period, in the quote's currency: since the previous close, or over 24 hours
    /// (TradeOgre).
    @OptionalDecimalString public var netChange: Decimal?
    /// Percentage change over the same period as `netChange` (1.5 = 1.5 %).
    @OptionalDecimalString public var percentChange: Decimal?
    /// The volume traded in the broker's period, as the broker reports it (its unit is the broker's).
    @OptionalDecimalString public var volume: Decimal?
    /// When the broker last updated the quote; absent when it does not say (TradeOgre).
    public var time: Date?

    /// A quote as an adapter maps it; a field the broker does not report stays `nil`.
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

extension Quote {
    /// The change from `open` to `last` for a broker that reports only the two: `netChange` is `last - open`, and
    /// `percentChange` that as a percentage of `open`, rounded to 4 places (1.5 = 1.5 %). Both `nil` unless both
    /// prices are there and `open` is not zero.
    public static func change(from open: Decimal?, to last: Decimal?) -> (netChange: Decimal?, percentChange: Decimal?) {
        guard let open, let last, open != 0 else { return (nil, nil) }
        var fraction = (last - open) / open * 100
        var rounded = Decimal()
        NSDecimalRound(&rounded, &fraction, 4, .plain)
        return (last - open, rounded)
    }
}
