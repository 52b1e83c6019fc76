public import Foundation
import GatewayCore
public import GatewayModel
import Logging

extension KrakenAdapter {
    // MARK: Reading orders

    /// `state=open` from `OpenOrders`, `closed` from `ClosedOrders` (Kraken's newest 50, `start`/`end` from `after` and
    /// `until`), `all` from both; with the markets, to name each order's pair. Filtered by symbol and time here, newest
    /// first, at most `limit`.
    public func orders(_ query: OrderQuery) async throws -> [Order] {
        try check(query.accountId)
        let markets = try await markets()
        var symbols: Set<String> = []
        for (index, symbol) in query.symbols.enumerated() {
            let (id, pair) = try krakenPair(of: InstrumentReference(symbol: symbol), field: "symbols[\(index)]", in: markets)
            symbols.insert(markets.instrument(id: id, pair: pair).symbol)
        }
        var listed: [(String, KrakenOrder)] = []
        if query.state != .closed {
            listed += try await fetch(KrakenOpenOrders.self, privateCall("OpenOrders")).open.map { ($0.key, $0.value) }
        }
        if query.state != .open {
            var fields: [(String, String)] = []
            if let after = query.after { fields.append(("start", String(Int64(after.timeIntervalSince1970.rounded(.down))))) }
            if let until = query.until { fields.append(("end", String(Int64(until.timeIntervalSince1970.rounded(.up))))) }
            listed += try await fetch(KrakenClosedOrders.self, privateCall("ClosedOrders", fields)).closed.map { ($0.key, $0.value) }
        }
        var orders = try listed.map { txid, order in
            try Order(kraken: order, txid: txid, markets: markets, connectionId: connectionId, accountId: Self.accountId)
        }
        if !symbols.isEmpty { orders = orders.filter { symbols.contains($0.instrument.symbol) } }
        if let after = query.after { orders = orders.filter { ($0.createdAt ?? .distantPast) > after } }
        if let until = query.until { orders = orders.filter { ($0.createdAt ?? .distantFuture) <= until } }
        orders.sort { ($0.createdAt ?? .distantPast, $0.id) > ($1.createdAt ?? .distantPast, $1.id) }
        return Array(orders.prefix(max(1, query.limit)))
    }

    /// `QueryOrders txid=<id>`: the order, or `not_found` when Kraken's answer leaves it out (or says
    /// `EOrder:Invalid order`).
    public func order(brokerOrderId: String) async throws -> Order {
        let markets = try await markets()
        return try await readOrder(txid: brokerOrderId, markets: markets)
    }

    /// `OpenOrders cl_ord_id=<id>`, then `ClosedOrders cl_ord_id=<id>`: the order placed with that client order id, or
    /// nil. The id travels as ``KrakenClientOrderId`` writes it; the order found keeps the gateway's spelling.
    public func order(clientOrderId: String, accountId: String) async throws -> Order? {
        try check(accountId)
        let wire = KrakenClientOrderId.wire(clientOrderId)
        let markets = try await markets()
        let open = try await fetch(KrakenOpenOrders.self, privateCall("OpenOrders", [("cl_ord_id", wire)])).open
        var found = open.first { $0.value.clOrdId == wire }
        if found == nil {
            let closed = try await fetch(KrakenClosedOrders.self, privateCall("ClosedOrders", [("cl_ord_id", wire)])).closed
            found = closed.first { $0.value.clOrdId == wire }
        }
        guard let found else { return nil }
        var order = try Order(kraken: found.value, txid: found.key, markets: markets, connectionId: connectionId, accountId: Self.accountId)
        order.clientOrderId = clientOrderId
        return order
    }

    /// Refused: Kraken has no preview call (`validate=true` checks an order without estimating it).
    public func previewOrder(_ request: OrderRequest) async throws -> OrderPreview {
        throw GatewayError.notSupported("previewOrder", broker: kind)
    }

    // MARK: Placing, cancelling

    /// `AddOrder pair=<id>&type=<side>&ordertype=market|limit&volume=<q>[&price=<limit>][&timeinforce=IOC]&cl_ord_id=…`,
    /// then `QueryOrders` for the order as Kraken holds it. When that read fails the order is reported as placed
    /// (`open`), from the request.
    public func placeOrder(_ request: OrderRequest) async throws -> Order {
        let problems = KrakenRules.problems(for: request)
        guard problems.isEmpty else {
            var error = GatewayError.unprocessable(problems)
            error.broker = .kraken
            throw error
        }
        try check(request.accountId)
        let quantity = try request.units(at: .kraken)
        let markets = try await markets()
        let (id, pair) = try krakenPair(of: request.instrument, field: "symbol", in: markets)
        var fields: [(String, String)] = [
            ("pair", id), ("type", request.side == .buy ? "buy" : "sell"),
            ("ordertype", request.type == .market ? "market" : "limit"), ("volume", DecimalText.format(quantity)),
        ]
        if request.type == .limit, let limit = request.limitPrice { fields.append(("price", DecimalText.format(limit))) }
        if request.timeInForce == .ioc { fields.append(("timeinforce", "IOC")) }
        let clientOrderId = request.clientOrderId
        if let clientOrderId { fields.append(("cl_ord_id", KrakenClientOrderId.wire(clientOrderId))) }
        let placement = try await fetch(KrakenPlacement.self, privateCall("AddOrder", fields, isWrite: true))
        guard let txid = placement.txid?.first, !txid.isEmpty else {
            throw KrakenErrors.malformed("an AddOrder answer without a txid")
        }
        do {
            var order = try await readOrder(txid: txid, markets: markets)
            if let clientOrderId { order.clientOrderId = clientOrderId }
            return order
        } catch {
            context.logger.warning(
                "kraken order placed but not read back",
                metadata: ["error": "\((error as? GatewayError)?.code.rawValue ?? "other")"]
            )
            return Order(
                id: txid,
                brokerOrderId: txid,
                clientOrderId: clientOrderId ?? txid,
                connectionId: connectionId,
                broker: .kraken,
                accountId: Self.accountId,
                instrument: markets.instrument(id: id, pair: pair),
                side: request.side,
                type: request.type,
                timeInForce: request.timeInForce,
                quantity: quantity,
                limitPrice: request.type == .limit ? request.limitPrice : nil,
                status: .open
            )
        }
    }

    /// `CancelOrder txid=<id>`, then `QueryOrders` for the order as it ends.
    ///
    /// - `EOrder:Unknown order` / `EOrder:Invalid order`: the order is read; filled → `conflict`; already canceled or
    ///   expired → returned as it is (cancelling twice is harmless).
    /// - `pending: true` → `pending_cancel`.
    /// - When the read after a successful cancel fails, the order is reported canceled from what the gateway knew.
    public func cancelOrder(_ order: Order) async throws -> Order {
        guard let txid = order.brokerOrderId, !txid.isEmpty else {
            var error = GatewayError.invalid("brokerOrderId", "is required to address a Kraken order")
            error.broker = .kraken
            throw error
        }
        let markets = try await markets()
        let cancellation: KrakenCancellation
        do {
            cancellation = try await fetch(KrakenCancellation.self, privateCall("CancelOrder", [("txid", txid)], isWrite: true))
        } catch let error as GatewayError where KrakenErrors.isNotFound(error) {
            let current = try await readOrder(txid: txid, markets: markets)
            if current.status == .filled { throw stateConflict(txid: txid, status: .filled) }
            if !current.status.isActive { return keepingClientId(current, of: order) }
            throw error
        }
        do {
            var current = keepingClientId(try await readOrder(txid: txid, markets: markets), of: order)
            if current.status.isActive, cancellation.pending == true { current.status = .pendingCancel }
            return current
        } catch {
            var canceled = order
            canceled.status = cancellation.pending == true ? .pendingCancel : .canceled
            return canceled
        }
    }

    /// `AmendOrder txid=<id>[&order_qty=<new total>][&limit_price=<new limit>]`, then `QueryOrders` for the order as
    /// amended. Kraken amends in place: the txid, the client order id and (where it can) the queue priority stay. Only
    /// a limit order's quantity and limit price change; anything else is unprocessable before a call. An order Kraken
    /// no longer knows (`EOrder:Unknown order`) is read: filled → `conflict`, else the error stands. When the read after
    /// a successful amend fails, the order is reported with the change applied.
    public func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order {
        var problems = modification.problems()
        if order.type != .limit {
            problems.append(FieldProblem(field: "type", problem: "Kraken amends limit orders only; cancel and place again"))
        }
        if let type = modification.type, type != order.type {
            problems.append(FieldProblem(field: "type", problem: "Kraken cannot change an order's type; cancel and place again"))
        }
        if modification.stopPrice != nil {
            problems.append(FieldProblem(field: "stopPrice", problem: "Kraken amends a limit order's quantity and limit price only"))
        }
        if let timeInForce = modification.timeInForce, timeInForce != order.timeInForce {
            problems.append(FieldProblem(field: "timeInForce", problem: "Kraken cannot change an order's time in force"))
        }
        if modification.quantity == nil, modification.limitPrice == nil {
            problems.append(FieldProblem(field: "modification", problem: "must change quantity or limitPrice"))
        }
        guard problems.isEmpty else {
            var error = GatewayError.unprocessable(problems)
            error.broker = .kraken
            throw error
        }
        guard let txid = order.brokerOrderId, !txid.isEmpty else {
            var error = GatewayError.invalid("brokerOrderId", "is required to address a Kraken order")
            error.broker = .kraken
            throw error
        }
        var fields: [(String, String)] = [("txid", txid)]
        if let quantity = modification.quantity { fields.append(("order_qty", DecimalText.format(quantity))) }
        if let limit = modification.limitPrice { fields.append(("limit_price", DecimalText.format(limit))) }
        let markets = try await markets()
        do {
            _ = try await fetch(KrakenAmendment.self, privateCall("AmendOrder", fields, isWrite: true))
        } catch let error as GatewayError where KrakenErrors.isNotFound(error) {
            let current = try await readOrder(txid: txid, markets: markets)
            if current.status == .filled { throw stateConflict(txid: txid, status: .filled) }
            throw error
        }
        do {
            return keepingClientId(try await readOrder(txid: txid, markets: markets), of: order)
        } catch {
            var amended = order
            if let quantity = modification.quantity { amended.quantity = quantity }
            if let limit = modification.limitPrice { amended.limitPrice = limit }
            return amended
        }
    }

    // MARK: Helpers

    func readOrder(txid: String, markets: KrakenMarkets) async throws -> Order {
        let found = try await fetch([String: KrakenOrder].self, privateCall("QueryOrders", [("txid", txid), ("trades", "true")]))
        guard let wire = found[txid] else {
            throw GatewayError(.notFound, "Kraken has no order \(txid)", broker: .kraken, retryable: false)
        }
        return try Order(kraken: wire, txid: txid, markets: markets, connectionId: connectionId, accountId: Self.accountId)
    }

    func keepingClientId(_ current: Order, of known: Order) -> Order {
        var order = current
        // Kraken echoes the id as it travelled (``KrakenClientOrderId``), or the txid when there was none.
        if order.clientOrderId == order.brokerOrderId || order.clientOrderId == KrakenClientOrderId.wire(known.clientOrderId) {
            order.clientOrderId = known.clientOrderId
        }
        return order
    }

    func stateConflict(txid: String, status: OrderStatus) -> GatewayError {
        GatewayError(
            .conflict,
            "Kraken order \(txid) is \(status.rawValue) and can no longer be canceled",
            broker: .kraken,
            retryable: false
        )
    }
}

/// Kraken's order rules, checked before anything is sent so the client gets a field-level `unprocessable` instead of
/// a round trip (SPEC `AddOrder`: `ordertype`, `type`, `volume`, `price`, `timeinforce`).
enum KrakenRules {
    static func problems(for request: OrderRequest) -> [FieldProblem] {
        var problems = request.problems()
        if request.instrument.assetClass.map({ $0 != .crypto }) ?? false {
            problems.append(FieldProblem(field: "symbol", problem: "Kraken's spot API trades crypto pairs written BASE/QUOTE, such as BTC/USD"))
        }
        if request.type != .market, request.type != .limit {
            problems.append(FieldProblem(field: "type", problem: "this Kraken adapter places market and limit orders"))
        }
        if request.notional != nil { problems.append(OrderRequest.notionalProblem(at: .kraken)) }
        if request.side == .sellShort || request.side == .buyToCover {
            problems.append(FieldProblem(field: "side", problem: "Kraken's spot orders are buy or sell (no short selling without margin)"))
        }
        if request.timeInForce != .gtc, request.timeInForce != .ioc {
            problems.append(FieldProblem(field: "timeInForce", problem: "Kraken orders here are gtc or ioc"))
        }
        return problems
    }
}
