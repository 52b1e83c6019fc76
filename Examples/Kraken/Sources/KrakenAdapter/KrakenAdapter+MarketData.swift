import Foundation
import GatewayCore
public import GatewayModel

extension KrakenAdapter {
    /// One `Ticker` call for every instrument asked (`pair=ID1,ID2`), answered in the order asked. A pair Kraken does
    /// not list is left out, as other adapters leave out instruments without data; a symbol that is not `BASE/QUOTE` is
    /// unprocessable.
    public func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote] {
        guard !instruments.isEmpty else { return [] }
        let markets = try await markets()
        var wanted: [(id: String, pair: KrakenPair)] = []
        for (index, reference) in instruments.enumerated() {
            if let assetClass = reference.assetClass, assetClass != .crypto { continue }
            guard reference.symbol.split(separator: "/").count == 2 else {
                throw Self.problem("instruments[\(index)]", "must be a crypto pair written BASE/QUOTE, such as BTC/USD")
            }
            if let found = markets.pair(symbol: reference.symbol), !wanted.contains(where: { $0.id == found.id }) {
                wanted.append(found)
            }
        }
        guard !wanted.isEmpty else { return [] }
        let tickers = try await fetch(
            [String: KrakenTicker].self,
            publicCall("Ticker", query: [("pair", wanted.map(\.id).joined(separator: ","))])
        )
        return wanted.compactMap { entry in
            tickers[entry.id].map {
                Quote(kraken: $0, instrument: markets.instrument(id: entry.id, pair: entry.pair), connectionId: connectionId)
            }
        }
    }

    /// Pairs from `AssetPairs` whose symbol, altname or wsname contains the text: an exact base first, then pairs that
    /// start with it, then the rest, each group alphabetical.
    public func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument] {
        let needle = text.trimmingCharacters(in: .whitespaces).uppercased()
        guard !needle.isEmpty else { throw Self.problem("text", "must not be empty") }
        if let assetClass, assetClass != .crypto { return [] }
        let markets = try await markets()
        var ranked: [(rank: Int, instrument: Instrument)] = []
        for (id, pair) in markets.pairs {
            let instrument = markets.instrument(id: id, pair: pair)
            let base = markets.code(pair.base)
            let names = [instrument.symbol, pair.altname.uppercased(), (pair.wsname ?? "").uppercased(), id.uppercased()]
            let rank: Int
            if base == needle || names.contains(needle) {
                rank = 0
            } else if names.contains(where: { $0.hasPrefix(needle) }) {
                rank = 1
            } else if names.contains(where: { $0.contains(needle) }) {
                rank = 2
            } else {
                continue
            }
            ranked.append((rank, instrument))
        }
        return ranked.sorted { ($0.rank, $0.instrument.symbol) < ($1.rank, $1.instrument.symbol) }
            .prefix(configuration.searchLimit).map(\.instrument)
    }

    /// `Depth pair=<id>&count=<depth>`; levels are `[price, volume, timestamp]`.
    public func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook {
        let markets = try await markets()
        let (id, pair) = try krakenPair(of: instrument, field: "symbol", in: markets)
        let books = try await fetch(
            [String: KrakenDepth].self,
            publicCall("Depth", query: [("pair", id), ("count", String(max(1, min(depth, 500))))])
        )
        guard let book = books[id] ?? pair.wsname.flatMap({ books[$0] }) else {
            throw KrakenErrors.malformed("a Depth answer without the pair asked for")
        }
        func levels(_ rows: [[KrakenText]]) throws -> [OrderBookLevel] {
            try rows.map { row in
                guard row.count >= 2, let price = row[0].decimal, let size = row[1].decimal else {
                    throw KrakenErrors.malformed("a Depth level that is not [price, volume, time]")
                }
                return OrderBookLevel(price: price, size: size)
            }
        }
        return OrderBook(
            instrument: markets.instrument(id: id, pair: pair),
            connectionId: connectionId,
            broker: .kraken,
            bids: try levels(book.bids),
            asks: try levels(book.asks)
        ).normalized(depth: depth)
    }

    /// Refused: Kraken's OHLC is not wired into this adapter.
    public func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        throw GatewayError.notSupported("candles", broker: kind)
    }
}
