import Foundation
import SandboxKit

/// OHLC bars for `chart/v1/charts` and `chart/v3/charts`, sampled from the shared market's deterministic price path.
///
/// Each bar samples the path at up to 60 evenly spaced buckets (every bucket for short horizons), so any horizon
/// and count costs about the same. The bar in progress closes at the live quote (price overrides included).
struct SaxoCharts {
    /// Saxo's allowed `Horizon` values, in minutes.
    static let horizons: Set<Int> = [1, 2, 3, 5, 10, 15, 30, 60, 120, 180, 240, 300, 360, 480, 1440, 10080, 43200, 129_600, 518_400]
    static let maximumCount = 1200

    enum Mode {
        /// The `count` bars up to now.
        case latest
        /// The `count` bars starting at or before the time, ending at it (`Mode=UpTo`).
        case upTo(Date)
        /// The `count` bars from the time on (`Mode=From`).
        case from(Date)
    }

    struct Bar {
        var time: Date
        var openBid: Decimal, openAsk: Decimal
        var highBid: Decimal, highAsk: Decimal
        var lowBid: Decimal, lowAsk: Decimal
        var closeBid: Decimal, closeAsk: Decimal
        var volume: Decimal
    }

    let instrument: MarketInstrument
    let path: PricePath
    let bucketSeconds: Int64
    let liveQuote: MarketQuote?
    let now: Date

    init(instrument: MarketInstrument, market: MarketEngine, now: Date) {
        self.instrument = instrument
        self.path = PricePath(instrument: instrument, seed: market.configuration.seed)
        self.bucketSeconds = Int64(market.configuration.bucketSeconds)
        self.liveQuote = market.quote(symbol: instrument.symbol, at: now)
        self.now = now
    }

    func bars(horizon: Int, count: Int, mode: Mode) -> [Bar] {
        let width = Int64(horizon) * 60
        let nowSeconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let currentStart = Timestamp.floorDiv(nowSeconds, width) * width
        var starts: [Int64] = []
        switch mode {
        case .latest:
            let first = currentStart - Int64(count - 1) * width
            starts = Array(stride(from: first, through: currentStart, by: Int(width)))
        case .upTo(let date):
            let last = min(currentStart, Timestamp.floorDiv(Int64(date.timeIntervalSince1970.rounded(.down)), width) * width)
            let first = last - Int64(count - 1) * width
            starts = Array(stride(from: first, through: last, by: Int(width)))
        case .from(let date):
            let seconds = Int64(date.timeIntervalSince1970.rounded(.up))
            let first = Timestamp.floorDiv(seconds + width - 1, width) * width
            guard first <= currentStart else { return [] }
            let last = min(currentStart, first + Int64(count - 1) * width)
            starts = Array(stride(from: first, through: last, by: Int(width)))
        }
        return starts.map { bar(start: $0, width: width, isCurrent: $0 == currentStart) }
    }

    private func bar(start: Int64, width: Int64, isCurrent: Bool) -> Bar {
        let firstBucket = Timestamp.floorDiv(start, bucketSeconds)
        let nowBucket = Timestamp.floorDiv(Int64(now.timeIntervalSince1970.rounded(.down)), bucketSeconds)
        let lastBucket = min(Timestamp.floorDiv(start + width, bucketSeconds) - 1, nowBucket)
        let span = max(0, lastBucket - firstBucket)
        let step = max(1, span / 59)
        var mids: [Decimal] = []
        var volume: Decimal = 0
        var bucket = firstBucket
        while bucket <= lastBucket {
            mids.append(path.price(bucket: bucket))
            volume += Decimal(path.sizeFactor(bucket: bucket, salt: 3, range: 5)) * instrument.sizeUnit
            bucket += step
        }
        if mids.isEmpty { mids.append(path.price(bucket: firstBucket)) }
        if lastBucket > firstBucket, (lastBucket - firstBucket) % step != 0 { mids.append(path.price(bucket: lastBucket)) }
        var closeMid = mids.last!
        if isCurrent, let live = liveQuote {
            closeMid = live.mid
            mids.append(closeMid)
        }
        let open = mids.first!
        let high = mids.max()!
        let low = mids.min()!
        let (openBid, openAsk) = sides(open)
        let (highBid, highAsk) = sides(high)
        let (lowBid, lowAsk) = sides(low)
        var (closeBid, closeAsk) = sides(closeMid)
        if isCurrent, let live = liveQuote {
            closeBid = live.bid
            closeAsk = live.ask
        }
        return Bar(
            time: Date(timeIntervalSince1970: Double(start)), openBid: openBid, openAsk: openAsk, highBid: max(highBid, closeBid),
            highAsk: max(highAsk, closeAsk), lowBid: min(lowBid, closeBid), lowAsk: min(lowAsk, closeAsk), closeBid: closeBid,
            closeAsk: closeAsk, volume: volume)
    }

    /// Bid and ask around a mid, as ``MarketEngine`` quotes them.
    private func sides(_ mid: Decimal) -> (Decimal, Decimal) {
        let tick = instrument.tickSize
        let half = max(1, DecimalText.round(mid * instrument.spread / 2 / tick, scale: 0, .plain))
        return (max(mid - half * tick, tick), mid + half * tick)
    }
}

extension SaxoWire {
    /// An FX bar: `{"CloseAsk":1.6321,"CloseBid":1.6302,"HighAsk":...,"OpenBid":1.6306,"Time":"2019-09-05T21:00:00.000000Z"}`;
    /// an exchange-traded bar: `{"Close":...,"High":...,"Interest":0,"Low":...,"Open":...,"Time":...,"Volume":...}`.
    static func chartBar(_ bar: SaxoCharts.Bar, instrument: SaxoInstrument) -> JSON {
        if instrument.isFX {
            return object([
                ("CloseAsk", price(bar.closeAsk, instrument)),
                ("CloseBid", price(bar.closeBid, instrument)),
                ("HighAsk", price(bar.highAsk, instrument)),
                ("HighBid", price(bar.highBid, instrument)),
                ("LowAsk", price(bar.lowAsk, instrument)),
                ("LowBid", price(bar.lowBid, instrument)),
                ("OpenAsk", price(bar.openAsk, instrument)),
                ("OpenBid", price(bar.openBid, instrument)),
                ("Time", time(bar.time)),
            ])
        }
        func mid(_ bid: Decimal, _ ask: Decimal) -> JSON { price(DecimalText.round((bid + ask) / 2, toMultipleOf: instrument.market.tickSize), instrument) }
        return object([
            ("Close", mid(bar.closeBid, bar.closeAsk)),
            ("High", mid(bar.highBid, bar.highAsk)),
            ("Interest", 0),
            ("Low", mid(bar.lowBid, bar.lowAsk)),
            ("Open", mid(bar.openBid, bar.openAsk)),
            ("Time", time(bar.time)),
            ("Volume", number(bar.volume)),
        ])
    }
}
