public import Foundation
public import GatewayCore
public import GatewayModel

/// A portfolio read: the portfolio, one status line per connection, and whether anything is missing from it.
public struct PortfolioRead: Sendable {
    /// The valued portfolio.
    public var portfolio: Portfolio
    /// One status line per connection read.
    public var sources: [SourceReport]
    /// True when a connection failed or an amount could not be converted or valued (then it is named in
    /// `portfolio.unconverted`): the totals are then not the whole.
    public var partial: Bool
}

extension PortfolioService {
    /// The user's cash and positions at every selected connection, valued in `currency`.
    ///
    /// Balances and positions are read at once (two fan-outs); then the quotes that convert the currencies found are
    /// read from every connection of the user (whatever the selection: a rate may come from a broker that holds
    /// nothing), and `PortfolioValuation` adds it all up. A connection that failed is named in `sources`; an amount
    /// that cannot be converted is named in `unconverted`; either makes the read `partial`.
    public func portfolio(owner: Owner, _ selection: Gateway.Selection, currency: String) async throws -> PortfolioRead {
        let target = try Self.currencyCode(currency)
        async let balancesRead = reads.balances(owner: owner, selection)
        async let positionsRead = reads.positions(owner: owner, selection)
        let (balances, positions) = try await (balancesRead, positionsRead)

        var brokers: [String: BrokerKind] = [:]
        for source in balances.sources + positions.sources { brokers[source.connection] = source.broker }
        func broker(_ connectionId: String) -> BrokerKind? { brokers[connectionId] }
        let balanceLines = balances.data.compactMap { balance in broker(balance.connectionId).map { (balance, $0) } }
        let positionLines = positions.data.compactMap { position in broker(position.connectionId).map { (position, $0) } }

        var currencies = Set(balanceLines.map { $0.0.currency.uppercased() })
        currencies.formUnion(positionLines.map { $0.0.currency.uppercased() })
        let quotes = try await conversionQuotes(owner: owner, currencies: currencies, to: [target], maxAge: selection.maxAge)
        let portfolio = PortfolioValuation(currency: target, quotes: quotes)
            .portfolio(balances: balanceLines, positions: positionLines)
        let sources = Self.mergedSources(balances.sources, positions.sources)
        let partial = sources.contains { $0.status == .error } || !portfolio.unconverted.isEmpty
        return PortfolioRead(portfolio: portfolio, sources: sources, partial: partial)
    }

    /// The quotes that convert `currencies` into each of `targets` (each pair both ways, and each side against USD:
    /// `PortfolioValuation.candidateSymbols`), from every connection of the user, whatever a read's selection: a rate
    /// may come from a broker that holds nothing. Each with its connection's broker; none when nothing needs
    /// converting. The portfolio and the goals value through these.
    func conversionQuotes(
        owner: Owner,
        currencies: Set<String>,
        to targets: Set<String>,
        maxAge: Duration?
    ) async throws
        -> [PortfolioValuation.PricedQuote]
    {
        var symbols: [String] = []
        for target in targets.sorted() {
            for symbol in PortfolioValuation.candidateSymbols(for: currencies, to: target) where !symbols.contains(symbol) {
                symbols.append(symbol)
            }
        }
        guard !symbols.isEmpty else { return [] }
        let read = try await reads.quotes(owner: owner, Gateway.Selection(maxAge: maxAge), symbols: symbols, assetClass: nil).fanOut
        var brokers: [String: BrokerKind] = [:]
        for source in read.sources { brokers[source.connection] = source.broker }
        return read.data.compactMap { quote in
            quote.connectionId.flatMap { brokers[$0] }.map { PortfolioValuation.PricedQuote(quote, broker: $0) }
        }
    }

    /// One line per connection from two reads of the same connections: the first failure, else the balances' line.
    static func mergedSources(_ first: [SourceReport], _ second: [SourceReport]) -> [SourceReport] {
        var merged: [SourceReport] = []
        var index: [String: Int] = [:]
        for source in first + second {
            if let at = index[source.connection] {
                if merged[at].status == .ok, source.status == .error { merged[at] = source }
            } else {
                index[source.connection] = merged.count
                merged.append(source)
            }
        }
        return merged
    }

    /// A currency code as the portfolio takes it: 2 to 10 letters or digits (`EUR`, `USDT`), upper-cased.
    static func currencyCode(_ text: String) throws -> String {
        let code = text.uppercased()
        guard (2...10).contains(code.count),
            code.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) })
        else {
            throw GatewayError.invalid("currency", "must be a currency code of 2 to 10 letters or digits (EUR, USD, BTC)")
        }
        return code
    }
}
