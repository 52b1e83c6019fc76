import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import OpenAPIRuntime

/// The fan-out reads: `{data, sources, partial}` with a status line per connection.
extension APIHandlers {
    func listBrokers(_ input: Operations.ListBrokers.Input) async throws -> Operations.ListBrokers.Output {
        _ = try RequestIdentity.requireTenant()
        return .ok(.init(body: .json(.init(data: reads.brokers()))))
    }

    func listClients(_ input: Operations.ListClients.Input) async throws -> Operations.ListClients.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let r = try await reads.clients(
            owner: owner,
            try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account, maxAgeMs: q.maxAgeMs)
        )
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
    }

    func listAccounts(_ input: Operations.ListAccounts.Input) async throws -> Operations.ListAccounts.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let r = try await reads.accounts(
            owner: owner,
            try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account, maxAgeMs: q.maxAgeMs)
        )
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
    }

    func listBalances(_ input: Operations.ListBalances.Input) async throws -> Operations.ListBalances.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let r = try await reads.balances(
            owner: owner,
            try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account, maxAgeMs: q.maxAgeMs)
        )
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
    }

    func listPositions(_ input: Operations.ListPositions.Input) async throws -> Operations.ListPositions.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let r = try await reads.positions(
            owner: owner,
            try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account, maxAgeMs: q.maxAgeMs)
        )
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
    }

    func listQuotes(_ input: Operations.ListQuotes.Input) async throws -> Operations.ListQuotes.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let selection = try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account, maxAgeMs: q.maxAgeMs)
        guard let symbols = try QueryValue.symbols(q.symbols, "symbols") else {
            throw GatewayError.invalid("symbols", "is required (comma-separated, e.g. AAPL,EUR/USD)")
        }
        let (r, notFound) = try await reads.quotes(owner: owner, selection, symbols: symbols, assetClass: q.assetClass)
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial, notFound: notFound))))
    }

    func listCandles(_ input: Operations.ListCandles.Input) async throws -> Operations.ListCandles.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let selection = try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account, maxAgeMs: q.maxAgeMs)
        guard let symbol = try QueryValue.symbols(q.symbol, "symbol", maxCount: 1)?.first else {
            throw GatewayError.invalid("symbol", "is required (one canonical symbol, e.g. EUR/USD)")
        }
        let count = try QueryValue.int(q.count, "count", range: 1...1200) ?? 100
        let r = try await reads.candles(
            owner: owner,
            selection,
            instrument: InstrumentReference(symbol: symbol, assetClass: q.assetClass),
            interval: q.interval ?? .oneHour,
            count: count
        )
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
    }

    func getOrderBook(_ input: Operations.GetOrderBook.Input) async throws -> Operations.GetOrderBook.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let selection = try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account, maxAgeMs: q.maxAgeMs)
        guard let symbol = try QueryValue.symbols(q.symbol, "symbol", maxCount: 1)?.first else {
            throw GatewayError.invalid("symbol", "is required (one canonical symbol, e.g. BTC/USD)")
        }
        let depth = try QueryValue.int(q.depth, "depth", range: 1...OrderBook.maximumDepth) ?? 20
        let r = try await reads.orderBook(
            owner: owner,
            selection,
            instrument: InstrumentReference(symbol: symbol, assetClass: q.assetClass),
            depth: depth
        )
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
    }

    func searchInstruments(_ input: Operations.SearchInstruments.Input) async throws -> Operations.SearchInstruments.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let selection = try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account, maxAgeMs: q.maxAgeMs)
        guard let text = try QueryValue.string(q.q, "q", maxLength: 64) else {
            throw GatewayError.invalid("q", "is required (a symbol or part of a name)")
        }
        let r = try await reads.instruments(owner: owner, selection, matching: text, assetClass: q.assetClass)
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
    }
}
