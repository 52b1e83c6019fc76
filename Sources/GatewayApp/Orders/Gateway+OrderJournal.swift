import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// One order as the gateway knows it: found by id, brought up to date from the broker, and every change journaled.
extension Gateway {
    /// An order by gateway id: a journaled one (reconciled or refreshed from the broker first), or one the gateway
    /// did not place, by its derived id.
    public func order(owner: Owner, id: String) async throws -> Order {
        try await orderHandle(owner: owner, id: id).order
    }

    func orderHandle(owner: Owner, id: String) async throws -> OrderHandle {
        let tenant = owner.tenant
        if var journaled = try await journal.journaledOrder(tenantId: tenant.id, id: id) {
            // Another user's order is not found, the same as one that does not exist.
            guard journaled.userId == owner.userId else { throw GatewayError(.notFound, "no order '\(id)'") }
            guard let connection = try await store.connection(tenantId: tenant.id, id: journaled.connectionId) else {
                throw GatewayError(.notFound, "the connection of order '\(journaled.id)' was unlinked; its history remains at /v1/orders/\(journaled.id)/events")
            }
            if connection.status != .active { throw Self.statusError(connection) }
            let adapter = try await adapter(for: connection)
            journaled = try await refresh(journaled, connection: connection, adapter: adapter)
            return OrderHandle(order: view(journaled, broker: connection.broker), connection: connection, adapter: adapter, journaled: journaled)
        }
        guard let (connectionId, brokerId) = OpaqueID.parse(id, prefix: Self.orderPrefix),
            let connection = try await store.connection(tenantId: tenant.id, id: connectionId), owner.owns(connection)
        else {
            throw GatewayError(.notFound, "no order '\(id)'")
        }
        if connection.status != .active { throw Self.statusError(connection) }
        let adapter = try await adapter(for: connection)
        let order = try await withDeadline(router.perSourceTimeout) { try await adapter.order(brokerOrderId: brokerId) }
        return OrderHandle(order: gatewayOrder(order, connection: connection), connection: connection, adapter: adapter, journaled: nil)
    }

    /// A journaled order as the journal last recorded it, whoever's it is (a deleted user's too): what a tenant admin
    /// reads without acting for a user. Never calls the broker.
    public func journaledOrderForAdmin(tenant: Tenant, id: String) async throws -> Order {
        guard let journaled = try await journal.journaledOrder(tenantId: tenant.id, id: id) else {
            throw GatewayError(.notFound, "no journaled order '\(id)' (an admin reads journaled orders only; name a user with X-User-ID for the rest)")
        }
        guard let broker = journaled.broker ?? journaled.order?.broker else {
            throw GatewayError(.notFound, "journaled order '\(id)' has no recorded broker")
        }
        return view(journaled, broker: broker)
    }

    /// A journaled order's events, whoever's it is: what a tenant admin reads without acting for a user.
    public func orderEventsForAdmin(tenant: Tenant, id: String) async throws -> [OrderEvent] {
        guard try await journal.journaledOrder(tenantId: tenant.id, id: id) != nil else {
            throw GatewayError(.notFound, "no journaled order '\(id)'")
        }
        return try await journal.orderEvents(tenantId: tenant.id, orderId: id)
    }

    /// Brings a journaled order up to date: reconciles an unknown outcome, or reads the broker's current status.
    func refresh(_ journaled: JournaledOrder, connection: ConnectionDescriptor, adapter: any BrokerAdapter) async throws -> JournaledOrder {
        switch journaled.state {
        case .rejected, .released:
            return journaled
        case .submitting, .unknown:
            if inFlight.isRunning(journaled.id) { return journaled }
            return try await reconcile(journaled, connection: connection, adapter: adapter)
        case .accepted:
            guard let brokerId = journaled.brokerOrderId else { return journaled }
            let current = try await withDeadline(router.perSourceTimeout) { try await adapter.order(brokerOrderId: brokerId) }
            return try await record(journaled, order: gatewayOrder(current, connection: connection), kind: .statusChanged, onlyIfChanged: true)
        }
    }

    /// Stores a new broker view of the order and appends an event (unless nothing changed and `onlyIfChanged`).
    func record(_ journaled: JournaledOrder, order: Order, kind: OrderEvent.Kind, detail: String? = nil, onlyIfChanged: Bool = false) async throws -> JournaledOrder {
        var updated = journaled
        updated.state = .accepted
        updated.brokerOrderId = order.brokerOrderId ?? journaled.brokerOrderId
        updated.order = order
        updated.error = nil
        updated.errorMessage = nil
        if onlyIfChanged, let previous = journaled.order, previous.status == order.status,
            previous.filledQuantity == order.filledQuantity, previous.brokerOrderId == order.brokerOrderId,
            previous.quantity == order.quantity, previous.limitPrice == order.limitPrice, previous.stopPrice == order.stopPrice
        {
            return journaled
        }
        updated.updatedAt = Date()
        try await journal.updateJournaledOrder(updated, event: OrderEvent(
            kind: kind, state: .accepted, status: order.status, brokerOrderId: updated.brokerOrderId, detail: detail, at: Date()))
        // Answer from what was stored, so the first answer and every idempotent repeat are the same to the byte.
        return try await journal.journaledOrder(tenantId: updated.tenantId, id: updated.id) ?? updated
    }

    func mark(_ journaled: JournaledOrder, _ state: JournalState, kind: OrderEvent.Kind, error: GatewayError) async throws -> JournaledOrder {
        var updated = journaled
        updated.state = state
        updated.error = error.code
        updated.errorMessage = error.message
        updated.updatedAt = Date()
        try await journal.updateJournaledOrder(updated, event: OrderEvent(
            kind: kind, state: state, status: state == .unknown ? .unknown : .rejected, brokerOrderId: updated.brokerOrderId,
            detail: "\(error.code.rawValue): \(error.message)", at: Date()))
        return try await journal.journaledOrder(tenantId: updated.tenantId, id: updated.id) ?? updated
    }

    public func orderEvents(owner: Owner, id: String) async throws -> [OrderEvent] {
        let tenant = owner.tenant
        guard let journaled = try await journal.journaledOrder(tenantId: tenant.id, id: id), journaled.userId == owner.userId else {
            throw GatewayError(.notFound, "no journaled order '\(id)' (orders placed outside the gateway have no journal)")
        }
        return try await journal.orderEvents(tenantId: tenant.id, orderId: id)
    }

}

/// An order found by its gateway id, with what acting on it needs.
struct OrderHandle: Sendable {
    var order: Order
    var connection: ConnectionDescriptor
    var adapter: any BrokerAdapter
    var journaled: JournaledOrder?

    var parts: (Order, ConnectionDescriptor, any BrokerAdapter, JournaledOrder?) { (order, connection, adapter, journaled) }
}
