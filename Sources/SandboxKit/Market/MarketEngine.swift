public import Foundation
import Synchronization

/// Settings of a ``MarketEngine``.
public struct MarketConfiguration: Sendable {
    /// Seed of every price path: the same seed gives the same prices at the same times.
    public var seed: UInt64
    /// Length of a price bucket in seconds (1 to 86 400): prices change at most once per bucket.
    public var bucketSeconds: Int
    /// The instruments the market quotes.
    public var instruments: [MarketInstrument]

    /// Makes settings; `bucketSeconds` is clamped to 1 to 86 400.
    public init(seed: UInt64 = 20_250_106, bucketSeconds: Int = 1, instruments: [MarketInstrument] = InstrumentCatalogue.standard) {
        self.seed = seed
        self.bucketSeconds = min(max(1, bucketSeconds), 86_400)
        self.instruments = instruments
    }
}

/// Why the market refused a request.
public enum MarketError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownSymbol(String)
    case invalidPrice(String)
    case invalidQuantity(String)

    /// A short reason for an error answer's message.
    public var description: String {
        switch self {
        case .unknownSymbol(let symbol): "unknown symbol \(symbol)"
        case .invalidPrice(let reason): "invalid price: \(reason)"
        case .invalidQuantity(let reason): "invalid quantity: \(reason)"
        }
    }
}

/// The shared, broker-neutral market of the sandbox: deterministic moving prices for a catalogue of instruments.
///
/// Prices follow a seeded path (see `PricePath`) sampled in fixed buckets of the injected ``SandboxClock``,
/// so a test with a ``ManualClock`` sees exactly reproducible quotes and can move time without sleeping.
/// A per-symbol override pins the price (for tests and `PUT /_sandbox/prices/{symbol}`), which is how a test forces
/// a limit price to be crossed.
///
/// Day statistics use UTC days. High and low are taken from the path sampled once a minute plus the current price
/// and any override, which keeps them cheap and reproducible.
public final class MarketEngine: Sendable {
    /// The seed, bucket length and instruments the market was made with.
    public let configuration: MarketConfiguration
    /// The time source every price and day statistic reads.
    public let clock: any SandboxClock
    /// Signals to the market's watchers that prices may have moved (pins, admin clock moves).
    public let moves = MarketMoves()

    private let bySymbol: [String: Int]
    private let byID: [UUID: Int]
    private let paths: [PricePath]
    private let state: Mutex<State>

    private struct DayRange: Equatable {
        var day: Int64
        var high: Int64
        var low: Int64
        /// Last bucket on the one-minute sampling grid already folded in.
        var sampledThrough: Int64
    }

    private struct State {
        var overrides: [String: Decimal] = [:]
        var overrideExtremes: [String: (day: Int64, high: Decimal, low: Decimal)] = [:]
        var ranges: [String: DayRange] = [:]
        /// Each symbol's previous close, for the day it was computed on (a pure function of the day: cached).
        var previousCloses: [String: (day: Int64, price: Decimal)] = [:]
        /// What remains at the touch of each symbol whose depth is limited (``setDepth(_:for:)``); absent: unlimited.
        var depth: [String: Decimal] = [:]
    }

    /// Makes a market over `configuration`, reading `clock` (the wall clock by default; a ``ManualClock`` in tests).
    public init(configuration: MarketConfiguration = MarketConfiguration(), clock: any SandboxClock = WallClock()) {
        var configuration = configuration
        configuration.bucketSeconds = min(max(1, configuration.bucketSeconds), 86_400)
        self.configuration = configuration
        self.clock = clock
        var bySymbol: [String: Int] = [:]
        var byID: [UUID: Int] = [:]
        for (index, instrument) in configuration.instruments.enumerated() {
            bySymbol[instrument.symbol] = index
            byID[instrument.id] = index
        }
        self.bySymbol = bySymbol
        self.byID = byID
        self.paths = configuration.instruments.map { PricePath(instrument: $0, seed: configuration.seed) }
        self.state = Mutex(State())
    }

    /// The instruments the market quotes, in catalogue order.
    public var instruments: [MarketInstrument] { configuration.instruments }

    /// The market's current time, from its clock.
    public var now: Date { clock.now() }

    /// The instrument with canonical `symbol`; `nil` when the market does not list it.
    public func instrument(symbol: String) -> MarketInstrument? {
        bySymbol[symbol].map { configuration.instruments[$0] }
    }

    /// The instrument with the stable `id` (see ``MarketInstrument/stableID(for:)``); `nil` when the market does not list
    /// it.
    public func instrument(id: UUID) -> MarketInstrument? {
        byID[id].map { configuration.instruments[$0] }
    }

    /// The quote now.
    public func quote(symbol: String) -> MarketQuote? {
        quote(symbol: symbol, at: clock.now())
    }

    /// The quote at `date` (overrides apply whatever the date).
    public func quote(symbol: String, at date: Date) -> MarketQuote? {
        guard let index = bySymbol[symbol] else { return nil }
        let instrument = configuration.instruments[index]
        let path = paths[index]
        let bucket = self.bucket(of: date)
        let day = self.day(of: bucket)
        let dayStart = firstBucket(ofDay: day)
        let offset = path.offset(bucket: bucket)

        let (override, known, overrideExtremes) = state.withLock { state in
            let extremes = state.overrideExtremes[symbol].flatMap { $0.day == day ? ($0.high, $0.low) : nil }
            return (state.overrides[symbol], state.ranges[symbol], extremes)
        }
        // The walk of the day's minutes runs outside the lock: the first quote of a symbol in a day samples up to
        // 1,440 minutes, and no other caller of this market (every sandbox on it) may wait on the lock meanwhile.
        let range = foldedRange(known, path: path, day: day, through: bucket, currentOffset: offset)
        // Most quotes fold nothing new (the minute has not turned): then the cache is as it was and the lock is not
        // taken again.
        if range.folded != known {
            state.withLock { state in
                // Keep the cache monotonic: a question about an earlier moment must not shrink or widen later answers.
                let stored = state.ranges[symbol]
                if stored == nil || stored!.day < day
                    || (stored!.day == day && range.folded.sampledThrough >= stored!.sampledThrough)
                {
                    state.ranges[symbol] = range.folded
                }
            }
        }

        let pathMid = path.price(offset: offset)
        let mid = override ?? pathMid
        var high = path.price(offset: range.withCurrent.high)
        var low = path.price(offset: range.withCurrent.low)
        if let override {
            high = max(high, override)
            low = min(low, override)
        }
        if let overrideExtremes {
            high = max(high, overrideExtremes.0)
            low = min(low, overrideExtremes.1)
        }

        let tick = instrument.tickSize
        let halfSpreadTicks = max(1, DecimalText.round(mid * instrument.spread / 2 / tick, scale: 0, .plain))
        let bid = max(mid - halfSpreadTicks * tick, tick)
        let ask = mid + halfSpreadTicks * tick
        let unit = instrument.sizeUnit
        return MarketQuote(
            symbol: symbol,
            timestamp: startDate(ofBucket: bucket),
            bid: bid,
            ask: ask,
            bidSize: Decimal(path.sizeFactor(bucket: bucket, salt: 1, range: 9)) * unit,
            askSize: Decimal(path.sizeFactor(bucket: bucket, salt: 2, range: 9)) * unit,
            last: mid,
            lastSize: Decimal(path.sizeFactor(bucket: bucket, salt: 3, range: 5)) * unit,
            tradeID: bucket,
            open: path.price(bucket: dayStart),
            high: high,
            low: low,
            previousClose: path.price(bucket: dayStart - 1),
            isOverridden: override != nil
        )
    }

    /// The last price and the previous close at `date`: what ``quote(symbol:at:)`` says of them, without the rest of
    /// the quote. Valuing a position needs no more, and the day's high and low that a quote folds in cost a walk of
    /// the day's minutes the first time a symbol is quoted that day: an account of 10,000 positions valued with
    /// quotes cost as many walks on its first request of a day.
    public func valuation(symbol: String, at date: Date) -> (last: Decimal, previousClose: Decimal)? {
        guard let index = bySymbol[symbol] else { return nil }
        let path = paths[index]
        let bucket = self.bucket(of: date)
        let day = self.day(of: bucket)
        let (override, cachedClose) = state.withLock { state in
            (state.overrides[symbol], state.previousCloses[symbol].flatMap { $0.day == day ? $0.price : nil })
        }
        let previousClose: Decimal
        if let cachedClose {
            previousClose = cachedClose
        } else {
            previousClose = path.price(bucket: firstBucket(ofDay: day) - 1)
            state.withLock { $0.previousCloses[symbol] = (day, previousClose) }
        }
        return (override ?? path.price(offset: path.offset(bucket: bucket)), previousClose)
    }

    /// Pins `symbol`'s price (rounded to its tick) until cleared with `nil`.
    public func setPriceOverride(_ price: Decimal?, for symbol: String) throws(MarketError) {
        guard let index = bySymbol[symbol] else { throw .unknownSymbol(symbol) }
        defer { moves.signal() }
        guard let price else {
            state.withLock { _ = $0.overrides.removeValue(forKey: symbol) }
            return
        }
        guard price > 0, !price.isNaN else { throw .invalidPrice("must be greater than 0") }
        let tick = configuration.instruments[index].tickSize
        let rounded = max(DecimalText.round(price, toMultipleOf: tick), tick)
        let day = self.day(of: bucket(of: clock.now()))
        state.withLock { state in
            state.overrides[symbol] = rounded
            // Remember the override in the day's range even after it is cleared: it "traded" there.
            if let existing = state.overrideExtremes[symbol], existing.day == day {
                state.overrideExtremes[symbol] = (day, max(existing.high, rounded), min(existing.low, rounded))
            } else {
                state.overrideExtremes[symbol] = (day, rounded, rounded)
            }
        }
    }

    /// The price pinned on `symbol`, if any.
    public func priceOverride(for symbol: String) -> Decimal? {
        state.withLock { $0.overrides[symbol] }
    }

    /// Unpins every symbol, so prices follow their simulated paths again, and wakes the market's watchers.
    public func clearPriceOverrides() {
        state.withLock { $0.overrides.removeAll() }
        moves.signal()
    }

    // MARK: Depth

    /// Limits what the venue has at the touch of `symbol` to `quantity` (both sides), until set again or cleared with
    /// `nil` (unlimited depth, the default). Fills take from it (``take(upTo:of:)``): an order larger than what remains
    /// fills in part and rests for the rest, which is how a test makes an order partly filled and then, by raising or
    /// clearing the depth, fully filled. Wakes the market's watchers like a price move.
    public func setDepth(_ quantity: Decimal?, for symbol: String) throws(MarketError) {
        guard bySymbol[symbol] != nil else { throw .unknownSymbol(symbol) }
        if let quantity, quantity < 0 || quantity.isNaN { throw .invalidQuantity("must be 0 or more") }
        state.withLock { state in state.depth[symbol] = quantity }
        moves.signal()
    }

    /// What remains at the touch of `symbol`; nil when its depth is unlimited.
    public func depth(for symbol: String) -> Decimal? {
        state.withLock { $0.depth[symbol] }
    }

    /// Takes up to `quantity` of `symbol` from the touch and answers how much was there: all of it when the depth is
    /// unlimited, else what remains (perhaps 0), which is consumed. Atomic: two orders never share the same units.
    public func take(upTo quantity: Decimal, of symbol: String) -> Decimal {
        guard quantity > 0 else { return 0 }
        return state.withLock { state in
            guard let remaining = state.depth[symbol] else { return quantity }
            let taken = min(remaining, quantity)
            state.depth[symbol] = remaining - taken
            return taken
        }
    }

    // MARK: Buckets

    private func bucket(of date: Date) -> Int64 {
        Timestamp.floorDiv(Timestamp.unixSeconds(date), Int64(configuration.bucketSeconds))
    }

    private func startDate(ofBucket bucket: Int64) -> Date {
        Date(timeIntervalSince1970: Double(bucket * Int64(configuration.bucketSeconds)))
    }

    private func day(of bucket: Int64) -> Int64 {
        Timestamp.floorDiv(bucket * Int64(configuration.bucketSeconds), 86_400)
    }

    private func firstBucket(ofDay day: Int64) -> Int64 {
        let seconds = day * 86_400
        let size = Int64(configuration.bucketSeconds)
        return Timestamp.floorDiv(seconds + size - 1, size)
    }

    /// Extends a symbol's known day range with the one-minute grid up to `bucket` (`folded`, what may be cached), and
    /// that with the current offset (`withCurrent`, what this quote shows). Pure: the caller holds no lock.
    private func foldedRange(
        _ existing: DayRange?,
        path: PricePath,
        day: Int64,
        through bucket: Int64,
        currentOffset: Int64
    ) -> (folded: DayRange, withCurrent: DayRange) {
        let dayStart = firstBucket(ofDay: day)
        let step = max(1, 60 / Int64(configuration.bucketSeconds))
        var range: DayRange
        if let existing, existing.day == day, existing.sampledThrough <= bucket {
            range = existing
        } else {
            let first = path.offset(bucket: dayStart)
            range = DayRange(day: day, high: first, low: first, sampledThrough: dayStart)
        }
        var sample = range.sampledThrough + step
        while sample <= bucket {
            let offset = path.offset(bucket: sample)
            range.high = max(range.high, offset)
            range.low = min(range.low, offset)
            range.sampledThrough = sample
            sample += step
        }
        var result = range
        result.high = max(result.high, currentOffset)
        result.low = min(result.low, currentOffset)
        return (range, result)
    }
}
