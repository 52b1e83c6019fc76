import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes

/// Every Alpaca call the adapter makes: method, host, path and query. Bodies and timeouts are set by the caller.
struct Endpoint: Sendable {
    enum Host: Sendable { case trading, data }

    var method: HTTPRequest.Method
    var host: Host
    var path: String
    var query: [(name: String, value: String)] = []
    /// The largest answer read, near the size of a real one, so that a broker (or anything posing as one) cannot
    /// make a small read hold megabytes; a larger answer is `malformed_response`. Alpaca's error bodies are
    /// `{"code":…,"message":…}`, well under every cap.
    var maxResponseBytes = Endpoint.oneObject

    /// One account or order (an order with its legs is some 1–5 KB), or an empty body.
    static let oneObject = 64 * 1024
    /// A page of orders: at most 500 (the API's `limit`) at 1–5 KB each.
    static let orderPage = 4 * 1024 * 1024
    /// Watchlists: each names its assets (some 400 bytes an asset), a few hundred at most.
    static let watchlistAnswer = 1024 * 1024
    /// Latest quotes or trades by symbol, some 200 bytes a symbol: room for some 5,000 symbols in one call.
    static let latestAnswer = 1024 * 1024
    /// Bars: at most 1,200 (the candle count's bound) at some 100 bytes each.
    static let barsAnswer = 1024 * 1024
    /// One pair's crypto book, every level (some 40 bytes a level) on both sides.
    static let bookAnswer = 4 * 1024 * 1024

    static func account() -> Endpoint { Endpoint(method: .get, host: .trading, path: "/v2/account") }
    static func positions() -> Endpoint { Endpoint(method: .get, host: .trading, path: "/v2/positions") }

    static func orders(status: String, limit: Int, after: Date?, until: Date?, symbols: [String]) -> Endpoint {
        var query: [(String, String)] = [("status", status), ("limit", String(limit)), ("direction", "desc")]
        if let after { query.append(("after", RFC3339Timestamp.format(after))) }
        if let until { query.append(("until", RFC3339Timestamp.format(until))) }
        if !symbols.isEmpty { query.append(("symbols", symbols.joined(separator: ","))) }
        return Endpoint(method: .get, host: .trading, path: "/v2/orders", query: query, maxResponseBytes: orderPage)
    }

    static func order(id: String) -> Endpoint {
        Endpoint(method: .get, host: .trading, path: "/v2/orders/\(segment(id))")
    }

    static func order(clientOrderId: String) -> Endpoint {
        Endpoint(
            method: .get,
            host: .trading,
            path: "/v2/orders:by_client_order_id",
            query: [("client_order_id", clientOrderId)]
        )
    }

    static func placeOrder() -> Endpoint { Endpoint(method: .post, host: .trading, path: "/v2/orders") }
    static func replaceOrder(id: String) -> Endpoint {
        Endpoint(method: .patch, host: .trading, path: "/v2/orders/\(segment(id))")
    }
    static func cancelOrder(id: String) -> Endpoint {
        Endpoint(method: .delete, host: .trading, path: "/v2/orders/\(segment(id))")
    }

    static func watchlists() -> Endpoint {
        Endpoint(method: .get, host: .trading, path: "/v2/watchlists", maxResponseBytes: watchlistAnswer)
    }
    static func watchlist(id: String) -> Endpoint {
        Endpoint(method: .get, host: .trading, path: "/v2/watchlists/\(segment(id))", maxResponseBytes: watchlistAnswer)
    }
    static func createWatchlist() -> Endpoint {
        Endpoint(method: .post, host: .trading, path: "/v2/watchlists", maxResponseBytes: watchlistAnswer)
    }
    static func updateWatchlist(id: String) -> Endpoint {
        Endpoint(method: .put, host: .trading, path: "/v2/watchlists/\(segment(id))", maxResponseBytes: watchlistAnswer)
    }
    static func deleteWatchlist(id: String) -> Endpoint {
        Endpoint(method: .delete, host: .trading, path: "/v2/watchlists/\(segment(id))")
    }

    static func assets(assetClass: String?) -> Endpoint {
        var query: [(String, String)] = [("status", "active")]
        if let assetClass { query.append(("asset_class", assetClass)) }
        return Endpoint(method: .get, host: .trading, path: "/v2/assets", query: query)
    }

    static func stockQuotes(symbols: [String], feed: String?) -> Endpoint {
        var query: [(String, String)] = [("symbols", symbols.joined(separator: ","))]
        if let feed { query.append(("feed", feed)) }
        return Endpoint(method: .get, host: .data, path: "/v2/stocks/quotes/latest", query: query, maxResponseBytes: latestAnswer)
    }

    static func stockTrades(symbols: [String], feed: String?) -> Endpoint {
        var query: [(String, String)] = [("symbols", symbols.joined(separator: ","))]
        if let feed { query.append(("feed", feed)) }
        return Endpoint(method: .get, host: .data, path: "/v2/stocks/trades/latest", query: query, maxResponseBytes: latestAnswer)
    }

    static func cryptoQuotes(symbols: [String]) -> Endpoint {
        Endpoint(
            method: .get,
            host: .data,
            path: "/v1beta3/crypto/us/latest/quotes",
            query: [("symbols", symbols.joined(separator: ","))],
            maxResponseBytes: latestAnswer
        )
    }

    static func cryptoTrades(symbols: [String]) -> Endpoint {
        Endpoint(
            method: .get,
            host: .data,
            path: "/v1beta3/crypto/us/latest/trades",
            query: [("symbols", symbols.joined(separator: ","))],
            maxResponseBytes: latestAnswer
        )
    }

    static func cryptoOrderbooks(symbols: [String]) -> Endpoint {
        Endpoint(
            method: .get,
            host: .data,
            path: "/v1beta3/crypto/us/latest/orderbooks",
            query: [("symbols", symbols.joined(separator: ","))],
            maxResponseBytes: bookAnswer
        )
    }

    /// The latest `limit` bars up to now (`sort=desc`): `start` only bounds how far back Alpaca looks.
    static func stockBars(symbol: String, timeframe: String, start: Date, limit: Int, feed: String?) -> Endpoint {
        var query: [(String, String)] = [
            ("symbols", symbol), ("timeframe", timeframe), ("start", RFC3339Timestamp.format(start)),
            ("limit", String(limit)), ("sort", "desc"),
        ]
        if let feed { query.append(("feed", feed)) }
        return Endpoint(method: .get, host: .data, path: "/v2/stocks/bars", query: query, maxResponseBytes: barsAnswer)
    }

    static func cryptoBars(symbol: String, timeframe: String, start: Date, limit: Int) -> Endpoint {
        Endpoint(
            method: .get,
            host: .data,
            path: "/v1beta3/crypto/us/bars",
            query: [
                ("symbols", symbol), ("timeframe", timeframe), ("start", RFC3339Timestamp.format(start)),
                ("limit", String(limit)), ("sort", "desc"),
            ],
            maxResponseBytes: barsAnswer
        )
    }

    /// The absolute URL.
    func url(_ configuration: AlpacaConfiguration) -> String {
        BrokerURL.make(base: host == .trading ? configuration.baseURL : configuration.dataBaseURL, path: path, query: query)
    }

    static func segment(_ id: String) -> String { BrokerURL.escape(id) }
}
