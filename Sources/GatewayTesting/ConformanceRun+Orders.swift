import Foundation
import GatewayCore
import GatewayModel

/// The order checks: preview, place, read (by id, in the list, by client order id), change, cancel, closed orders.
extension ConformanceRun {
    func orderRequest(_ order: ConformanceOrder, accountId: String, clientOrderId: String) -> OrderRequest {
        OrderRequest(
            connectionId: connection.id,
            accountId: accountId,
            instrument: target.instrument,
            side: order.side,
            type: order.type,
            timeInForce: order.timeInForce,
            quantity: order.quantity,
            limitPrice: order.limitPrice,
            stopPrice: order.stopPrice,
            clientOrderId: clientOrderId
        )
    }

    /// An order the broker never had, for the undeclared change and cancel checks.
    var phantomOrder: Order {
        Order(
            id: "ord_conformance",
            brokerOrderId: target.unknownOrderId,
            clientOrderId: "conformance-phantom",
            connectionId: connection.id,
            broker: kind,
            accountId: accountId ?? "",
            instrument: Instrument(symbol: target.instrument.symbol, assetClass: target.instrument.impliedAssetClass),
            side: target.restingOrder?.side ?? .buy,
            type: target.restingOrder?.type ?? .limit,
            timeInForce: target.restingOrder?.timeInForce ?? .day,
            quantity: target.restingOrder?.quantity ?? 1,
            limitPrice: target.restingOrder?.limitPrice,
            status: .open
        )
    }

    /// What every order the adapter answers must be.
    func checkOrder(_ order: Order, _ what: String) throws {
        let name = "\(what) (\(order.brokerOrderId ?? "no broker id"))"
        try expect(!(order.brokerOrderId ?? "").isEmpty, "\(what) has no brokerOrderId")
        try expect(order.connectionId == connection.id, "\(name) has connectionId '\(order.connectionId)'")
        try expect(order.broker == kind, "\(name) says broker \(order.broker)")
        if !accountIds.isEmpty {
            try expect(accountIds.contains(order.accountId), "\(name) is of account '\(order.accountId)', not one of \(accountIds)")
        }
        try expect(!order.instrument.symbol.isEmpty, "\(name) has an empty symbol")
        try expect(order.quantity.isSane && order.quantity >= 0, "\(name) has quantity \(order.quantity)")
        try expect(
            order.filledQuantity.isSane && order.filledQuantity >= 0 && order.filledQuantity <= order.quantity
                || order.notional != nil,
            "\(name) has filled \(order.filledQuantity) of \(order.quantity)"
        )
        for (field, value) in [("limitPrice", order.limitPrice), ("stopPrice", order.stopPrice), ("averageFillPrice", order.averageFillPrice)] {
            if let value { try expect(value.isSane && value > 0, "\(name)'s \(field) is \(value)") }
        }
    }

    /// The resting order as placed or changed: the request's instrument, side, size and prices.
    func checkResting(_ order: Order, _ what: String, quantity: Decimal, limitPrice: Decimal?, stopPrice: Decimal?) throws {
        try checkOrder(order, what)
        let symbol = target.instrument.symbol
        try expect(order.instrument.symbol.uppercased() == symbol.uppercased(), "\(what) is in \(order.instrument.symbol), not \(symbol)")
        try expect(order.accountId == accountId, "\(what) is of account \(order.accountId), not \(accountId ?? "-")")
        if let side = target.restingOrder?.side { try expect(order.side == side, "\(what) is a \(order.side), not a \(side)") }
        try expect(order.quantity == quantity, "\(what) has quantity \(order.quantity), not \(quantity)")
        if let limitPrice {
            try expect(order.limitPrice == limitPrice, "\(what) has limitPrice \(order.limitPrice.map { "\($0)" } ?? "none"), not \(limitPrice)")
        }
        if let stopPrice {
            try expect(order.stopPrice == stopPrice, "\(what) has stopPrice \(order.stopPrice.map { "\($0)" } ?? "none"), not \(stopPrice)")
        }
        try expect(
            order.status.isActive,
            "\(what) is \(order.status.rawValue), not resting: the target's restingOrder must be a limit away from the market"
        )
    }

    func orderChecks(_ adapter: any BrokerAdapter) async {
        let accountId = self.accountId ?? ""
        let clientOrderId = "conformance-\(UUID().uuidString.prefix(12).lowercased())"
        placedClientOrderId = clientOrderId
        let request = target.restingOrder.map { orderRequest($0, accountId: accountId, clientOrderId: clientOrderId) }
        let noOrder = "the target has no restingOrder: a broker that declares it must be given one"

        await operation(
            .previewOrder,
            declared: {
                guard let request else { throw ConformanceProblem(noOrder) }
                let preview = try await call { try await adapter.previewOrder(request) }
                try expect(!preview.id.isEmpty, "the preview has an empty id")
                try expect(!preview.currency.isEmpty, "the preview has no currency")
                try expect(
                    preview.request.quantity == request.quantity,
                    "the preview is of quantity \(preview.request.quantity.map { "\($0)" } ?? "none")"
                )
                for (field, value) in [
                    ("estimatedPrice", preview.estimatedPrice), ("estimatedCost", preview.estimatedCost),
                    ("estimatedCommission", preview.estimatedCommission),
                ] {
                    if let value { try expect(value.isSane && value >= 0, "the preview's \(field) is \(value)") }
                }
                return "previewed, \(preview.warnings.count) warning(s)"
            },
            undeclared: {
                guard let request else { return "not exercised: the target has no restingOrder" }
                return try await expectRefusal("previewOrder") { try await adapter.previewOrder(request) }
            }
        )

        await operation(
            .placeOrder,
            declared: {
                guard let request, let order = target.restingOrder else { throw ConformanceProblem(noOrder) }
                let placed = try await call { try await adapter.placeOrder(request) }
                live = placed
                try expect(placed.clientOrderId == clientOrderId, "the placed order has clientOrderId '\(placed.clientOrderId)', not the request's")
                try checkResting(placed, "the placed order", quantity: order.quantity, limitPrice: order.limitPrice, stopPrice: order.stopPrice)
                return "placed \(placed.brokerOrderId ?? ""), \(placed.status.rawValue)"
            },
            undeclared: {
                guard let request else { return "not exercised: the target has no restingOrder" }
                return try await expectRefusal("placeOrder") { try await adapter.placeOrder(request) }
            }
        )

        let unknown = target.unknownOrderId
        await operation(
            .order,
            declared: {
                guard let placed = live, let id = placed.brokerOrderId else { return "not exercised: no order was placed" }
                let read = try await call { try await adapter.order(brokerOrderId: id) }
                try expect(read.brokerOrderId == id, "order(brokerOrderId: \(id)) answered order \(read.brokerOrderId ?? "-")")
                try checkResting(read, "the order read by id", quantity: placed.quantity, limitPrice: placed.limitPrice, stopPrice: placed.stopPrice)
                return "read back \(id)"
            },
            undeclared: { try await expectRefusal("order") { try await adapter.order(brokerOrderId: unknown) } }
        )

        await operation(
            .orders,
            declared: {
                let query = OrderQuery(state: .open, accountId: self.accountId)
                let open = try await call { try await adapter.orders(query) }
                for order in open {
                    try checkOrder(order, "a listed order")
                    try expect(order.status.isActive, "orders(open) lists \(order.brokerOrderId ?? "-"), which is \(order.status.rawValue)")
                    if let wanted = self.accountId {
                        try expect(order.accountId == wanted, "orders(account \(wanted)) lists one of \(order.accountId)")
                    }
                }
                if let id = live?.brokerOrderId {
                    try expect(open.contains { $0.brokerOrderId == id }, "orders(open) does not list the order just placed (\(id))")
                }
                return "\(open.count) open order(s)" + (live == nil ? "" : ", the placed one among them")
            },
            undeclared: { try await expectRefusal("orders") { try await adapter.orders(OrderQuery()) } }
        )

        await operation(
            .orderByClientOrderId,
            declared: {
                guard let placed = live else { return "not exercised: no order was placed" }
                let found = try await call { try await adapter.order(clientOrderId: clientOrderId, accountId: accountId) }
                guard let found else { throw ConformanceProblem("order(clientOrderId:) found nothing for the order just placed") }
                try expect(
                    found.brokerOrderId == placed.brokerOrderId,
                    "order(clientOrderId:) found \(found.brokerOrderId ?? "-"), not \(placed.brokerOrderId ?? "-")"
                )
                try checkOrder(found, "the order found by client order id")
                return "found by \(clientOrderId)"
            },
            undeclared: {
                // The protocol's own answer for "the broker has none" is nil; not_supported says the same.
                do {
                    let found = try await call { try await adapter.order(clientOrderId: clientOrderId, accountId: accountId) }
                    try expect(found == nil, "orderByClientOrderId is not declared, yet it found order \(found?.brokerOrderId ?? "-")")
                    return "finds nothing"
                } catch let error as GatewayError {
                    try expect(
                        error.code == .notSupported,
                        "orderByClientOrderId is not declared, and failed \(error.code), not nil or not_supported"
                    )
                    return "answers not_supported"
                }
            }
        )

        await operation(
            .modifyOrder,
            declared: {
                guard let placed = live, let order = target.restingOrder else { return "not exercised: no order was placed" }
                let current = try await fresh(placed, adapter)
                let modification = order.modification
                let changed = try await call { try await adapter.modifyOrder(current, modification) }
                live = changed
                try checkResting(
                    changed,
                    "the changed order",
                    quantity: modification.quantity ?? current.quantity,
                    limitPrice: modification.limitPrice ?? current.limitPrice,
                    stopPrice: modification.stopPrice ?? current.stopPrice
                )
                if let tif = modification.timeInForce {
                    try expect(changed.timeInForce == tif, "the changed order is \(changed.timeInForce), not \(tif)")
                }
                return "changed" + (changed.brokerOrderId == placed.brokerOrderId ? " in place" : ", replaced by \(changed.brokerOrderId ?? "-")")
            },
            undeclared: {
                let phantom = phantomOrder
                let change = target.restingOrder?.modification ?? OrderModification(quantity: 1)
                return try await expectRefusal("modifyOrder") { try await adapter.modifyOrder(phantom, change) }
            }
        )

        await operation(
            .cancelOrder,
            declared: {
                guard let order = live else { return "not exercised: no order was placed" }
                let current = try await fresh(order, adapter)
                let canceled = try await call { try await adapter.cancelOrder(current) }
                live = nil
                try checkOrder(canceled, "the cancelled order")
                try expect(
                    canceled.brokerOrderId == current.brokerOrderId,
                    "cancelOrder answered order \(canceled.brokerOrderId ?? "-"), not \(current.brokerOrderId ?? "-")"
                )
                try expect(
                    [.canceled, .pendingCancel].contains(canceled.status),
                    "the cancelled order is \(canceled.status.rawValue), not canceled or pending_cancel"
                )
                return "cancelled (\(canceled.status.rawValue))"
            },
            undeclared: {
                let phantom = phantomOrder
                return try await expectRefusal("cancelOrder") { try await adapter.cancelOrder(phantom) }
            }
        )

        await operation(
            .closedOrders,
            declared: {
                let query = OrderQuery(state: .closed, accountId: self.accountId)
                let closed = try await call { try await adapter.orders(query) }
                for order in closed {
                    try checkOrder(order, "a closed order")
                    try expect(
                        !order.status.isActive || order.status == .pendingCancel,
                        "orders(closed) lists \(order.brokerOrderId ?? "-"), which is \(order.status.rawValue)"
                    )
                }
                return "\(closed.count) closed order(s)"
            },
            undeclared: {
                try await expectRefusal("closed orders", codes: [.notSupported, .unprocessable]) {
                    try await adapter.orders(OrderQuery(state: .closed))
                }
            }
        )

        await operation(
            .notionalOrders,
            declared: { "not exercised: a notional order is a market order, which would trade" },
            undeclared: {
                guard let order = target.restingOrder else { return "not exercised: the target has no restingOrder" }
                let notional = OrderRequest(
                    connectionId: connection.id,
                    accountId: accountId,
                    instrument: target.instrument,
                    side: order.side,
                    type: .market,
                    timeInForce: order.timeInForce,
                    quantity: nil,
                    clientOrderId: "conformance-notional-\(UUID().uuidString.prefix(8).lowercased())",
                    notional: 10
                )
                return try await expectRefusal("a notional order", codes: [.unprocessable, .notSupported]) {
                    try await adapter.placeOrder(notional)
                }
            }
        )

        // Leaves nothing resting on the simulator whatever failed above.
        if let order = live {
            _ = try? await call { try await adapter.cancelOrder(order) }
            live = nil
        }
    }

    /// The order as the broker holds it now, as the gateway reads it before a change or a cancel.
    func fresh(_ order: Order, _ adapter: any BrokerAdapter) async throws -> Order {
        guard declares(.order), let id = order.brokerOrderId else { return order }
        return try await call { try await adapter.order(brokerOrderId: id) }
    }
}
