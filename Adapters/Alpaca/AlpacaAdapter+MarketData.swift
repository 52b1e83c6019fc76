import Foundation
import GatewayCore
import GatewayModel

extension AlpacaAdapter {
    /// Latest quotes and trades for equities (`/v2/stocks/...`) and crypto (`/v1beta3/crypto/us/...`), all four
    /// calls at once. Instruments Alpaca has no data for are left out of the answer.
    func marketQuotes(_ instruments: [InstrumentReference]) async throws -> [Quote] {
        var stocks: [String] = []
        var crypto: [String] = []
        var unsupported: [FieldProblem] = []
        for (index, reference) in instruments.enumerated() {
            switch reference.impliedAssetClass {
            case .equity, .etf:
                if !stocks.contains(reference.alpacaSymbol) { stocks.append(reference.alpacaSymbol) }
            case .crypto:
                if !crypto.contains(reference.alpacaSymbol) { crypto.append(reference.alpacaSymbol) }
            default:
                unsupported.append(
                    FieldProblem(field: "instruments[\(index)]", problem: "Alpaca quotes equities and crypto only")
                )
            }
        }
        guard unsupported.isEmpty else { throw GatewayError.unprocessable(unsupported).with(broker: .alpaca) }

        enum Part: Sendable {
            case stockQuotes([String: AlpacaQuote])
            case stockTrades([String: AlpacaTrade])
            case cryptoQuotes([String: AlpacaQuote])
            case cryptoTrades([String: AlpacaTrade])
        }
        let feed = configuration.feed
        let stockSymbols = stocks
        let cryptoSymbols = crypto
        let parts = try await withThrowingTaskGroup(of: Part.self) { group in
            if !stockSymbols.isEmpty {
                group.addTask { .stockQuotes(try await fetch(AlpacaLatestQuotes.self, .stockQuotes(symbols: stockSymbols, feed: feed)).quotes) }
                group.addTask { .stockTrades(try await fetch(AlpacaLatestTrades.self, .stockTrades(symbols: stockSymbols, feed: feed)).trades) }
            }
            if !cryptoSymbols.isEmpty {
                group.addTask { .cryptoQuotes(try await fetch(AlpacaLatestQuotes.self, .cryptoQuotes(symbols: cryptoSymbols)).quotes) }
                group.addTask { .cryptoTrades(try await fetch(AlpacaLatestTrades.self, .cryptoTrades(symbols: cryptoSymbols)).trades) }
            }
            var parts: [Part] = []
            for try await part in group { parts.append(part) }
            return parts
        }
        var stockQuotes: [String: AlpacaQuote] = [:]
        var stockTrades: [String: AlpacaTrade] = [:]
        var cryptoQuotes: [String: AlpacaQuote] = [:]
        var cryptoTrades: [String: AlpacaTrade] = [:]
        for part in parts {
            switch part {
            case .stockQuotes(let value): stockQuotes = value
            case .stockTrades(let value): stockTrades = value
            case .cryptoQuotes(let value): cryptoQuotes = value
            case .cryptoTrades(let value): cryptoTrades = value
            }
        }

        var seen: Set<String> = []
        var quotes: [Quote] = []
        for reference in instruments {
            let isCrypto = reference.impliedAssetClass == .crypto
            let symbol = reference.alpacaSymbol
            guard seen.insert((isCrypto ? "c:" : "s:") + symbol).inserted else { continue }
            let quote = isCrypto ? cryptoQuotes[symbol] : stockQuotes[symbol]
            let trade = isCrypto ? cryptoTrades[symbol] : stockTrades[symbol]
            guard quote != nil || trade != nil else { continue }
            let instrument = Instrument(
                alpacaSymbol: symbol,
                assetClass: isCrypto ? "crypto" : "us_equity",
                assetId: nil,
                exchange: nil,
                name: nil
            )
            quotes.append(Quote(alpaca: quote, trade: trade, instrument: instrument, connectionId: connectionId))
        }
        return quotes
    }

    /// Quotes for a preview: a market data failure (no data subscription, say) becomes a warning, not a failure.
    func quotesOrWarning(_ instruments: [InstrumentReference]) async throws -> ([Quote], String?) {
        do {
            return (try await marketQuotes(instruments), nil)
        } catch let error as GatewayError where error.code != .unprocessable {
            return ([], "no market data (\(error.code.rawValue)): the price is not estimated")
        }
    }
}
