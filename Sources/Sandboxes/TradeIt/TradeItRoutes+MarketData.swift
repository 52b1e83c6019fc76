import Foundation
import SandboxKit

/// `brokermarketdata/getCryptoQuote`, `marketdata/getQuote` and `marketdata/getQuotes`.
extension TradeItRoutes {
    func cryptoQuote(_ body: TradeItFields) throws -> JSON {
        let token = body.string("token")
        guard let pair = body.string("pair"), !pair.isEmpty else { throw TradeItAPIError.parameter("pair is required.") }
        // Only to check the session and the account: quotes are the market's, not the account's.
        _ = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { _ in 0 }
        guard let instrument = market.instrument(symbol: pair.uppercased()), instrument.assetClass == .crypto,
            let quote = market.quote(symbol: instrument.symbol)
        else {
            throw TradeItAPIError.execution("The pair \(pair) was not found.")
        }
        return TradeItWire.cryptoQuote(quote, token: token)
    }
}

/// Equity quotes: TradeIt's own market data, keyed by the app's `apiKey` alone (no session; the iOS SDK's
/// `TradeItQuotesRequest` carries `symbol` or comma-separated `symbols` and `apiKey`), answered as `TradeItQuoteResult`
/// (one, its fields at the top level) or `TradeItQuotesResult` (`quotes`, a list of them).
extension TradeItRoutes {
    /// The listed equities and ETFs among the requested symbols, in order, each once.
    func equityQuotes(_ symbols: [String]) -> [(MarketInstrument, MarketQuote)] {
        var seen: Set<String> = []
        return symbols.compactMap { requested in
            guard let instrument = market.instrument(symbol: requested.uppercased()),
                instrument.assetClass == .equity,
                seen.insert(instrument.symbol).inserted,
                let quote = market.quote(symbol: instrument.symbol)
            else { return nil }
            return (instrument, quote)
        }
    }

    func quote(_ body: TradeItFields) throws -> JSON {
        _ = try sandbox.checkAPIKey(body.string("apiKey"))
        guard let symbol = body.string("symbol")?.trimmingCharacters(in: .whitespaces), !symbol.isEmpty else {
            throw TradeItAPIError.parameter("symbol is required.")
        }
        guard let (instrument, quote) = equityQuotes([symbol]).first else {
            throw TradeItAPIError.execution("The symbol \(symbol) was not found.")
        }
        return TradeItWire.success(TradeItWire.equityQuote(quote, instrument: instrument), message: "Quote successfully fetched")
    }

    func quotes(_ body: TradeItFields) throws -> JSON {
        _ = try sandbox.checkAPIKey(body.string("apiKey"))
        let symbols = (body.string("symbols") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard !symbols.isEmpty else { throw TradeItAPIError.parameter("symbols is required.") }
        guard symbols.count <= 100 else { throw TradeItAPIError.parameter("At most 100 symbols may be quoted at once.") }
        let quotes = equityQuotes(symbols).map { JSON.object(TradeItWire.equityQuote($1, instrument: $0)) }
        return TradeItWire.success([.init(key: "quotes", value: .array(quotes))], message: "Quotes successfully fetched")
    }
}
