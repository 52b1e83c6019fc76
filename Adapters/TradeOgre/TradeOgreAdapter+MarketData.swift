import Foundation
import GatewayCore
public import GatewayModel

extension TradeOgreAdapter {
    /// One call whatever the number of instruments: `GET /ticker/{market}` for one market, `GET /markets` (every
    /// market's ticker in one answer, the same fields) for more, answered in the order asked. A market the venue does
    /// not list (`Market not found`, or absent from `/markets`) is left out, as other adapters leave out instruments
    /// without data; any other failure fails the call.
    public func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote] {
        var markets: [MarketName] = []
        for (index, reference) in instruments.enumerated() {
            let market = try market(of: reference, field: "instruments[\(index)]")
            if !markets.contains(market) { markets.append(market) }
        }
        if markets.count == 1 { return try await quote(markets[0]).map { [$0] } ?? [] }
        guard !markets.isEmpty else { return [] }
        let listed = try await fetch(TradeOgreMarkets.self, .markets())
        var tickers: [MarketName: TradeOgreTicker] = [:]
        for entry in listed.entries {
            if let market = MarketName(wire: entry.name, naming: naming) { tickers[market] = entry.ticker }
        }
        return markets.compactMap { market in
            tickers[market].map {
                Quote(tradeOgre: $0, instrument: Instrument(tradeOgre: market, naming: naming), connectionId: connectionId)
            }
        }
    }

    func quote(_ market: MarketName) async throws -> Quote? {
        do {
            let ticker = try await fetch(TradeOgreTicker.self, .ticker(market: market.wire(naming)))
            return Quote(tradeOgre: ticker, instrument: Instrument(tradeOgre: market, naming: naming), connectionId: connectionId)
        } catch let error as GatewayError where error.brokerCode == "Market not found" {
            return nil
        }
    }

    /// Markets from `GET /markets` whose pair or base name contains the text: an exact base currency first, then pairs
    /// that start with it, then the rest, each group alphabetical.
    public func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument] {
        let needle = text.trimmingCharacters(in: .whitespaces).uppercased()
        guard !needle.isEmpty else {
            throw GatewayError.unprocessable([FieldProblem(field: "text", problem: "must not be empty")]).with(broker: .tradeogre)
        }
        if let assetClass, assetClass != .crypto { return [] }
        let markets = try await fetch(TradeOgreMarkets.self, .markets())
        var ranked: [(rank: Int, instrument: Instrument)] = []
        for entry in markets.entries {
            guard let market = MarketName(wire: entry.name, naming: naming) else { continue }
            let name = entry.ticker.baseName?.uppercased() ?? ""
            let rank: Int
            if market.base == needle || market.symbol == needle || entry.name.uppercased() == needle {
                rank = 0
            } else if market.symbol.hasPrefix(needle) || name.hasPrefix(needle) {
                rank = 1
            } else if market.symbol.contains(needle) || name.contains(needle) || entry.name.uppercased().contains(needle) {
                rank = 2
            } else {
                continue
            }
            ranked.append((rank, Instrument(tradeOgre: market, naming: naming, name: entry.ticker.baseName)))
        }
        return ranked.sorted { ($0.rank, $0.instrument.symbol) < ($1.rank, $1.instrument.symbol) }
            .prefix(configuration.searchLimit).map(\.instrument)
    }

    /// `GET /orders/{market}`: the whole book, cut here to `depth` levels a side. TradeOgre's answer has no time.
    public func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook {
        let market = try market(of: instrument, field: "symbol")
        let book = try await fetch(TradeOgreBook.self, .orderBook(market: market.wire(naming)))
        return OrderBook(
            instrument: Instrument(tradeOgre: market, naming: naming),
            connectionId: connectionId,
            broker: .tradeogre,
            bids: book.buy,
            asks: book.sell
        ).normalized(depth: depth)
    }

    /// `GET /chart/{interval}/{market}`: TradeOgre draws 1m, 15m, 1h, 4h, 1d and 1w candles; the latest `count`
    /// (1 to 1000) are returned, oldest first.
    public func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        let market = try market(of: instrument, field: "symbol")
        let wireInterval: String
        switch interval {
        case .oneMinute, .fifteenMinutes, .oneHour, .fourHours, .oneDay, .oneWeek: wireInterval = interval.rawValue
        case .fiveMinutes, .thirtyMinutes:
            throw GatewayError.unprocessable([
                FieldProblem(field: "interval", problem: "TradeOgre draws 1m, 15m, 1h, 4h, 1d and 1w candles")
            ]).with(broker: .tradeogre)
        }
        guard (1...1000).contains(count) else {
            throw GatewayError.unprocessable([FieldProblem(field: "count", problem: "must be 1 to 1000")]).with(broker: .tradeogre)
        }
        let rows = try await fetch([TradeOgreCandle].self, .chart(interval: wireInterval, market: market.wire(naming)))
        let candles = rows.sorted { $0.time < $1.time }.suffix(count).map {
            Candle(time: $0.time, open: $0.open, high: $0.high, low: $0.low, close: $0.close, volume: $0.volume)
        }
        return CandleSeries(
            instrument: Instrument(tradeOgre: market, naming: naming),
            connectionId: connectionId,
            interval: interval,
            candles: Array(candles)
        )
    }
}
