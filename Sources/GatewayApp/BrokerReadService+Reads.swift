public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore

/// The fan-out reads: each asks every selected connection at once and answers with what arrived in time.
extension BrokerReadService {
    /// The broker kinds this gateway links, by name: exactly the adapters it was built with (its registry's factories).
    public func brokers() -> [BrokerDescription] {
        registry.kinds.compactMap { registry.factory(for: $0) }.map {
            BrokerDescription(
                kind: $0.kind,
                displayName: $0.displayName,
                capabilities: $0.capabilities,
                credentialKeys: $0.credentialKeys,
                knownBaseURLs: $0.knownBaseURLs
            )
        }
    }

    /// The clients (account holders) each selected connection reports.
    public func clients(owner: Owner, _ selection: Gateway.Selection) async throws -> FanOut<Client> {
        try await fanOut(owner: owner, selection, operation: .clients, sharing: "") { adapter, _ in try await adapter.clients() }
    }

    /// The accounts of each selected connection, only `selection.accountId` when it names one.
    public func accounts(owner: Owner, _ selection: Gateway.Selection) async throws -> FanOut<Account> {
        let account = selection.accountId
        return try await fanOut(owner: owner, selection, operation: .accounts, sharing: account ?? "*") { adapter, _ in
            try await adapter.accounts().filter { account == nil || $0.id == account }
        }
    }

    /// Each selected account's balances per currency, as its broker reports them.
    public func balances(owner: Owner, _ selection: Gateway.Selection) async throws -> FanOut<Balance> {
        let account = selection.accountId
        return try await fanOut(owner: owner, selection, operation: .balances, sharing: account ?? "*") { adapter, _ in
            try await adapter.balances(accountId: account).filter { account == nil || $0.accountId == account }
        }
    }

    /// Each selected account's net positions, as its broker reports them.
    public func positions(owner: Owner, _ selection: Gateway.Selection) async throws -> FanOut<Position> {
        let account = selection.accountId
        return try await fanOut(owner: owner, selection, operation: .positions, sharing: account ?? "*") { adapter, _ in
            try await adapter.positions(accountId: account).filter { account == nil || $0.accountId == account }
        }
    }

    /// Quotes of the symbols from every selected connection that has them, and the symbols none of the connections
    /// that answered quotes (`notFound`, in the order asked). In a partial answer a symbol there may still be at a
    /// broker that did not answer; the sources say which.
    public func quotes(
        owner: Owner,
        _ selection: Gateway.Selection,
        symbols: [String],
        assetClass: AssetClass?
    ) async throws
        -> (fanOut: FanOut<Quote>, notFound: [String])
    {
        let references = symbols.map { InstrumentReference(symbol: $0, assetClass: assetClass) }
        let key = "\(assetClass?.rawValue ?? "*")|\(symbols.joined(separator: ","))"
        let read = try await fanOut(owner: owner, selection, operation: .quotes, sharing: key) { adapter, connection in
            try await Self.quotes(adapter, references).map { quote in
                var quote = quote
                quote.connectionId = connection.id
                return quote
            }
        }
        return (read, Self.unquoted(symbols, by: read.data))
    }

    /// A symbol as quotes name it: upper case, without separators or an exchange suffix (`btc-usd`, `BTCUSD` and
    /// `BTC/USD` are one pair; `AAPL:xnas` is `AAPL`).
    static func symbolKey(_ symbol: String) -> String {
        let base = symbol.split(separator: ":", maxSplits: 1).first.map(String.init) ?? symbol
        return String(base.uppercased().unicodeScalars.filter { !["/", "-", "_", "."].contains($0) })
    }

    /// The symbols asked for that no quote answers, each once, in the order asked. A symbol matches a quote's
    /// instrument whatever its case and separators (`btc-usd`, `BTCUSD` and `BTC/USD` are one pair), and a listed
    /// symbol's exchange suffix (`AAPL:xnas`) names the exchange, not the symbol.
    static func unquoted(_ symbols: [String], by quotes: [Quote]) -> [String] {
        let quoted = Set(quotes.map { symbolKey($0.instrument.symbol) })
        var seen: Set<String> = []
        return symbols.filter { symbol in
            let key = symbolKey(symbol)
            return !quoted.contains(key) && seen.insert(key).inserted
        }
    }

    /// The last `count` candles of `interval` for one instrument from each selected connection that serves them;
    /// reads asking for the same series share one broker call.
    public func candles(
        owner: Owner,
        _ selection: Gateway.Selection,
        instrument: InstrumentReference,
        interval: CandleInterval,
        count: Int
    ) async throws -> FanOut<CandleSeries> {
        let key = "\(instrument.assetClass?.rawValue ?? "*")|\(instrument.symbol)|\(interval.rawValue)|\(count)"
        return try await fanOut(owner: owner, selection, operation: .candles, sharing: key) { adapter, connection in
            var series = try await adapter.candles(instrument, interval: interval, count: count)
            series.connectionId = connection.id
            return [series]
        }
    }

    /// Each broker's book of one instrument, `depth` levels a side. As with quotes, a broker that has no book of the
    /// instrument (it does not trade its asset class, does not list the pair, or keeps books of crypto only) answers
    /// none: that is not its failure, so a read across brokers is not partial for it. An empty list means no selected
    /// broker has a book of the symbol.
    public func orderBook(
        owner: Owner,
        _ selection: Gateway.Selection,
        instrument: InstrumentReference,
        depth: Int
    ) async throws
        -> FanOut<OrderBook>
    {
        let key = "\(instrument.assetClass?.rawValue ?? "*")|\(instrument.symbol)|\(depth)"
        return try await fanOut(owner: owner, selection, operation: .orderBook, sharing: key) { adapter, connection in
            guard adapter.capabilities.assetClasses.contains(instrument.impliedAssetClass) else { return [] }
            var book: OrderBook
            do {
                book = try await adapter.orderBook(instrument, depth: depth)
            } catch let error as GatewayError where [.notFound, .notSupported, .unprocessable].contains(error.code) {
                return []
            }
            book.connectionId = connection.id
            book.broker = connection.broker
            return [book]
        }
    }

    /// Instruments whose symbol or name matches `text` at each selected connection, optionally of one asset class.
    public func instruments(
        owner: Owner,
        _ selection: Gateway.Selection,
        matching text: String,
        assetClass: AssetClass?
    ) async throws -> FanOut<Instrument> {
        try await fanOut(owner: owner, selection, operation: .searchInstruments, sharing: "\(assetClass?.rawValue ?? "*")|\(text)") { adapter, _ in
            try await adapter.searchInstruments(text, assetClass: assetClass)
        }
    }

    // MARK: Quotes

    /// Quotes for the symbols this broker has: a multi-broker quote read asks every broker for every symbol, and a
    /// symbol one broker does not quote (another asset class, a pair it does not list) is not that broker's failure.
    ///
    /// When the broker refuses the whole batch because of some symbols, and says which (`instruments[i]` details),
    /// the batch is asked once more without them. When it does not say, each symbol is asked alone, within the
    /// request's call budget (`CallBudget`): once it is spent, the symbols not yet asked are left unquoted, so a
    /// request naming many unknown symbols costs a bounded number of calls.
    static func quotes(_ adapter: any BrokerAdapter, _ references: [InstrumentReference]) async throws -> [Quote] {
        let tradable = references.filter { adapter.capabilities.assetClasses.contains($0.impliedAssetClass) }
        func notQuotedHere(_ error: GatewayError) -> Bool {
            [.notSupported, .unprocessable, .notFound].contains(error.code)
        }
        do {
            return tradable.isEmpty ? [] : try await adapter.quotes(tradable)
        } catch let error as GatewayError where notQuotedHere(error) && tradable.count > 1 {
            let named = Set(error.details.compactMap { Self.instrumentIndex($0.field) })
            if !named.isEmpty, named.allSatisfy({ $0 < tradable.count }) {
                let rest = tradable.indices.filter { !named.contains($0) }.map { tradable[$0] }
                guard !rest.isEmpty else { return [] }
                do {
                    return try await adapter.quotes(rest)
                } catch let error as GatewayError where notQuotedHere(error) {
                    return []
                }
            }
            var quotes: [Quote] = []
            for reference in tradable {
                if CallBudget.current?.isSpent == true { break }
                do {
                    quotes += try await adapter.quotes([reference])
                } catch let error as GatewayError where notQuotedHere(error) {
                    continue
                } catch  where CallBudget.isExhaustion(error) {
                    break
                }
            }
            return quotes
        } catch let error as GatewayError where notQuotedHere(error) {
            return []
        }
    }

    /// `3` for a problem's field `instruments[3]`.
    static func instrumentIndex(_ field: String) -> Int? {
        guard field.hasPrefix("instruments["), field.hasSuffix("]") else { return nil }
        return Int(field.dropFirst("instruments[".count).dropLast())
    }
}
