import Foundation
import Hummingbird
import SandboxKit

/// The HTTP surface of ``TradeOgreSandbox`` under `/api/v1`:
///
/// | Method + path | Auth | Params | Answer |
/// |---|---|---|---|
/// | `GET /markets` | | | `[{"XMR-BTC":{"initialprice","price","high","low","volume","bid","ask","basename"}}, ...]` |
/// | `GET /orders/{market}` | | | `{"success":"true","buy":{price:qty},"sell":{price:qty}}` |
/// | `GET /ticker/{market}` | | | `{"success":true,"initialprice","price","high","low","volume","bid","ask"}` |
/// | `GET /history/{market}` | | | the last 100 trades, oldest first: `[{"date":int,"type","price","quantity"}]` |
/// | `GET /chart/{interval}/{market}[/{timestamp}]` | | interval `1m,15m,1h,4h,1d,1w` | `[[time,o,h,l,c,v], ...]` |
/// | `POST /account/balance` | Basic | `currency` | `{"success":true,"balance","available"}` |
/// | `GET /account/balances` | Basic | | `{"success":true,"balances":{"BTC":s,...}}` |
/// | `POST /order/buy`, `/order/sell` | Basic | `market`, `quantity`, `price` | `{"success":true,"uuid","bnewbalavail","snewbalavail"}` |
/// | `POST /order/cancel` | Basic | `uuid` (or `all`) | `{"success":true}` |
/// | `POST /account/orders` | Basic | `market` (optional) | open orders, newest first |
/// | `GET /account/order/{uuid}` | Basic | | `{"success":true,"date":s,"type","market","price","quantity","fulfilled"}` |
///
/// The order book's `success` is the string `"true"`, as the documentation's example (replayed by
/// jmjac/tradeogre-api's test server) and the seed app's decoder have it; everything else says `true`.
/// `/account/order/{uuid}` answers open and filled orders (`quantity` is what remains: `0` once filled); a cancelled
/// order is gone (`Order not found`), as is every uuid of another account.
struct TradeOgreRoutes: Sendable {
    let sandbox: TradeOgreSandbox

    func register(on router: Router<SandboxRequestContext>) {
        let api = router.group("api/v1")
        api.get("markets") { _, _ in try self.markets() }
        api.get("orders/:market") { _, context in try self.orderBook(context) }
        api.get("ticker/:market") { _, context in try self.ticker(context) }
        api.get("history/:market") { _, context in try self.history(context) }
        api.get("chart/:interval/:market") { _, context in try self.chart(context, timestamp: nil) }
        api.get("chart/:interval/:market/:timestamp") { _, context in
            try self.chart(context, timestamp: context.pathParameter("timestamp"))
        }

        api.post("account/balance") { request, context in try await self.balance(request, context) }
        api.get("account/balances") { request, _ in try self.balances(request) }
        api.post("order/buy") { request, context in try await self.place(.buy, request, context) }
        api.post("order/sell") { request, context in try await self.place(.sell, request, context) }
        api.post("order/cancel") { request, context in try await self.cancel(request, context) }
        api.post("account/orders") { request, context in try await self.openOrders(request, context) }
        api.get("account/order/:uuid") { request, context in try self.order(request, context) }
    }

    var market: MarketEngine { sandbox.market }

    // MARK: Public

    func markets() throws -> Response {
        let now = market.now
        let entries: [JSON] = try sandbox.withExchange { exchange, _ in
            sandbox.orderedWireNames.compactMap { wireName in
                let listing = sandbox.listingsByWireName[wireName]!
                guard let quote = market.quote(symbol: listing.symbol) else { return nil }
                let statistics = TradeOgreWire.statistics(
                    listing: listing,
                    exchange: exchange,
                    quote: quote,
                    bucketSeconds: market.configuration.bucketSeconds,
                    now: now
                )
                var members = TradeOgreWire.statisticsMembers(statistics)
                if let name = TradeOgreWire.currencyNames[listing.base] {
                    members.append(.init(key: "basename", value: .string(name)))
                }
                return .object([.init(key: wireName, value: .object(members))])
            }
        }
        return .json(.array(entries))
    }

    func orderBook(_ context: SandboxRequestContext) throws -> Response {
        let listing = try sandbox.listing(wireName: context.pathParameter("market"))
        let (bids, asks) = try sandbox.withExchange { exchange, _ in
            let book = exchange.books[listing.symbol] ?? TradeOgreOrderBook()
            return (book.levels(.buy), book.levels(.sell))
        }
        return .json([
            "success": "true",
            "buy": TradeOgreWire.bookSide(bids),
            "sell": TradeOgreWire.bookSide(asks),
        ])
    }

    func ticker(_ context: SandboxRequestContext) throws -> Response {
        let listing = try sandbox.listing(wireName: context.pathParameter("market"))
        guard let quote = market.quote(symbol: listing.symbol) else { throw TradeOgreAPIError.marketNotFound }
        let statistics = try sandbox.withExchange { exchange, now in
            TradeOgreWire.statistics(
                listing: listing,
                exchange: exchange,
                quote: quote,
                bucketSeconds: market.configuration.bucketSeconds,
                now: now
            )
        }
        return .json(.object([.init(key: "success", value: true)] + TradeOgreWire.statisticsMembers(statistics)))
    }

    func history(_ context: SandboxRequestContext) throws -> Response {
        let listing = try sandbox.listing(wireName: context.pathParameter("market"))
        let trades = try sandbox.withExchange { exchange, _ in (exchange.trades[listing.symbol] ?? []).suffix(100) }
        return .json(.array(trades.map(TradeOgreWire.trade)))
    }

    func chart(_ context: SandboxRequestContext, timestamp: String?) throws -> Response {
        guard let interval = context.pathParameter("interval").flatMap({ TradeOgreChart.intervals[$0] }) else {
            throw TradeOgreAPIError.invalidInterval
        }
        let listing = try sandbox.listing(wireName: context.pathParameter("market"))
        let now = market.now
        var end = now
        if let timestamp {
            guard let seconds = Int64(timestamp), seconds > 0 else { throw TradeOgreAPIError(message: "Invalid timestamp") }
            end = Date(timeIntervalSince1970: Double(seconds))
        }
        let trades = try sandbox.withExchange { exchange, _ in exchange.trades[listing.symbol] ?? [] }
        return .json(
            TradeOgreChart.candles(
                listing: listing,
                intervalSeconds: interval,
                end: end,
                now: now,
                livePrice: market.quote(symbol: listing.symbol)?.last,
                trades: trades,
                seed: market.configuration.seed,
                bucketSeconds: market.configuration.bucketSeconds
            )
        )
    }

    // MARK: Private

    func balance(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let account = try self.account(request)
        let form = try await self.form(request, context)
        guard let currency = form["currency"]?.uppercased(), !currency.isEmpty, currency.count <= 12,
            currency.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { throw TradeOgreAPIError.currencyNotFound }
        let (total, available) = try sandbox.withExchange { exchange, _ in
            (
                exchange.total(account: account, currency: currency),
                exchange.available(account: account, currency: currency, listings: sandbox.listings)
            )
        }
        return .json(["success": true, "balance": TradeOgreWire.amount(total), "available": TradeOgreWire.amount(available)])
    }

    /// Every currency of a listed market plus any the account holds, zeros included (as the venue listed them).
    func balances(_ request: Request) throws -> Response {
        let account = try self.account(request)
        let wallet = try sandbox.withExchange { exchange, _ in exchange.wallets[account] ?? [:] }
        var currencies = Set(wallet.keys)
        for listing in sandbox.listings.values {
            currencies.insert(listing.base)
            currencies.insert(listing.quote)
        }
        let members = currencies.sorted().map { JSON.Member(key: $0, value: TradeOgreWire.amount(wallet[$0] ?? 0)) }
        return .json(["success": true, "balances": .object(members)])
    }

    func place(_ side: TradeSide, _ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let account = try self.account(request)
        let form = try await self.form(request, context)
        let listing = try sandbox.listing(wireName: form["market"])
        guard let quantity = Self.amount(form["quantity"]) else { throw TradeOgreAPIError.invalidQuantity }
        guard let price = Self.amount(form["price"]) else { throw TradeOgreAPIError.invalidPrice }
        let (id, quoteAvailable, baseAvailable) = try sandbox.withExchange { exchange, now throws(TradeOgreAPIError) in
            let id = try exchange.place(
                account: account,
                listing: listing,
                side: side,
                price: price,
                quantity: quantity,
                now: now,
                listings: sandbox.listings
            )
            return (
                id, exchange.available(account: account, currency: listing.quote, listings: sandbox.listings),
                exchange.available(account: account, currency: listing.base, listings: sandbox.listings)
            )
        }
        return .json([
            "success": true,
            "uuid": .string(id.uuidString.lowercased()),
            "bnewbalavail": TradeOgreWire.amount(quoteAvailable),
            "snewbalavail": TradeOgreWire.amount(baseAvailable),
        ])
    }

    func cancel(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let account = try self.account(request)
        let form = try await self.form(request, context)
        let target = form["uuid"]?.trimmingCharacters(in: .whitespaces) ?? ""
        if target.lowercased() == "all" {
            try sandbox.withExchange { exchange, _ in exchange.cancelAll(account: account) }
        } else {
            guard let id = UUID(uuidString: target) else { throw TradeOgreAPIError.orderNotFound }
            try sandbox.withExchange { exchange, _ throws(TradeOgreAPIError) in try exchange.cancel(account: account, id: id) }
        }
        return .json(["success": true])
    }

    func openOrders(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let account = try self.account(request)
        let form = try await self.form(request, context)
        var only: TradeOgreListing?
        if let name = form["market"], !name.isEmpty { only = try sandbox.listing(wireName: name) }
        let open = try sandbox.withExchange { exchange, _ in
            exchange.orders.values.filter { order in
                order.account == account && order.state == .open && (only == nil || order.symbol == only!.symbol)
            }
        }
        let sorted = open.sorted { ($0.date, $0.id.uuidString) > ($1.date, $1.id.uuidString) }
        return .json(
            .array(
                sorted.compactMap { order in
                    sandbox.listings[order.symbol].map { TradeOgreWire.openOrder(order, listing: $0) }
                }
            )
        )
    }

    func order(_ request: Request, _ context: SandboxRequestContext) throws -> Response {
        let account = try self.account(request)
        guard let id = context.pathParameter("uuid").flatMap(UUID.init(uuidString:)) else {
            throw TradeOgreAPIError.orderNotFound
        }
        let record = try sandbox.withExchange { exchange, _ throws(TradeOgreAPIError) in
            guard let order = exchange.orders[id], order.account == account, order.state != .cancelled else {
                throw .orderNotFound
            }
            return order
        }
        guard let listing = sandbox.listings[record.symbol] else { throw TradeOgreAPIError.orderNotFound }
        return .json(TradeOgreWire.order(record, listing: listing))
    }

    // MARK: Helpers

    func account(_ request: Request) throws(TradeOgreAPIError) -> String {
        guard let account = sandbox.authenticate(request.headers) else { throw .unauthorized }
        return account
    }

    /// The form body (`application/x-www-form-urlencoded`), with the query string's parameters as a fallback.
    func form(_ request: Request, _ context: SandboxRequestContext) async throws -> [String: String] {
        let buffer = try await request.body(in: context)
        var fields: [String: String] = [:]
        for item in request.queryParameters.items where fields[item.name] == nil { fields[item.name] = item.value }
        for item in QueryParameters(String(buffer: buffer)).items { fields[item.name] = item.value }
        return fields
    }

    /// A positive decimal with at most 8 fraction digits.
    static func amount(_ text: String?) -> Decimal? {
        guard let text, let value = DecimalText.parse(text.trimmingCharacters(in: .whitespaces)), value > 0,
            DecimalText.fractionDigits(value) <= TradeOgreExchange.scale
        else { return nil }
        return value
    }
}
