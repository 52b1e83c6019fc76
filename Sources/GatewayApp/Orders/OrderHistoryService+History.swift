import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore

/// Order lists and lookups at the brokers, with the ids of their journal entries where the gateway placed them, and
/// the journal's events of one order.
extension OrderHistoryService {
    /// Each broker's orders, with the ids of their journal entries where the gateway placed them.
    /// A page of `query.limit` orders may cost a call per order on brokers whose order list lacks the fills (TradeOgre
    /// reads each open order), so the read's call budget grows by the page size, which the API bounds (500).
    public func orders(owner: Owner, _ selection: Gateway.Selection, _ query: OrderQuery) async throws -> FanOut<Order> {
        let tenant = owner.tenant
        let history = self
        return try await fanOut(owner: owner, selection, operation: .orders, extraCalls: query.limit) { adapter, connection in
            try await history.journalIds(try await adapter.orders(query), tenant: tenant, connection: connection)
        }
    }

    /// The order with this broker order id, looked up at every selected connection at once (an id is the broker's,
    /// so the same text may name orders at two brokers; each is listed). A connection that has no such order answers
    /// with none; the order carries its journal id where the gateway placed it. The list's filters still apply: an
    /// order that is not of `query.state`, not of one of `query.symbols`, or created outside `after`…`until` is not
    /// listed (an order without a creation time is).
    public func orders(
        owner: Owner,
        _ selection: Gateway.Selection,
        brokerOrderId: String,
        matching query: OrderQuery = OrderQuery(state: .all)
    ) async throws -> FanOut<Order> {
        let tenant = owner.tenant
        let history = self
        let account = selection.accountId
        return try await fanOut(owner: owner, selection, operation: .order) { adapter, connection in
            let order: Order
            do {
                order = try await adapter.order(brokerOrderId: brokerOrderId)
            } catch let error as GatewayError where [.notFound, .invalidRequest, .unprocessable].contains(error.code) {
                // Not this broker's order: unknown, or not even of the form its ids take.
                return []
            }
            guard account == nil || order.accountId == account, Self.order(order, matches: query) else { return [] }
            return try await history.journalIds([order], tenant: tenant, connection: connection)
        }
    }

    /// The events the journal recorded for one of the owner's orders: how a client follows what happened to an
    /// order the gateway placed (its intent, the broker's answers, changes and cancels), oldest first.
    public func orderEvents(owner: Owner, id: String) async throws -> [OrderEvent] {
        let tenant = owner.tenant
        guard let journaled = try await journal.journaledOrder(tenantId: tenant.id, id: id), journaled.userId == owner.userId else {
            throw GatewayError(.notFound, "no journaled order '\(id)' (orders placed outside the gateway have no journal)")
        }
        return try await journal.orderEvents(tenantId: tenant.id, orderId: id)
    }

    /// A journaled order's events, whoever's it is: what a tenant admin reads without acting for a user.
    public func orderEventsForAdmin(tenant: Tenant, id: String) async throws -> [OrderEvent] {
        guard try await journal.journaledOrder(tenantId: tenant.id, id: id) != nil else {
            throw GatewayError(.notFound, "no journaled order '\(id)'")
        }
        return try await journal.orderEvents(tenantId: tenant.id, orderId: id)
    }

    /// Whether an order passes a list's filters (its state, symbols and creation window; not its limit).
    static func order(_ order: Order, matches query: OrderQuery) -> Bool {
        switch query.state {
        case .open: guard order.status.isActive else { return false }
        case .closed: guard !order.status.isActive else { return false }
        case .all: break
        }
        if !query.symbols.isEmpty, !query.symbols.contains(where: { $0.uppercased() == order.instrument.symbol.uppercased() }) {
            return false
        }
        if let created = order.createdAt {
            if let after = query.after, created <= after { return false }
            if let until = query.until, created > until { return false }
        }
        return true
    }

    /// Gives broker orders the ids of their journal entries where the gateway placed them.
    func journalIds(_ orders: [Order], tenant: Tenant, connection: ConnectionDescriptor) async throws -> [Order] {
        var result: [Order] = []
        for var order in orders {
            order = OrderView.gateway(order, connection: connection)
            if let brokerId = order.brokerOrderId,
                let journaled = try await journal.journaledOrder(tenantId: tenant.id, connectionId: connection.id, brokerOrderId: brokerId)
            {
                order.id = journaled.id
            }
            result.append(order)
        }
        return result
    }
}
