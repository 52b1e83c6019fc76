import Foundation
import GatewayCore
import GatewayModel

extension AlpacaAdapter {
    /// Candles from the bars endpoints: `/v2/stocks/bars` for equities, `/v1beta3/crypto/us/bars` for crypto, one
    /// call asking for the latest `count` bars (`sort=desc`, `limit=count`), returned oldest first.
    ///
    /// Alpaca's `start` defaults to the start of the current day, so the call names one far enough back for `count`
    /// bars: crypto trades around the clock; stocks trade about a third of the day and five days a week, so their
    /// look-back is four times as long plus a long weekend.
    func marketCandles(_ reference: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        guard (1...Self.maximumCandles).contains(count) else {
            throw GatewayError.unprocessable([FieldProblem(field: "count", problem: "must be 1 to \(Self.maximumCandles)")])
                .with(broker: .alpaca)
        }
        let assetClass = reference.impliedAssetClass
        let isCrypto: Bool
        switch assetClass {
        case .equity, .etf: isCrypto = false
        case .crypto: isCrypto = true
        default:
            throw GatewayError.unprocessable([
                FieldProblem(field: "instrument", problem: "Alpaca has bars for equities and crypto only")
            ]).with(broker: .alpaca)
        }
        let symbol = reference.alpacaSymbol
        let width = TimeInterval(interval.minutes * 60)
        let lookBack = isCrypto ? width * Double(count + 1) : width * Double(count + 1) * 4 + 4 * 86_400
        let start = configuration.now().addingTimeInterval(-lookBack)
        let timeframe = interval.alpacaTimeframe
        let endpoint: Endpoint =
            isCrypto
            ? .cryptoBars(symbol: symbol, timeframe: timeframe, start: start, limit: count)
            : .stockBars(symbol: symbol, timeframe: timeframe, start: start, limit: count, feed: configuration.feed)
        let answer = try await fetch(AlpacaBars.self, endpoint)
        let candles = (answer.bars[symbol] ?? []).map(Candle.init(alpaca:)).sorted { $0.time < $1.time }.suffix(count)
        let instrument = Instrument(
            alpacaSymbol: symbol,
            assetClass: isCrypto ? "crypto" : "us_equity",
            assetId: nil,
            exchange: nil,
            name: nil
        )
        return CandleSeries(instrument: instrument, connectionId: connectionId, interval: interval, candles: Array(candles))
    }

    /// The gateway's bound on `count` (`/v1/candles`), well under Alpaca's page of 10,000 bars.
    static let maximumCandles = 1200
}

extension CandleInterval {
    /// Alpaca's `timeframe`: `[1-59]Min`, `[1-23]Hour`, `1Day`, `1Week`.
    var alpacaTimeframe: String {
        switch self {
        case .oneMinute: "1Min"
        case .fiveMinutes: "5Min"
        case .fifteenMinutes: "15Min"
        case .thirtyMinutes: "30Min"
        case .oneHour: "1Hour"
        case .fourHours: "4Hour"
        case .oneDay: "1Day"
        case .oneWeek: "1Week"
        }
    }
}

extension Candle {
    /*
     {"t": "2022-03-09T05:00:00Z", "o": 161.51, "h": 163.41, "l": 159.41, "c": 162.95, "v": 88496480, "n": 700291,
      "vw": 161.942117}
     */
    init(alpaca bar: AlpacaBar) {
        self.init(time: bar.time, open: bar.open, high: bar.high, low: bar.low, close: bar.close, volume: bar.volume)
    }
}
