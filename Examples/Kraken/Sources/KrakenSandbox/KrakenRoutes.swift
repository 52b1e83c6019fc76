import Foundation
import Hummingbird
import SandboxKit

/// The HTTP surface of ``KrakenSandbox``:
///
/// | Method + path | Params | Answer (`result`) |
/// |---|---|---|
/// | `GET /0/public/Time` | | `{"unixtime", "rfc1123"}` |
/// | `GET /0/public/SystemStatus` | | `{"status": "online", "timestamp"}` |
/// | `GET /0/public/Assets` | `asset` (ids or altnames, comma list) | `{id: {aclass, altname, decimals, display_decimals, collateral_value, status}}` |
/// | `GET /0/public/AssetPairs` | `pair` (ids, altnames or wsnames) | `{id: {altname, wsname, base, quote, pair_decimals, lot_decimals, ordermin, status, …}}` |
/// | `GET /0/public/Ticker` | `pair` (optional: all) | `{id: {a, b, c, v, p, t, l, h, o}}` |
/// | `GET /0/public/Depth` | `pair`, `count` (1-500, default 100) | `{id: {asks, bids}}`, levels `[price, volume, time]` |
/// | `POST /0/private/Balance` | | `{asset: balance}` |
/// | `POST /0/private/BalanceEx` | | `{asset: {balance, hold_trade}}` |
/// | `POST /0/private/OpenOrders` | `trades`, `userref`, `cl_ord_id` | `{"open": {txid: order}}` |
/// | `POST /0/private/ClosedOrders` | `trades`, `userref`, `cl_ord_id`, `start`, `end`, `ofs` | `{"closed": {txid: order}, "count"}` (50 a page, newest first) |
/// | `POST /0/private/QueryOrders` | `txid` (comma list, up to 50), `trades` | `{txid: order}` (unknown txids left out) |
/// | `POST /0/private/AddOrder` | `pair`, `type`, `ordertype` (market, limit), `volume`, `price`, `timeinforce` (GTC, IOC), `cl_ord_id` or `userref`, `validate` | `{"descr": {"order"}, "txid": [id]}` |
/// | `POST /0/private/CancelOrder` | `txid` (txid or userref) or `cl_ord_id` | `{"count"}` |
/// | `POST /0/private/AmendOrder` | `txid` or `cl_ord_id`, `order_qty`, `limit_price` (limit orders) | `{"amend_id"}` |
///
/// Private calls carry `nonce` in the body and `API-Key`/`API-Sign` headers (see ``KrakenSandbox``). Unknown
/// parameters are ignored, as Kraken ignores them. Booleans read `true`, `True` or `1` as true (ccxt sends Python's
/// `True`; Kraken's SDK `true`).
struct KrakenRoutes: Sendable {
    let sandbox: KrakenSandbox

    func register(on router: Router<SandboxRequestContext>) {
        let api = router.group("0/public")
        api.get("Time") { _, _ in self.time() }
        api.get("SystemStatus") { _, _ in self.systemStatus() }
        api.get("Assets") { request, _ in self.assets(request.queryParameters) }
        api.get("AssetPairs") { request, _ in try self.assetPairs(request.queryParameters) }
        api.get("Ticker") { request, _ in try self.ticker(request.queryParameters) }
        api.get("Depth") { request, _ in try self.depth(request.queryParameters) }

        let methods: [(String, @Sendable (String, Fields) throws -> JSON)] = [
            ("Balance", { account, _ in try self.balance(account, extended: false) }),
            ("BalanceEx", { account, _ in try self.balance(account, extended: true) }),
            ("OpenOrders", { account, fields in try self.openOrders(account, fields) }),
            ("ClosedOrders", { account, fields in try self.closedOrders(account, fields) }),
            ("QueryOrders", { account, fields in try self.queryOrders(account, fields) }),
            ("AddOrder", { account, fields in try self.addOrder(account, fields) }),
            ("CancelOrder", { account, fields in try self.cancelOrder(account, fields) }),
            ("AmendOrder", { account, fields in try self.amendOrder(account, fields) }),
        ]
        let signed = router.group("0/private")
        for (method, handler) in methods {
            signed.post(RouterPath(stringLiteral: method)) { request, context in
                let (account, fields) = try await self.authenticate(method, request, context)
                return Response.json(KrakenWire.success(try handler(account, fields)))
            }
        }
    }

    var market: MarketEngine { sandbox.market }

    // MARK: Public

    func time() -> Response {
        let now = market.now
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yy HH:mm:ss Z"
        return .json(KrakenWire.success(["unixtime": .int64(Int64(now.timeIntervalSince1970)), "rfc1123": .string(formatter.string(from: now))]))
    }

    func systemStatus() -> Response {
        .json(KrakenWire.success(["status": "online", "timestamp": .string(Timestamp.format(market.now, fractionDigits: 0))]))
    }

    func assets(_ query: QueryParameters) -> Response {
        let wanted = Self.list(query["asset"])
        let listed = KrakenListing.assets.filter { asset in
            wanted.isEmpty || wanted.contains(asset.id) || wanted.contains(asset.altname)
        }
        return .json(KrakenWire.success(.object(listed.map { .init(key: $0.id, value: KrakenWire.asset($0)) })))
    }

    func assetPairs(_ query: QueryParameters) throws -> Response {
        let listed = try pairs(query["pair"], allWhenEmpty: true)
        return .json(KrakenWire.success(.object(listed.map { .init(key: $0.id, value: KrakenWire.pair($0)) })))
    }

    func ticker(_ query: QueryParameters) throws -> Response {
        let listed = try pairs(query["pair"], allWhenEmpty: true)
        var members: [JSON.Member] = []
        for listing in listed {
            guard let quote = market.quote(symbol: listing.symbol) else { continue }
            members.append(.init(key: listing.id, value: KrakenWire.ticker(quote, listing: listing)))
        }
        return .json(KrakenWire.success(.object(members)))
    }

    /// A synthetic book around the shared market's touch: `count` levels a side, a tick apart, each the quoted size.
    func depth(_ query: QueryParameters) throws -> Response {
        guard let name = query["pair"], !name.isEmpty else { throw KrakenAPIError.invalidArguments("pair") }
        guard let listing = sandbox.listing(named: name) else { throw KrakenAPIError.unknownPair }
        var count = 100
        if let raw = query["count"] {
            guard let value = Int(raw), (1...500).contains(value) else { throw KrakenAPIError.invalidArguments("count") }
            count = value
        }
        guard let quote = market.quote(symbol: listing.symbol) else { throw KrakenAPIError.unknownPair }
        let time = JSON.int64(Int64(market.now.timeIntervalSince1970))
        let step = listing.tickSize > 0 ? listing.tickSize : 1
        func level(_ price: Decimal, _ size: Decimal) -> JSON {
            [KrakenWire.fixed(price, listing.pairDecimals), KrakenWire.fixed(size, 3), time]
        }
        let asks = (0..<count).map { level(quote.ask + Decimal($0) * step, quote.askSize) }
        let bids = (0..<count).compactMap { index -> JSON? in
            let price = quote.bid - Decimal(index) * step
            return price > 0 ? level(price, quote.bidSize) : nil
        }
        return .json(KrakenWire.success([listing.id: ["asks": .array(asks), "bids": .array(bids)]]))
    }

    // MARK: Private

    func balance(_ account: String, extended: Bool) throws -> JSON {
        let (wallet, held) = try sandbox.withVenue { venue, _ in
            let wallet = venue.wallets[account] ?? [:]
            var held: [String: Decimal] = [:]
            for asset in wallet.keys { held[asset] = venue.held(account: account, asset: asset, listings: sandbox.listings) }
            return (wallet, held)
        }
        let decimals = Dictionary(uniqueKeysWithValues: KrakenListing.assets.map { ($0.id, $0.decimals) })
        return .object(
            wallet.keys.sorted().map { asset in
                let places = decimals[asset] ?? 8
                let balance = KrakenWire.fixed(wallet[asset] ?? 0, places)
                let value: JSON = extended ? ["balance": balance, "hold_trade": KrakenWire.fixed(held[asset] ?? 0, places)] : balance
                return .init(key: asset, value: value)
            }
        )
    }

    func openOrders(_ account: String, _ fields: Fields) throws -> JSON {
        let trades = Self.flag(fields["trades"])
        let orders = try sandbox.withVenue { venue, _ in
            venue.orders.values.filter { $0.account == account && $0.status == .open && Self.matches($0, fields) }
        }
        return ["open": rendered(orders.sorted { $0.sequence > $1.sequence }, trades: trades)]
    }

    func closedOrders(_ account: String, _ fields: Fields) throws -> JSON {
        let trades = Self.flag(fields["trades"])
        let start = try Self.seconds(fields["start"], field: "start")
        let end = try Self.seconds(fields["end"], field: "end")
        var offset = 0
        if let raw = fields["ofs"] {
            guard let value = Int(raw), value >= 0 else { throw KrakenAPIError.invalidArguments("ofs") }
            offset = value
        }
        let closed = try sandbox.withVenue { venue, _ in
            venue.orders.values.filter { order in
                guard order.account == account, order.status != .open, Self.matches(order, fields) else { return false }
                let time = (order.closed ?? order.opened).timeIntervalSince1970
                // Kraken: start exclusive, end inclusive.
                return (start.map { time > $0 } ?? true) && (end.map { time <= $0 } ?? true)
            }
        }
        let sorted = closed.sorted { $0.sequence > $1.sequence }
        let page = Array(sorted.dropFirst(offset).prefix(50))
        return ["closed": rendered(page, trades: trades), "count": .int(sorted.count)]
    }

    func queryOrders(_ account: String, _ fields: Fields) throws -> JSON {
        let ids = Self.list(fields["txid"])
        guard !ids.isEmpty, ids.count <= 50 else { throw KrakenAPIError.invalidArguments("txid") }
        let trades = Self.flag(fields["trades"])
        let found = try sandbox.withVenue { venue, _ in
            ids.compactMap { id in venue.orders[id].flatMap { $0.account == account ? $0 : nil } }
        }
        return rendered(found, trades: trades)
    }

    func addOrder(_ account: String, _ fields: Fields) throws -> JSON {
        guard let name = fields["pair"], !name.isEmpty else { throw KrakenAPIError.invalidArguments("pair") }
        guard let listing = sandbox.listing(named: name) else { throw KrakenAPIError.unknownPair }
        let side: TradeSide
        switch fields["type"] {
        case "buy": side = .buy
        case "sell": side = .sell
        default: throw KrakenAPIError.invalidArguments("type")
        }
        let ordertype = fields["ordertype"] ?? ""
        guard ["market", "limit"].contains(ordertype) else { throw KrakenAPIError.invalidArguments("ordertype") }
        guard let volume = fields["volume"].flatMap({ DecimalText.parse($0) }), volume > 0,
            DecimalText.fractionDigits(volume) <= listing.lotDecimals
        else { throw KrakenAPIError.invalidArguments("volume") }
        guard volume >= listing.ordermin else { throw KrakenAPIError.orderMinimum }
        var limit: Decimal?
        if ordertype == "limit" {
            guard let price = fields["price"].flatMap({ DecimalText.parse($0) }), price > 0 else { throw KrakenAPIError.invalidArguments("price") }
            guard DecimalText.fractionDigits(price) <= listing.pairDecimals else {
                throw KrakenAPIError(
                    message: "EOrder:Invalid price:\(listing.altname) price can only be specified up to \(listing.pairDecimals) decimals."
                )
            }
            limit = price
        }
        var immediateOrCancel = false
        switch fields["timeinforce"]?.uppercased() {
        case nil, "GTC": break
        case "IOC": immediateOrCancel = true
        default: throw KrakenAPIError.invalidArguments("timeinforce")
        }
        let clientOrderId = fields["cl_ord_id"].flatMap { $0.isEmpty ? nil : $0 }
        var userref: Int64?
        if let raw = fields["userref"] {
            guard let value = Int64(raw), let _ = Int32(exactly: value) else { throw KrakenAPIError.invalidArguments("userref") }
            userref = value
        }
        if clientOrderId != nil, userref != nil { throw KrakenAPIError.invalidArguments("cl_ord_id") }
        if let clientOrderId, !Self.isClientOrderId(clientOrderId) { throw KrakenAPIError.invalidArguments("cl_ord_id") }
        let description = KrakenWire.sentence(side: side, volume: volume, listing: listing, ordertype: ordertype, limit: limit)
        if Self.flag(fields["validate"]) { return ["descr": ["order": .string(description)]] }
        guard let quote = market.quote(symbol: listing.symbol) else { throw KrakenAPIError(message: "EService:Unavailable") }
        let txid = try sandbox.withVenue { (venue: inout KrakenVenue, now: Date) throws(KrakenAPIError) -> String in
            if let clientOrderId,
                venue.orders.values.contains(where: { $0.account == account && $0.clientOrderId == clientOrderId && $0.status == .open })
            {
                throw KrakenAPIError(message: "EOrder:Duplicate order")
            }
            return try venue.place(
                account: account,
                listing: listing,
                side: side,
                ordertype: ordertype,
                volume: volume,
                limit: limit,
                immediateOrCancel: immediateOrCancel,
                clientOrderId: clientOrderId,
                userref: userref,
                quote: quote,
                now: now,
                listings: sandbox.listings
            )
        }
        return ["descr": ["order": .string(description)], "txid": [.string(txid)]]
    }

    /// SPEC AmendOrder: `txid` or `cl_ord_id`, `order_qty` (the new total), `limit_price`; answers `{"amend_id"}`.
    func amendOrder(_ account: String, _ fields: Fields) throws -> JSON {
        let txid = fields["txid"].flatMap { $0.isEmpty ? nil : $0 }
        let clientOrderId = fields["cl_ord_id"].flatMap { $0.isEmpty ? nil : $0 }
        guard txid != nil || clientOrderId != nil else { throw KrakenAPIError.invalidArguments("txid") }
        var quantity: Decimal?
        if let raw = fields["order_qty"] {
            guard let value = DecimalText.parse(raw), value > 0, DecimalText.fractionDigits(value) <= 8 else {
                throw KrakenAPIError.invalidArguments("order_qty")
            }
            quantity = value
        }
        var limit: Decimal?
        if let raw = fields["limit_price"] {
            guard let value = DecimalText.parse(raw), value > 0 else { throw KrakenAPIError.invalidArguments("limit_price") }
            limit = value
        }
        guard quantity != nil || limit != nil else { throw KrakenAPIError.invalidArguments("order_qty") }
        let amendId = try sandbox.withVenue { (venue: inout KrakenVenue, now: Date) throws(KrakenAPIError) -> String in
            let target = venue.orders.values.first { order in
                order.account == account && order.status == .open
                    && (clientOrderId.map { order.clientOrderId == $0 } ?? (order.txid == txid))
            }
            guard let target, let listing = sandbox.listings[target.pairId] else { throw .unknownOrder }
            if let limit, DecimalText.fractionDigits(limit) > listing.pairDecimals {
                throw KrakenAPIError(
                    message: "EOrder:Invalid price:\(listing.altname) price can only be specified up to \(listing.pairDecimals) decimals."
                )
            }
            return try venue.amend(
                account: account,
                txid: target.txid,
                quantity: quantity,
                limit: limit,
                quote: market.quote(symbol: listing.symbol),
                now: now,
                listings: sandbox.listings
            )
        }
        return ["amend_id": .string(amendId)]
    }

    func cancelOrder(_ account: String, _ fields: Fields) throws -> JSON {
        let txid = fields["txid"].flatMap { $0.isEmpty ? nil : $0 }
        let clientOrderId = fields["cl_ord_id"].flatMap { $0.isEmpty ? nil : $0 }
        guard txid != nil || clientOrderId != nil else { throw KrakenAPIError.invalidArguments("txid") }
        let count = try sandbox.withVenue { (venue: inout KrakenVenue, now: Date) throws(KrakenAPIError) -> Int in
            let targets = venue.orders.values.filter { order in
                guard order.account == account, order.status == .open else { return false }
                if let clientOrderId { return order.clientOrderId == clientOrderId }
                return order.txid == txid || (order.userref.map(String.init) == txid)
            }
            guard !targets.isEmpty else { throw .unknownOrder }
            for order in targets { try venue.cancel(account: account, txid: order.txid, now: now) }
            return targets.count
        }
        return ["count": .int(count)]
    }

    // MARK: Helpers

    typealias Fields = [String: String]

    /// Reads the body (form or JSON), then checks key, signature and nonce (``KrakenSandbox/authenticate``).
    func authenticate(_ method: String, _ request: Request, _ context: SandboxRequestContext) async throws -> (String, Fields) {
        let buffer = try await request.body(in: context)
        let body = Data(buffer.readableBytesView)
        var fields: Fields = [:]
        if request.headers[.contentType]?.lowercased().contains("json") == true {
            guard let json = try? JSON(parsing: [UInt8](body)), let members = json.objectMembers else {
                throw KrakenAPIError.invalidArguments("body")
            }
            for member in members {
                switch member.value {
                case .string(let text): fields[member.key] = text
                case .number(let text): fields[member.key] = text
                case .bool(let flag): fields[member.key] = flag ? "true" : "false"
                default: continue
                }
            }
        } else {
            for item in QueryParameters(String(decoding: body, as: UTF8.self)).items where fields[item.name] == nil {
                fields[item.name] = item.value
            }
        }
        let account = try sandbox.authenticate(
            method: method,
            apiKey: request.headers[HeaderName.krakenAPIKey],
            apiSign: request.headers[HeaderName.krakenAPISign],
            nonce: fields["nonce"],
            body: body
        )
        return (account, fields)
    }

    func rendered(_ orders: [KrakenSandboxOrder], trades: Bool) -> JSON {
        .object(
            orders.compactMap { order in
                sandbox.listings[order.pairId].map { .init(key: order.txid, value: KrakenWire.order(order, listing: $0, trades: trades)) }
            }
        )
    }

    static func matches(_ order: KrakenSandboxOrder, _ fields: Fields) -> Bool {
        if let id = fields["cl_ord_id"], !id.isEmpty, order.clientOrderId != id { return false }
        if let raw = fields["userref"], let value = Int64(raw), order.userref != value { return false }
        return true
    }

    /// `true`, `True` and `1` are true (§7.3).
    static func flag(_ text: String?) -> Bool {
        guard let text else { return false }
        return ["true", "1"].contains(text.lowercased())
    }

    static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }.filter { !$0.isEmpty }
    }

    /// A unix time in seconds (a txid as `start`/`end` is not supported by the sandbox).
    static func seconds(_ text: String?, field: String) throws -> Double? {
        guard let text, !text.isEmpty else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0 else { throw KrakenAPIError.invalidArguments(field) }
        return value
    }

    /// SPEC AddOrder `cl_ord_id`: a UUID (with or without dashes) or free text of at most 18 ASCII characters.
    static func isClientOrderId(_ id: String) -> Bool {
        if UUID(uuidString: id) != nil { return true }
        if id.count == 32, id.allSatisfy(\.isHexDigit) { return true }
        return id.count <= 18 && id.allSatisfy { $0.isASCII && !$0.isWhitespace }
    }

    func pairs(_ text: String?, allWhenEmpty: Bool) throws -> [KrakenListing] {
        let names = Self.list(text)
        if names.isEmpty { return allWhenEmpty ? sandbox.orderedListings : [] }
        return try names.map { name in
            guard let listing = sandbox.listing(named: name) else { throw KrakenAPIError.unknownPair }
            return listing
        }
    }
}

extension HeaderName {
    /// Kraken's `API-Key` request header.
    static let krakenAPIKey = Name("API-Key")!
    /// Kraken's `API-Sign` request header.
    static let krakenAPISign = Name("API-Sign")!
}
