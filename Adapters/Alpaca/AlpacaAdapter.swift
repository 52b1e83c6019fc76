import Foundation
public import GatewayCore
public import GatewayModel
import Logging
import Synchronization

/// Alpaca Trading API v2 (and its market data API) as a `BrokerAdapter`, for one connection.
///
/// An Alpaca key pair reaches exactly one account, so the adapter learns that account's id once (`GET /v2/account`)
/// and stamps it on positions and orders, which Alpaca sends without it. The id is kept with the connection's
/// credentials (`accountId`, saved when the link is proven), so reads of positions and orders never call the
/// account endpoint; for a connection saved without it, a failing lookup never hides the read's own error.
public struct AlpacaAdapter: BrokerAdapter {
    /// Always `.alpaca`.
    public var kind: BrokerKind { .alpaca }
    /// What Alpaca supports, emulates or refuses (see `AlpacaAdapterFactory`).
    public var capabilities: Capabilities { AlpacaAdapterFactory.alpacaCapabilities }

    let context: AdapterContext
    let configuration: AlpacaConfiguration
    let session: Session

    /// Per-connection state shared by every copy of the adapter.
    final class Session: Sendable {
        let accountId: Mutex<String?>

        init(accountId: String?) {
            self.accountId = Mutex(accountId)
        }
    }

    /// The credentials key the account id is kept under (not a secret; kept with the connection).
    static let accountIdKey = "accountId"

    /// Binds the adapter to one connection; a kept account id in the credentials (`accountId`) spares later reads the `GET
    /// /v2/account` lookup. Makes no call.
    public init(context: AdapterContext, configuration: AlpacaConfiguration) {
        self.context = context
        self.configuration = configuration
        self.session = Session(accountId: context.credentials[Self.accountIdKey].flatMap { $0.isEmpty ? nil : $0 })
    }

    var connectionId: String { context.connection.id }

    // MARK: Account

    /// Reads `GET /v2/account`; a 403 there (a key of the other environment, paper against live) is reported as
    /// `unauthorized`, like a wrong key.
    public func validateCredentials() async throws {
        do {
            _ = try await account()
        } catch let error as GatewayError where error.code == .forbidden {
            // A key of the other environment (paper vs live) gets a 403 on /v2/account.
            throw GatewayError(
                .unauthorized,
                error.message,
                broker: .alpaca,
                retryable: false,
                brokerCode: error.brokerCode
            )
        }
    }

    /// The one client a key pair reaches, from `GET /v2/account`.
    public func clients() async throws -> [Client] {
        [Client(alpaca: try await account(), connectionId: connectionId)]
    }

    /// The one account a key pair reaches, from `GET /v2/account`.
    public func accounts() async throws -> [Account] {
        [Account(alpaca: try await account(), connectionId: connectionId)]
    }

    /// The account's cash and buying power from `GET /v2/account`; another `accountId` is `notFound`.
    public func balances(accountId: String?) async throws -> [Balance] {
        let account = try await account()
        try check(accountId, against: account.id)
        return [Balance(alpaca: account, connectionId: connectionId)]
    }

    /// Every position from `GET /v2/positions` (one unpaged array, so read with
    /// ``AlpacaConfiguration/positionListMaxBytes``), stamped with the account id.
    public func positions(accountId: String?) async throws -> [Position] {
        let maxBytes = configuration.positionListMaxBytes
        let (id, positions) = try await reading(accountId) {
            try await fetch([AlpacaPosition].self, .positions(), maxResponseBytes: maxBytes)
        }
        return try positions.map { try Position(alpaca: $0, connectionId: connectionId, accountId: id) }
    }

    // MARK: Watchlists

    /// Every watchlist with its instruments: `GET /v2/watchlists` leaves the assets out, so lists without them are read one
    /// by one, concurrently, in the broker's order.
    public func watchlists() async throws -> [Watchlist] {
        let summaries = try await fetch([AlpacaWatchlist].self, .watchlists())
        // The list endpoint leaves the assets out: read each list that lacks them, concurrently, in order.
        let complete = try await withThrowingTaskGroup(of: (Int, AlpacaWatchlist).self) { group in
            for (index, summary) in summaries.enumerated() {
                if summary.assets != nil { continue }
                group.addTask { (index, try await fetch(AlpacaWatchlist.self, .watchlist(id: summary.id))) }
            }
            var lists = summaries
            for try await (index, list) in group { lists[index] = list }
            return lists
        }
        return complete.map { Watchlist(alpaca: $0, connectionId: connectionId) }
    }

    /// `POST /v2/watchlists`; an empty name is refused before the call.
    public func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist {
        try checkWatchlistName(name)
        let body = try encode(AlpacaWatchlistRequest(name: name, symbols: instruments.map(\.alpacaSymbol)))
        let list = try await fetch(AlpacaWatchlist.self, .createWatchlist(), body: body)
        return Watchlist(alpaca: list, connectionId: connectionId)
    }

    /// `PUT /v2/watchlists/{id}` with the new name, the new instruments, or both; changing neither is refused.
    public func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist {
        guard name != nil || instruments != nil else {
            throw GatewayError.unprocessable([FieldProblem(field: "body", problem: "must change name or instruments")])
        }
        if let name { try checkWatchlistName(name) }
        let body = try encode(AlpacaWatchlistRequest(name: name, symbols: instruments?.map(\.alpacaSymbol)))
        let list = try await fetch(AlpacaWatchlist.self, .updateWatchlist(id: id), body: body)
        return Watchlist(alpaca: list, connectionId: connectionId)
    }

    /// `DELETE /v2/watchlists/{id}`.
    public func deleteWatchlist(id: String) async throws {
        _ = try await send(.deleteWatchlist(id: id))
    }

    // MARK: Orders

    /// `GET /v2/orders` filtered by state, time window and symbols; the limit is clamped to Alpaca's 1 to 500.
    public func orders(_ query: OrderQuery) async throws -> [Order] {
        let endpoint = Endpoint.orders(
            status: query.state.rawValue,
            limit: min(max(query.limit, 1), 500),
            after: query.after,
            until: query.until,
            symbols: query.symbols.map { InstrumentReference(symbol: $0).alpacaSymbol }
        )
        let (accountId, orders) = try await reading(query.accountId) { try await fetch([AlpacaOrder].self, endpoint) }
        return try orders.map { try Order(alpaca: $0, connectionId: connectionId, accountId: accountId) }
    }

    /// `GET /v2/orders/{id}`.
    public func order(brokerOrderId: String) async throws -> Order {
        let (accountId, order) = try await reading(nil) { try await fetch(AlpacaOrder.self, .order(id: brokerOrderId)) }
        return try Order(alpaca: order, connectionId: connectionId, accountId: accountId)
    }

    /// `GET /v2/orders:by_client_order_id`; Alpaca's 404 there means no such order, answered as `nil`.
    public func order(clientOrderId: String, accountId: String) async throws -> Order? {
        let (accountId, response) = try await reading(accountId) { try await exchange(.order(clientOrderId: clientOrderId)) }
        if response.status == 404 { return nil }
        guard (200..<300).contains(response.status) else {
            throw AlpacaErrors.error(for: response, now: configuration.now())
        }
        let order = try decode(AlpacaOrder.self, from: response, what: "/v2/orders:by_client_order_id")
        return try Order(alpaca: order, connectionId: connectionId, accountId: accountId)
    }

    /// Emulated: Alpaca has no preview, so the gateway estimates from the latest quote and the account's buying
    /// power. The price is the limit (or stop) price when there is one, else the ask for a buy and the bid for a sell.
    public func previewOrder(_ request: OrderRequest) async throws -> OrderPreview {
        try validate(request)
        let reference = request.instrument
        async let accountCall = account()
        async let quoteCall = quotesOrWarning([reference])
        let account = try await accountCall
        try check(request.accountId, against: account.id)
        let (quotes, quoteWarning) = try await quoteCall
        let quote = quotes.first
        var warnings: [String] = quoteWarning.map { [$0] } ?? []

        let price: Decimal?
        switch request.type {
        case .limit, .stopLimit: price = request.limitPrice
        case .stop: price = request.stopPrice
        case .market: price = request.side.isBuy ? (quote?.ask ?? quote?.last) : (quote?.bid ?? quote?.last)
        }
        // A notional order costs what it names; the price only estimates the units it buys.
        let cost = request.notional ?? price.flatMap { price in request.quantity.map { price * $0 } }
        let spends = request.side.isBuy || request.side == .sellShort
        let buyingPowerAfter = spends ? account.buyingPower.flatMap { power in cost.map { power - $0 } } : nil
        if cost == nil { warnings.append("no recent quote: the cost is not estimated") }
        if spends, let cost, let buyingPower = account.buyingPower, cost > buyingPower {
            warnings.append("the estimated cost exceeds the buying power")
        }
        let currency = AlpacaSymbol.currency(
            symbol: reference.alpacaSymbol,
            assetClass: reference.impliedAssetClass == .crypto ? .crypto : .equity
        )
        return OrderPreview(
            id: RandomIdentifier.uuid(),
            expiresAt: configuration.now().addingTimeInterval(configuration.previewLifetime),
            request: request,
            currency: currency,
            estimatedPrice: price,
            estimatedCost: cost,
            buyingPowerAfter: buyingPowerAfter,
            warnings: warnings
        )
    }

    /// `POST /v2/orders` with the gateway's client order id, after the request passes Alpaca's rules (`AlpacaRules`);
    /// Alpaca refuses a client order id it has seen on the account.
    public func placeOrder(_ request: OrderRequest) async throws -> Order {
        try validate(request)
        guard let clientOrderId = request.clientOrderId else {
            throw GatewayError.invalid("clientOrderId", "is required")
        }
        let accountId = try await resolveAccountId(request.accountId)
        let body = try encode(AlpacaOrderRequest(request, clientOrderId: clientOrderId))
        let order = try await fetch(AlpacaOrder.self, .placeOrder(), body: body)
        return try Order(alpaca: order, connectionId: connectionId, accountId: accountId)
    }

    /// `PATCH` replaces the order: Alpaca answers with a new order (new id, `replaces` = the old id) and the old one
    /// becomes `replaced`. The returned order is the new one, so its `brokerOrderId` changes.
    public func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order {
        let problems = AlpacaRules.problems(for: modification, of: order)
        guard problems.isEmpty else { throw GatewayError.unprocessable(problems).with(broker: .alpaca) }
        let id = try brokerId(of: order)
        let body = try encode(AlpacaReplaceRequest(modification))
        let response = try await exchange(.replaceOrder(id: id), body: body)
        if response.status == 422 {
            // Either the change breaks a rule or the order is past changing: tell the two apart by its state.
            let error = AlpacaErrors.error(for: response, now: configuration.now())
            let current = try await fetch(AlpacaOrder.self, .order(id: id))
            let status = try OrderStatus(alpaca: current.status)
            if !status.isActive { throw stateConflict(id: id, status: current.status, verb: "changed", cause: error) }
            throw error
        }
        guard (200..<300).contains(response.status) else {
            throw AlpacaErrors.error(for: response, now: configuration.now())
        }
        let replacement = try decode(AlpacaOrder.self, from: response, what: "/v2/orders/{id}")
        if let replaces = replacement.replaces, replaces != id {
            context.logger.warning(
                "alpaca replacement names another order",
                metadata: ["order": "\(id)", "replaces": "\(replaces)"]
            )
        }
        return try Order(alpaca: replacement, connectionId: connectionId, accountId: order.accountId)
    }

    /// `DELETE` answers 204 with no body; the order's state after the request is read back with a `GET`
    /// (usually `pending_cancel` or `canceled`). A 422 means the order can no longer be canceled: `conflict`,
    /// naming its final state.
    public func cancelOrder(_ order: Order) async throws -> Order {
        let id = try brokerId(of: order)
        let response = try await exchange(.cancelOrder(id: id))
        if response.status == 422 {
            let error = AlpacaErrors.error(for: response, now: configuration.now())
            let current = try await fetch(AlpacaOrder.self, .order(id: id))
            throw stateConflict(id: id, status: current.status, verb: "canceled", cause: error)
        }
        guard (200..<300).contains(response.status) else {
            throw AlpacaErrors.error(for: response, now: configuration.now())
        }
        let current = try await fetch(AlpacaOrder.self, .order(id: id))
        return try Order(alpaca: current, connectionId: connectionId, accountId: order.accountId)
    }

    // MARK: Market data

    /// Latest quotes and trades for equities and crypto in one fan-out; instruments of other asset classes are refused, and
    /// ones Alpaca has no data for are left out.
    public func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote] {
        try await marketQuotes(instruments)
    }

    /// Bars from Alpaca's market data API: `/v2/stocks/bars` for equities, `/v1beta3/crypto/us/bars` for crypto
    /// (see `marketCandles`); a quiet stock can answer fewer than `count`.
    public func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        try await marketCandles(instrument, interval: interval, count: count)
    }

    /// The crypto order book from `/v1beta3/crypto/us/latest/orderbooks`; Alpaca has no stock order book.
    public func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook {
        try await cryptoOrderBook(instrument, depth: depth)
    }

    /// Searches `GET /v2/assets` (filtered by asset class) by symbol and name, best matches first, at most
    /// ``AlpacaConfiguration/searchLimit``; asset classes Alpaca does not trade answer an empty list.
    public func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument] {
        let needle = text.trimmingCharacters(in: .whitespaces).uppercased()
        guard !needle.isEmpty else {
            throw GatewayError.unprocessable([FieldProblem(field: "text", problem: "must not be empty")])
        }
        let alpacaClass: String?
        switch assetClass {
        case nil: alpacaClass = nil
        case .equity, .etf: alpacaClass = "us_equity"
        case .crypto: alpacaClass = "crypto"
        default: return []
        }
        let assets = try await fetch(
            [AlpacaAsset].self,
            .assets(assetClass: alpacaClass),
            timeout: configuration.assetListTimeout,
            maxResponseBytes: configuration.assetListMaxBytes
        )
        return AlpacaSearch.rank(assets, needle: needle, limit: configuration.searchLimit).map(Instrument.init(alpaca:))
    }

    // MARK: Helpers

    /// The account, fetched fresh; its id is remembered, and saved with the connection when it is new.
    func account() async throws -> AlpacaAccount {
        let account = try await fetch(AlpacaAccount.self, .account())
        let known = session.accountId.withLock { known in
            defer { known = account.id }
            return known
        }
        if known != account.id, context.credentials[Self.accountIdKey] != account.id {
            var credentials = context.credentials
            credentials[Self.accountIdKey] = account.id
            do {
                try await context.saveCredentials(credentials)
            } catch {
                // Only a saving: the next adapter of this connection looks the id up again.
                context.logger.warning("could not keep the Alpaca account id", metadata: ["error": "\(error)"])
            }
        }
        return account
    }

    /// A read of the connection's account stamped with its id. With the id known (kept with the connection), only
    /// the read is made. Else the id is looked up first; if that lookup fails, the read is still made, so that its
    /// own error is the one reported (an account-endpoint failure never hides the read's answer or error); only a
    /// read that succeeds without an id to stamp fails with the lookup's error.
    func reading<T: Sendable>(
        _ requested: String?,
        _ read: @Sendable () async throws -> T
    ) async throws
        -> (accountId: String, value: T)
    {
        let id: String
        if let known = session.accountId.withLock({ $0 }) {
            id = known
        } else {
            do {
                id = try await account().id
            } catch let lookup {
                try Task.checkCancellation()
                _ = try await read()
                throw lookup
            }
        }
        try check(requested, against: id)
        return (id, try await read())
    }

    /// The connection's account id (kept, or fetched once), checked against the one a caller named.
    func resolveAccountId(_ requested: String?) async throws -> String {
        let known = session.accountId.withLock { $0 }
        let id: String
        if let known { id = known } else { id = try await account().id }
        try check(requested, against: id)
        return id
    }

    func check(_ requested: String?, against id: String) throws {
        if let requested, requested != id {
            throw GatewayError(.notFound, "this Alpaca connection has no account '\(requested)'", broker: .alpaca)
        }
    }

    func validate(_ request: OrderRequest) throws {
        let problems = AlpacaRules.problems(for: request)
        guard problems.isEmpty else { throw GatewayError.unprocessable(problems).with(broker: .alpaca) }
    }

    func brokerId(of order: Order) throws -> String {
        guard let id = order.brokerOrderId, !id.isEmpty else {
            throw GatewayError.invalid("brokerOrderId", "is required to address an Alpaca order")
        }
        return id
    }

    func checkWatchlistName(_ name: String) throws {
        if name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw GatewayError.unprocessable([FieldProblem(field: "name", problem: "must not be empty")])
        }
    }

    func stateConflict(id: String, status: String, verb: String, cause: GatewayError) -> GatewayError {
        GatewayError(
            .conflict,
            "Alpaca order \(id) is \(status) and can no longer be \(verb)",
            broker: .alpaca,
            retryable: false,
            brokerCode: cause.brokerCode ?? "422"
        )
    }
}

extension GatewayError {
    func with(broker: BrokerKind) -> GatewayError {
        var copy = self
        copy.broker = broker
        return copy
    }
}
