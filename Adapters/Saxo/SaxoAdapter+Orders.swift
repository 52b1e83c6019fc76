import Foundation
import GatewayCore
public import GatewayModel
import Logging

extension SaxoAdapter {
    /// Open orders (`port/v1/orders/me`). Saxo's portfolio has no closed orders: `closed` answers `not_supported`,
    /// `all` answers the open ones.
    public func orders(_ query: OrderQuery) async throws -> [Order] {
        if query.state == .closed {
            throw GatewayError(
                .notSupported,
                "Saxo lists open orders only: closed orders are not available",
                broker: .saxo
            )
        }
        if let accountId = query.accountId { _ = try await saxoAccount(accountId) }
        var orders = try await canonicalOrders(try await fetchList(SaxoOrder.self, .openOrders()))
        if let accountId = query.accountId { orders = orders.filter { $0.accountId == accountId } }
        if !query.symbols.isEmpty {
            let symbols = Set(query.symbols.map { $0.uppercased() })
            orders = orders.filter { symbols.contains($0.instrument.symbol.uppercased()) }
        }
        if let after = query.after { orders = orders.filter { ($0.createdAt ?? .distantFuture) > after } }
        if let until = query.until { orders = orders.filter { ($0.createdAt ?? .distantPast) <= until } }
        return Array(orders.prefix(max(query.limit, 1)))
    }

    /// `port/v1/orders/{ClientKey}/{OrderId}`, and once Saxo no longer lists the order there (an empty list: it
    /// filled, was cancelled, expired or was refused), its order activities (`cs/v1/audit/orderactivities`), which
    /// say how it ended. `not_found` only when neither knows the id.
    public func order(brokerOrderId: String) async throws -> Order {
        let clientKey = try await self.clientKey()
        if let order = try await openOrder(clientKey: clientKey, orderId: brokerOrderId, known: nil) { return order }
        if let order = try await auditedOrder(orderId: brokerOrderId, known: nil) { return order }
        throw GatewayError(
            .notFound,
            "Saxo knows no order '\(brokerOrderId)': it is neither open nor in Saxo's order activities",
            broker: .saxo
        )
    }

    /// How far back `order(clientOrderId:accountId:)` looks in the audit for an order that left the open orders:
    /// reconciliation asks about placements whose answer was lost moments ago, and a week spans a long outage.
    static let auditLookback: TimeInterval = 7 * 86_400

    /// Searches the open orders for one placed with `ExternalReference` = `clientOrderId`, then the latest audit
    /// entry of each order active in the last `auditLookback` (Saxo does not make the reference unique: the most
    /// recent such order wins). `nil` when neither has one.
    public func order(clientOrderId: String, accountId: String) async throws -> Order? {
        let account = try await saxoAccount(accountId)
        let open = try await fetchList(SaxoOrder.self, .openOrders())
        if let match = open.first(where: {
            $0.externalReference == clientOrderId && ($0.accountId == nil || $0.accountId == accountId)
        }) {
            return try await canonicalOrders([match]).first
        }
        let since = configuration.now().addingTimeInterval(-Self.auditLookback)
        let latest = try await fetchList(
            SaxoOrderActivity.self,
            .latestOrderActivities(accountKey: account.accountKey, from: since)
        )
        let matches = latest.filter {
            $0.externalReference == clientOrderId && ($0.accountId == nil || $0.accountId == accountId)
        }
        guard let match = matches.sorted(by: SaxoOrderActivity.chronological).last else { return nil }
        return try await auditedOrder(orderId: match.orderId, known: nil)
    }

    /// `trade/v2/orders/precheck` with the `Costs` field group.
    public func previewOrder(_ request: OrderRequest) async throws -> OrderPreview {
        try validate(request)
        let account = try await saxoAccount(request.accountId)
        let instrument = try await resolve(request.instrument)
        let identity = try saxoIdentity(of: instrument)
        let body = try encode(
            SaxoOrderRequest(
                request,
                accountKey: account.accountKey,
                uic: identity.uic,
                assetType: identity.assetType,
                externalReference: nil,
                fieldGroups: ["Costs"]
            )
        )
        let precheck = try await fetch(
            SaxoPrecheck.self,
            .precheck(),
            body: body,
            requestId: RandomIdentifier.uuid()
        )
        return try OrderPreview(
            saxo: precheck,
            request: request,
            id: RandomIdentifier.uuid(),
            expiresAt: configuration.now().addingTimeInterval(configuration.previewLifetime),
            accountCurrency: account.currency ?? instrument.currency ?? ""
        )
    }

    /// `POST trade/v2/orders` with `ManualOrder: false`, `ExternalReference` and `X-Request-ID` = the client order
    /// id (a repeat within 15 s with the same id is refused 409 rather than placed twice), then reads the order back:
    /// from the open orders, else (it filled or ended while the placement was answered) from its order activities,
    /// so a fill in flight is in the answer with its quantity and average price. An order neither lists yet, or a
    /// read-back that fails, is reported `pending_new` (see `Order(placed:…)`), for the order pipeline to reconcile
    /// by client order id.
    public func placeOrder(_ request: OrderRequest) async throws -> Order {
        try validate(request)
        guard let clientOrderId = request.clientOrderId else {
            throw GatewayError.invalid("clientOrderId", "is required")
        }
        let account = try await saxoAccount(request.accountId)
        let instrument = try await resolve(request.instrument)
        let identity = try saxoIdentity(of: instrument)
        let body = try encode(
            SaxoOrderRequest(
                request,
                accountKey: account.accountKey,
                uic: identity.uic,
                assetType: identity.assetType,
                externalReference: clientOrderId
            )
        )
        let placed = try await fetch(SaxoOrderResponse.self, .placeOrder(), body: body, requestId: clientOrderId)
        guard let orderId = placed.orderId else {
            if let info = placed.errorInfo { throw SaxoErrors.error(for: info, status: 200) }
            throw SaxoErrors.malformed("an order placement answer without an OrderId")
        }
        do {
            let clientKey = try await clientKey(of: account)
            if var order = try await openOrder(clientKey: clientKey, orderId: orderId, known: instrument) {
                if order.clientOrderId == orderId { order.clientOrderId = clientOrderId }
                return order
            }
            if var order = try await auditedOrder(orderId: orderId, known: instrument) {
                if order.clientOrderId == orderId { order.clientOrderId = clientOrderId }
                return order
            }
            return Order(
                placed: request,
                brokerOrderId: orderId,
                clientOrderId: clientOrderId,
                instrument: instrument,
                now: configuration.now(),
                brokerStatus: "NotYetListed"
            )
        } catch let error as GatewayError where error.code != .unauthorized {
            context.logger.warning(
                "saxo order placed but not read back",
                metadata: ["order": "\(orderId)", "code": "\(error.code)"]
            )
            return Order(
                placed: request,
                brokerOrderId: orderId,
                clientOrderId: clientOrderId,
                instrument: instrument,
                now: configuration.now(),
                brokerStatus: "ReadBackFailed"
            )
        }
    }

    /// `PATCH trade/v2/orders` with the whole order (Saxo wants type, amount, price and duration each time), then
    /// reads it back: from the open orders, else (the change, to Market say, filled it) from its order activities.
    /// The type may change (the seed's Market → Limit → Market). A 404 (or `OrderNotFound`) means the order filled
    /// or went away first: `conflict`.
    public func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order {
        let id = try brokerId(of: order)
        try validate(modification, of: order)
        let account = try await saxoAccount(order.accountId)
        let instrument =
            order.instrument.saxoIdentity != nil
            ? order.instrument : try await resolve(InstrumentReference(symbol: order.instrument.symbol, assetClass: order.instrument.assetClass))
        let identity = try saxoIdentity(of: instrument)
        let body = try encode(
            SaxoOrderChange(order, modification, orderId: id, accountKey: account.accountKey, assetType: identity.assetType)
        )
        let response = try await exchange(.changeOrder(), body: body, requestId: RandomIdentifier.uuid())
        try checkStillThere(response, id: id, verb: "changed")
        let changed = try decode(SaxoOrderResponse.self, from: response, what: "/trade/v2/orders")
        if changed.orderId == nil, let info = changed.errorInfo {
            throw goneToConflict(SaxoErrors.error(for: info, status: response.status), id: id, verb: "changed")
        }
        let clientKey = try await clientKey(of: account)
        if var current = try await openOrder(clientKey: clientKey, orderId: changed.orderId ?? id, known: instrument) {
            if current.clientOrderId == current.brokerOrderId { current.clientOrderId = order.clientOrderId }
            return current
        }
        if var ended = try await auditedOrder(orderId: changed.orderId ?? id, known: instrument) {
            if ended.clientOrderId == ended.brokerOrderId { ended.clientOrderId = order.clientOrderId }
            return ended
        }
        // Gone from the open orders at once, and not yet in the audit: the change (to Market, say) filled it.
        var filled = order.applying(modification)
        filled.status = .filled
        filled.filledQuantity = filled.quantity
        filled.updatedAt = configuration.now()
        filled.brokerStatus = "NotInOpenOrders"
        return filled
    }

    /// `DELETE trade/v2/orders/{OrderId}?AccountKey=`. Saxo answers once the order is removed, so the order comes
    /// back `canceled`. A 404 (or `OrderNotFound` on the leg) means it filled or went away first: `conflict`.
    public func cancelOrder(_ order: Order) async throws -> Order {
        let id = try brokerId(of: order)
        let account = try await saxoAccount(order.accountId)
        let response = try await exchange(.cancelOrder(orderId: id, accountKey: account.accountKey))
        try checkStillThere(response, id: id, verb: "canceled")
        let answer = try decode(SaxoCancelResponse.self, from: response, what: "/trade/v2/orders/{OrderIds}")
        if let leg = answer.orders?.first(where: { $0.orderId == id || $0.orderId == nil }), let info = leg.errorInfo {
            throw goneToConflict(SaxoErrors.error(for: info, status: response.status), id: id, verb: "canceled")
        }
        var canceled = order
        canceled.status = .canceled
        canceled.updatedAt = configuration.now()
        canceled.brokerStatus = "Cancelled"
        return canceled
    }

    // MARK: Helpers

    func clientKey(of account: SaxoAccount) async throws -> String {
        if let key = account.clientKey { return key }
        return try await clientKey()
    }

    /// One open order, or `nil` when Saxo no longer lists it.
    func openOrder(clientKey: String, orderId: String, known: Instrument?) async throws -> Order? {
        let list = try await fetchList(SaxoOrder.self, .order(clientKey: clientKey, orderId: orderId))
        guard let raw = list.first(where: { $0.orderId == orderId }) ?? list.first else { return nil }
        if let known { remember([known]) }
        return try await canonicalOrders([raw]).first
    }

    /// An order that has left the open orders, from its audit entries; `nil` when the audit has none.
    func auditedOrder(orderId: String, known: Instrument?) async throws -> Order? {
        let entries = try await fetchList(SaxoOrderActivity.self, .orderActivities(orderId: orderId))
        guard let sample = entries.last(where: { $0.orderId == orderId }) else { return nil }
        var known = known
        if known == nil, !entries.contains(where: { $0.displayAndFormat?.symbol != nil }), let uic = sample.uic,
            let assetType = sample.assetType
        {
            known = try await instruments(for: [(uic, assetType)])[Self.key(uic: uic, assetType: assetType)]
        }
        guard let order = try Order(saxoActivities: entries, brokerOrderId: orderId, connectionId: connectionId, known: known)
        else { return nil }
        remember([order.instrument])
        return order
    }

    /// Maps Saxo orders, looking up (once, per asset type) the instruments of those without `DisplayAndFormat`.
    func canonicalOrders(_ raw: [SaxoOrder]) async throws -> [Order] {
        let unnamed = raw.compactMap { order -> (Int, String)? in
            guard order.displayAndFormat?.symbol == nil, let uic = order.uic, let assetType = order.assetType else {
                return nil
            }
            return (uic, assetType)
        }
        let known = try await instruments(for: unnamed)
        var orders = try raw.map { order in
            try Order(
                saxo: order,
                connectionId: connectionId,
                known: order.uic.flatMap { uic in order.assetType.flatMap { known[Self.key(uic: uic, assetType: $0)] } }
            )
        }
        remember(orders.map(\.instrument))
        for index in orders.indices where orders[index].filledQuantity > 0 && orders[index].averageFillPrice == nil {
            orders[index].averageFillPrice = try await averageFillPrice(orderId: orders[index].brokerOrderId ?? orders[index].id)
        }
        return orders
    }

    /// The average price of what a partly filled open order has filled so far. Saxo's open order says how much
    /// (`FilledAmount`) but not at what price; its fills in the order-activity audit do (`Fill` entries carry
    /// `AveragePrice`, the average of every fill so far; developer.saxo/openapi/learn/audit-orderactivities).
    /// nil when the audit has no fill of the order yet.
    func averageFillPrice(orderId: String) async throws -> Decimal? {
        let entries = try await fetchList(SaxoOrderActivity.self, .orderActivities(orderId: orderId))
        return entries.filter { $0.orderId == orderId && $0.averagePrice != nil }
            .sorted(by: SaxoOrderActivity.chronological).last?.averagePrice
    }

    func validate(_ request: OrderRequest) throws {
        var problems = request.problems()
        if request.notional != nil { problems.append(OrderRequest.notionalProblem(at: .saxo)) }
        if request.instrument.impliedAssetClass.saxoAssetTypes.isEmpty {
            problems.append(
                FieldProblem(
                    field: "assetClass",
                    problem: "Saxo orders through this gateway support fx, equity, etf, fund, bond, cfd and future"
                )
            )
        }
        guard problems.isEmpty else { throw GatewayError.unprocessable(problems).with(broker: .saxo) }
    }

    func validate(_ modification: OrderModification, of order: Order) throws {
        var problems = modification.problems()
        let type = modification.type ?? order.type
        if type.needsLimitPrice, (modification.limitPrice ?? order.limitPrice) == nil {
            problems.append(FieldProblem(field: "limitPrice", problem: "is required for \(type.rawValue) orders"))
        }
        if type.needsStopPrice, (modification.stopPrice ?? order.stopPrice) == nil {
            problems.append(FieldProblem(field: "stopPrice", problem: "is required for \(type.rawValue) orders"))
        }
        if !type.needsLimitPrice, modification.limitPrice != nil {
            problems.append(FieldProblem(field: "limitPrice", problem: "is not allowed for \(type.rawValue) orders"))
        }
        if modification.timeInForce == .gtd, order.expiresAt == nil {
            problems.append(FieldProblem(field: "timeInForce", problem: "gtd needs an expiry the order does not have"))
        }
        if !type.needsStopPrice, modification.stopPrice != nil {
            problems.append(FieldProblem(field: "stopPrice", problem: "is not allowed for \(type.rawValue) orders"))
        }
        guard problems.isEmpty else { throw GatewayError.unprocessable(problems).with(broker: .saxo) }
    }

    func brokerId(of order: Order) throws -> String {
        guard let id = order.brokerOrderId, !id.isEmpty else {
            throw GatewayError.invalid("brokerOrderId", "is required to address a Saxo order")
        }
        return id
    }

    func saxoIdentity(of instrument: Instrument) throws -> (uic: Int, assetType: String) {
        guard let identity = instrument.saxoIdentity else {
            throw GatewayError(.internalError, "the instrument \(instrument) has no Saxo identity", broker: .saxo)
        }
        return identity
    }

    /// Fails unless 2xx; a 404 (the order is gone) becomes `conflict`.
    func checkStillThere(_ response: BrokerResponse, id: String, verb: String) throws {
        guard !(200..<300).contains(response.status) else { return }
        throw goneToConflict(SaxoErrors.error(for: response), id: id, verb: verb)
    }

    func goneToConflict(_ error: GatewayError, id: String, verb: String) -> GatewayError {
        guard error.code == .notFound else { return error }
        return GatewayError(
            .conflict,
            "Saxo order '\(id)' cannot be \(verb): it is already filled or gone",
            broker: .saxo,
            retryable: false,
            brokerCode: error.brokerCode
        )
    }
}

extension Order {
    /// The order with a modification applied, as Saxo's `PATCH` applies it (see `SaxoOrderChange`).
    func applying(_ modification: OrderModification) -> Order {
        var order = self
        let type = modification.type ?? type
        order.type = type
        order.quantity = modification.quantity ?? quantity
        order.limitPrice = type.needsLimitPrice ? (modification.limitPrice ?? limitPrice) : nil
        order.stopPrice = type.needsStopPrice ? (modification.stopPrice ?? stopPrice) : nil
        order.timeInForce = modification.timeInForce ?? timeInForce
        return order
    }
}
