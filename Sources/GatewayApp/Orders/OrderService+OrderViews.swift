import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// How orders look to clients: gateway ids for broker orders, journal ids for the orders the gateway placed, and
/// the intent itself while the broker's answer is not known.
extension OrderService {
    static let orderPrefix = "ord_"

    /// Each broker's orders, with the ids of their journal entries where the gateway placed them.
    /// A page of `query.limit` orders may cost a call per order on brokers whose order list lacks the fills (TradeOgre
    /// reads each open order), so the read's call budget grows by the page size, which the API bounds (500).
    public func orders(owner: Owner, _ selection: Gateway.Selection, _ query: OrderQuery) async throws -> FanOut<Order> {
        let tenant = owner.tenant
        let gateway = self
        return try await fanOut(owner: owner, selection, operation: .orders, extraCalls: query.limit) { adapter, connection in
            try await gateway.journalIds(try await adapter.orders(query), tenant: tenant, connection: connection)
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
        let gateway = self
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
            return try await gateway.journalIds([order], tenant: tenant, connection: connection)
        }
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

    func gatewayOrder(_ order: Order, connection: ConnectionDescriptor) -> Order {
        var order = order
        order.connectionId = connection.id
        order.broker = connection.broker
        if let brokerId = order.brokerOrderId {
            order.id = OpaqueID.make(prefix: Self.orderPrefix, connectionId: connection.id, brokerId: brokerId)
        }
        return order
    }

    /// Gives broker orders the ids of their journal entries where the gateway placed them.
    func journalIds(_ orders: [Order], tenant: Tenant, connection: ConnectionDescriptor) async throws -> [Order] {
        var result: [Order] = []
        for var order in orders {
            order = gatewayOrder(order, connection: connection)
            if let brokerId = order.brokerOrderId,
                let journaled = try await journal.journaledOrder(tenantId: tenant.id, connectionId: connection.id, brokerOrderId: brokerId)
            {
                order.id = journaled.id
            }
            result.append(order)
        }
        return result
    }

    /// What a journaled order looks like to a client: the broker's order once known, else the intent.
    func view(_ journaled: JournaledOrder, broker: BrokerKind) -> Order {
        if var order = journaled.order {
            order.id = journaled.id
            order.clientOrderId = journaled.clientOrderId
            return order
        }
        let request = journaled.request
        return Order(
            id: journaled.id,
            brokerOrderId: journaled.brokerOrderId,
            clientOrderId: journaled.clientOrderId,
            connectionId: journaled.connectionId,
            broker: broker,
            accountId: journaled.accountId,
            instrument: WatchlistService.instrument(request.instrument),
            side: request.side,
            type: request.type,
            timeInForce: request.timeInForce,
            quantity: request.quantity ?? 0,
            limitPrice: request.limitPrice,
            // A released order is not at the broker: it reads as rejected until the same key sends it again.
            stopPrice: request.stopPrice,
            status: journaled.state == .rejected || journaled.state == .released ? .rejected : .unknown,
            filledQuantity: 0,
            createdAt: journaled.createdAt,
            updatedAt: journaled.updatedAt,
            expiresAt: request.expiresAt,
            brokerStatus: journaled.errorMessage,
            notional: request.notional
        )
    }

}
