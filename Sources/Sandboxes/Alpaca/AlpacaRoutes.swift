import Foundation
import Hummingbird
import SandboxKit

/// The HTTP surface of ``AlpacaSandbox``: parses requests, calls the account book, renders Alpaca's JSON.
struct AlpacaRoutes: Sendable {
    let sandbox: AlpacaSandbox

    func register(on router: Router<SandboxRequestContext>) {
        let trading = router.group("v2").add(middleware: AlpacaGatekeeper(sandbox: sandbox, api: .trading))
        trading.get("account") { _, context in try self.account(context) }
        trading.get("account/configurations") { _, context in try self.configurations(context) }
        trading.patch("account/configurations") { request, context in try await self.updateConfigurations(request, context) }
        trading.get("clock") { _, _ in
            Response.json(AlpacaWire.clock(now: self.sandbox.market.now, hours: self.sandbox.configuration.marketHours))
        }

        trading.get("assets") { request, _ in try self.assets(request) }
        for path in ["assets/:symbol", "assets/:symbol/:quote"] {
            trading.get(RouterPath(stringLiteral: path)) { _, context in try self.asset(context) }
        }

        trading.get("positions") { _, context in try self.positions(context) }
        trading.delete("positions") { request, context in try self.closeAllPositions(request, context) }
        for path in ["positions/:symbol", "positions/:symbol/:quote"] {
            trading.get(RouterPath(stringLiteral: path)) { _, context in try self.position(context) }
            trading.delete(RouterPath(stringLiteral: path)) { request, context in try self.closePosition(request, context) }
        }

        trading.get("orders") { request, context in try self.orders(request, context) }
        trading.post("orders") { request, context in try await self.submit(request, context) }
        trading.delete("orders") { _, context in try self.cancelAll(context) }
        trading.get("orders:by_client_order_id") { request, context in try self.orderByClientID(request, context) }
        trading.get("orders/:id") { _, context in try self.order(context) }
        trading.patch("orders/:id") { request, context in try await self.replace(request, context) }
        trading.delete("orders/:id") { _, context in try self.cancel(context) }

        trading.get("watchlists") { _, context in try self.watchlists(context) }
        trading.post("watchlists") { request, context in try await self.createWatchlist(request, context) }
        trading.get("watchlists/:id") { _, context in try self.watchlist(.id(context), context) }
        trading.put("watchlists/:id") { request, context in try await self.updateWatchlist(.id(context), request, context) }
        trading.post("watchlists/:id") { request, context in try await self.addToWatchlist(.id(context), request, context) }
        trading.delete("watchlists/:id") { _, context in try self.deleteWatchlist(.id(context), context) }
        for path in ["watchlists/:id/:symbol", "watchlists/:id/:symbol/:quote"] {
            trading.delete(RouterPath(stringLiteral: path)) { _, context in try self.removeFromWatchlist(.id(context), context) }
        }
        trading.get("watchlists:by_name") { request, context in try self.watchlist(.name(request), context) }
        trading.put("watchlists:by_name") { request, context in try await self.updateWatchlist(.name(request), request, context) }
        trading.post("watchlists:by_name") { request, context in try await self.addToWatchlist(.name(request), request, context) }
        trading.delete("watchlists:by_name") { request, context in try self.deleteWatchlist(.name(request), context) }

        // Market data lives on another host in production (data.alpaca.markets); here it shares the port.
        let data = router.group().add(middleware: AlpacaGatekeeper(sandbox: sandbox, api: .stockData))
        data.get("v2/stocks/quotes/latest") { request, _ in try self.latestStock(request, symbol: nil, kind: .quotes) }
        data.get("v2/stocks/trades/latest") { request, _ in try self.latestStock(request, symbol: nil, kind: .trades) }
        data.get("v2/stocks/:symbol/quotes/latest") { request, context in
            try self.latestStock(request, symbol: context.pathParameter("symbol"), kind: .quotes)
        }
        data.get("v2/stocks/:symbol/trades/latest") { request, context in
            try self.latestStock(request, symbol: context.pathParameter("symbol"), kind: .trades)
        }
        data.get("v2/stocks/bars") { request, _ in try self.stockBars(request, symbol: nil) }
        data.get("v2/stocks/:symbol/bars") { request, context in
            try self.stockBars(request, symbol: context.pathParameter("symbol"))
        }
        data.get("v2/stocks/snapshots") { request, _ in try self.stockSnapshots(request, symbol: nil) }
        data.get("v2/stocks/:symbol/snapshot") { request, context in
            try self.stockSnapshots(request, symbol: context.pathParameter("symbol"))
        }
        let crypto = router.group().add(middleware: AlpacaGatekeeper(sandbox: sandbox, api: .cryptoData))
        crypto.get("v1beta3/crypto/:loc/bars") { request, context in try self.cryptoBars(request, context) }
        crypto.get("v1beta3/crypto/:loc/snapshots") { request, context in try self.cryptoSnapshots(request, context) }
        for kind in [LatestKind.quotes, .trades, .orderbooks] {
            crypto.get(RouterPath(stringLiteral: "v1beta3/crypto/:loc/latest/\(kind.rawValue)")) { request, context in
                try self.latestCrypto(request, context, kind: kind)
            }
        }
    }

    // MARK: Helpers

    func accountID(_ context: SandboxRequestContext) throws(AlpacaAPIError) -> UUID {
        guard let principal = context.principal, let id = UUID(uuidString: principal) else { throw .unauthorized }
        return id
    }

    func body(_ request: Request, _ context: SandboxRequestContext) async throws -> JSON {
        let buffer = try await request.body(in: context)
        guard let json = try? JSON(parsing: Array(buffer: buffer)) else { throw AlpacaAPIError.malformedBody }
        return json
    }

    func symbolParameter(_ context: SandboxRequestContext) -> String {
        if let base = context.pathParameter("symbol"), let quote = context.pathParameter("quote") { return base + "/" + quote }
        return context.pathParameter("symbol") ?? ""
    }

    static func parseBool(_ text: String?, name: String) throws(AlpacaAPIError) -> Bool? {
        guard let text else { return nil }
        switch text.lowercased() {
        case "true", "1": return true
        case "false", "0", "": return false
        default: throw .invalid("invalid \(name)")
        }
    }
}
