import Foundation
import SandboxKit

/// OHLC bars for `chart/v1/charts` and `chart/v3/charts`: Saxo's horizons and modes over the shared market's bars
/// (``MarketBars``, which Alpaca's bars use too).
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

    typealias Bar = MarketBars.Bar

    let sampler: MarketBars
    let now: Date

    init(instrument: MarketInstrument, market: MarketEngine, now: Date) {
        self.sampler = MarketBars(instrument: instrument, market: market, now: now)
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
        return starts.compactMap { sampler.bar(start: $0, end: $0 + width) }
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
        func mid(_ bid: Decimal, _ ask: Decimal) -> JSON {
            price(DecimalText.round((bid + ask) / 2, toMultipleOf: instrument.market.tickSize), instrument)
        }
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
