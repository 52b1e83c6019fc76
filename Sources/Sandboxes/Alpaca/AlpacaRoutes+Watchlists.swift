import Foundation
import Hummingbird
import SandboxKit

/// `/v2/watchlists` and `/v2/watchlists:by_name`.
extension AlpacaRoutes {
    // MARK: Watchlists

    enum WatchlistKey {
        case id(String?)
        case name(String?)

        static func id(_ context: SandboxRequestContext) -> WatchlistKey { .id(context.pathParameter("id")) }
        static func name(_ request: Request) -> WatchlistKey { .name(request.queryParameters["name"]) }
    }

    func find(_ key: WatchlistKey, in book: AlpacaAccountBook) throws(AlpacaAPIError) -> AlpacaWatchlist {
        switch key {
        case .id(let text):
            guard let text, let id = UUID(uuidString: text), let watchlist = book.watchlist(id) else {
                throw .notFound("watchlist not found")
            }
            return watchlist
        case .name(let name):
            guard let name, !name.isEmpty else { throw .invalid("name is required") }
            guard let watchlist = book.watchlist(named: name) else { throw .notFound("watchlist not found") }
            return watchlist
        }
    }

    func resolveSymbols(_ symbols: [String]) throws(AlpacaAPIError) -> [String] {
        var result: [String] = []
        for symbol in symbols {
            guard let instrument = sandbox.assets.resolve(symbol) else { throw .invalid("asset not found: \(symbol)") }
            if !result.contains(instrument.symbol) { result.append(instrument.symbol) }
        }
        return result
    }

    static func validateName(_ name: String) throws(AlpacaAPIError) {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw .invalid("name is required") }
        guard name.count <= 64 else { throw .invalid("name must be no more than 64 characters") }
    }

    func watchlists(_ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        return .json(
            try sandbox.withBook(id) { book, _ in .array(book.watchlists.map { AlpacaWire.watchlist($0, accountID: book.id, assets: nil) }) }
        )
    }

    func watchlist(_ key: WatchlistKey, _ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        return .json(
            try sandbox.withBook(id) { book, _ in
                AlpacaWire.watchlist(try find(key, in: book), accountID: book.id, assets: sandbox.assets)
            }
        )
    }

    func createWatchlist(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let id = try accountID(context)
        let fields = try AlpacaFields(try await body(request, context))
        guard let name = try fields.string("name") else { throw AlpacaAPIError.invalid("name is required") }
        try Self.validateName(name)
        let symbols = try resolveSymbols(try fields.strings("symbols") ?? [])
        return .json(
            try sandbox.withBook(id) { book, env in
                guard book.watchlist(named: name) == nil else { throw AlpacaAPIError.invalid("watchlist name must be unique") }
                let watchlist = AlpacaWatchlist(id: UUID(), name: name, createdAt: env.now, updatedAt: env.now, symbols: symbols)
                book.store(watchlist)
                return AlpacaWire.watchlist(watchlist, accountID: book.id, assets: sandbox.assets)
            }
        )
    }

    func updateWatchlist(_ key: WatchlistKey, _ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let id = try accountID(context)
        let fields = try AlpacaFields(try await body(request, context))
        let name = try fields.string("name")
        if let name { try Self.validateName(name) }
        let symbols = try fields.strings("symbols").map { symbols throws(AlpacaAPIError) in try resolveSymbols(symbols) }
        return .json(
            try sandbox.withBook(id) { book, env in
                var watchlist = try find(key, in: book)
                if let name, name != watchlist.name {
                    guard book.watchlist(named: name) == nil else { throw AlpacaAPIError.invalid("watchlist name must be unique") }
                    watchlist.name = name
                }
                if let symbols { watchlist.symbols = symbols }
                watchlist.updatedAt = env.now
                book.store(watchlist)
                return AlpacaWire.watchlist(watchlist, accountID: book.id, assets: sandbox.assets)
            }
        )
    }

    func addToWatchlist(_ key: WatchlistKey, _ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let id = try accountID(context)
        let fields = try AlpacaFields(try await body(request, context))
        guard let symbol = try fields.string("symbol"), !symbol.isEmpty else { throw AlpacaAPIError.invalid("symbol is required") }
        let canonical = try resolveSymbols([symbol])[0]
        return .json(
            try sandbox.withBook(id) { book, env in
                var watchlist = try find(key, in: book)
                guard !watchlist.symbols.contains(canonical) else {
                    throw AlpacaAPIError.invalid("symbol \(canonical) is already in the watchlist")
                }
                watchlist.symbols.append(canonical)
                watchlist.updatedAt = env.now
                book.store(watchlist)
                return AlpacaWire.watchlist(watchlist, accountID: book.id, assets: sandbox.assets)
            }
        )
    }

    func deleteWatchlist(_ key: WatchlistKey, _ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        try sandbox.withBook(id) { book, _ in
            let watchlist = try find(key, in: book)
            book.watchlists.removeAll { $0.id == watchlist.id }
        }
        return Response(status: .noContent)
    }

    func removeFromWatchlist(_ key: WatchlistKey, _ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        let symbol = symbolParameter(context)
        return .json(
            try sandbox.withBook(id) { book, env in
                var watchlist = try find(key, in: book)
                guard let canonical = sandbox.assets.resolve(symbol)?.symbol, let index = watchlist.symbols.firstIndex(of: canonical) else {
                    throw AlpacaAPIError.notFound("asset not found in watchlist")
                }
                watchlist.symbols.remove(at: index)
                watchlist.updatedAt = env.now
                book.store(watchlist)
                return AlpacaWire.watchlist(watchlist, accountID: book.id, assets: sandbox.assets)
            }
        )
    }
}
