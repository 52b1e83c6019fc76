public import Foundation

/// OHLC bars of one instrument sampled from the shared market's deterministic price path (``PricePath``): the one
/// source of every sandbox's charts (Saxo's `chart/v3/charts`, Alpaca's `/v2/stocks/bars` and crypto bars, their
/// snapshots), so a chart and a quote of the same moment agree.
///
/// Each bar samples the path at up to 60 evenly spaced buckets (every bucket for short bars), so any width costs
/// about the same. The bar in progress closes at the live quote (price overrides included).
public struct MarketBars: Sendable {
    /// One bar over `[start, end)`: bid, ask and trade OHLC on the instrument's tick, volume, trade count and VWAP.
    public struct Bar: Sendable, Equatable {
        /// When the bar opens.
        public var time: Date
        /// Bid and ask at the bar's open, quoted around the sampled mid as ``MarketEngine`` quotes them.
        public var openBid: Decimal, openAsk: Decimal
        /// Highest bid and ask over the bar (at least the close's).
        public var highBid: Decimal, highAsk: Decimal
        /// Lowest bid and ask over the bar (at most the close's).
        public var lowBid: Decimal, lowAsk: Decimal
        /// Bid and ask at the close; the live quote's for the bar in progress.
        public var closeBid: Decimal, closeAsk: Decimal
        /// Trade prices (the path's mid on its tick; the live last price for the bar in progress).
        public var open: Decimal, high: Decimal, low: Decimal, close: Decimal
        /// Units traded over the sampled trades, in multiples of the instrument's `sizeUnit`; deterministic per bucket.
        public var volume: Decimal
        /// Number of sampled trades.
        public var trades: Int
        /// Volume-weighted average of the sampled trade prices.
        public var vwap: Decimal
    }

    /// The instrument the bars are of; its tick size and spread set the bars' bids and asks.
    public let instrument: MarketInstrument
    let path: PricePath
    let bucketSeconds: Int64
    let liveQuote: MarketQuote?
    /// The moment the bars are sampled at: no bar opens after it, and the bar containing it is the bar in progress.
    public let now: Date

    /// Samples `instrument` on `market`'s price path (its seed and bucket width) as of `now`, taking the live quote
    /// (pins included) at `now` for the bar in progress.
    public init(instrument: MarketInstrument, market: MarketEngine, now: Date) {
        self.instrument = instrument
        self.path = PricePath(instrument: instrument, seed: market.configuration.seed)
        self.bucketSeconds = Int64(market.configuration.bucketSeconds)
        self.liveQuote = market.quote(symbol: instrument.symbol, at: now)
        self.now = now
    }

    /// Seconds since 1970 of `now`, rounded down.
    public var nowSeconds: Int64 { Timestamp.unixSeconds(now) }

    /// The bar over `[start, end)` (unix seconds); `nil` when it opens after now. A bar that contains now is the bar in
    /// progress: it ends at now and closes at the live quote.
    public func bar(start: Int64, end: Int64) -> Bar? {
        guard start <= nowSeconds, end > start else { return nil }
        let isCurrent = end > nowSeconds
        let firstBucket = Timestamp.floorDiv(start, bucketSeconds)
        let nowBucket = Timestamp.floorDiv(nowSeconds, bucketSeconds)
        let lastBucket = max(firstBucket, min(Timestamp.floorDiv(end, bucketSeconds) - 1, nowBucket))
        let span = lastBucket - firstBucket
        let step = max(1, span / 59)
        var mids: [Decimal] = []
        var volume: Decimal = 0
        var notional: Decimal = 0
        var bucket = firstBucket
        while bucket <= lastBucket {
            let mid = path.price(bucket: bucket)
            let size = Decimal(path.sizeFactor(bucket: bucket, salt: 3, range: 5)) * instrument.sizeUnit
            mids.append(mid)
            volume += size
            notional += size * mid
            bucket += step
        }
        if lastBucket > firstBucket, span % step != 0 { mids.append(path.price(bucket: lastBucket)) }
        var closeMid = mids[mids.count - 1]
        if isCurrent, let live = liveQuote {
            closeMid = live.last
            mids.append(closeMid)
        }
        let open = mids[0]
        let high = mids.max() ?? open
        let low = mids.min() ?? open
        let (openBid, openAsk) = sides(open)
        let (highBid, highAsk) = sides(high)
        let (lowBid, lowAsk) = sides(low)
        var (closeBid, closeAsk) = sides(closeMid)
        if isCurrent, let live = liveQuote {
            closeBid = live.bid
            closeAsk = live.ask
        }
        let vwap = volume.isZero ? closeMid : DecimalText.round(notional / volume, scale: 6)
        return Bar(
            time: Date(timeIntervalSince1970: Double(start)),
            openBid: openBid,
            openAsk: openAsk,
            highBid: max(highBid, closeBid),
            highAsk: max(highAsk, closeAsk),
            lowBid: min(lowBid, closeBid),
            lowAsk: min(lowAsk, closeAsk),
            closeBid: closeBid,
            closeAsk: closeAsk,
            open: open,
            high: max(high, closeMid),
            low: min(low, closeMid),
            close: closeMid,
            volume: volume,
            trades: Int(span / step) + 1,
            vwap: vwap
        )
    }

    /// Bid and ask around a mid, as ``MarketEngine`` quotes them.
    private func sides(_ mid: Decimal) -> (Decimal, Decimal) {
        let tick = instrument.tickSize
        let half = max(1, DecimalText.round(mid * instrument.spread / 2 / tick, scale: 0, .plain))
        return (max(mid - half * tick, tick), mid + half * tick)
    }
}
