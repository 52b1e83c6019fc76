import Foundation
import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// One order as the gateway knows it: found by id, brought up to date from the broker, and every change journaled.
extension OrderService {
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
                throw GatewayError(
                    .notFound,
                    "the connection of order '\(journaled.id)' was unlinked; its history remains at /v1/orders/\(journaled.id)/events"
                )
            }
            if connection.status != .active { throw ConnectionDirectory.statusError(connection) }
            let adapter = try await directory.adapter(for: connection)
            journaled = try await refresh(journaled, connection: connection, adapter: adapter)
            return OrderHandle(
                order: OrderView.journaled(journaled, broker: connection.broker),
                connection: connection,
                adapter: adapter,
                journaled: journaled
            )
        }
        guard let (connectionId, brokerId) = OpaqueID.parse(id, prefix: OrderView.idPrefix),
            let connection = try await store.connection(tenantId: tenant.id, id: connectionId), owner.owns(connection)
        else {
            throw GatewayError(.notFound, "no order '\(id)'")
        }
        if connection.status != .active { throw ConnectionDirectory.statusError(connection) }
        let adapter = try await directory.adapter(for: connection)
        let order = try await withDeadline(router.perSourceTimeout) { try await adapter.order(brokerOrderId: brokerId) }
        return OrderHandle(order: OrderView.gateway(order, connection: connection), connection: connection, adapter: adapter, journaled: nil)
    }

    /// A journaled order as the journal last recorded it, whoever's it is (a deleted user's too): what a tenant admin
    /// reads without acting for a user. Never calls the broker.
    public func journaledOrderForAdmin(tenant: Tenant, id: String) async throws -> Order {
        guard let journaled = try await journal.journaledOrder(tenantId: tenant.id, id: id) else {
            throw GatewayError(
                .notFound,
                "no journaled order '\(id)' (an admin reads journaled orders only; name a user with X-User-ID for the rest)"
            )
        }
        guard let broker = journaled.broker ?? journaled.order?.broker else {
            throw GatewayError(.notFound, "journaled order '\(id)' has no recorded broker")
        }
        return OrderView.journaled(journaled, broker: broker)
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
            guard let brokerId = journaled.brokerOrderId, let last = journaled.order else { return journaled }
            // An order the broker reported ended stays ended: that report is final, and reading it costs no call.
            if !last.status.isActive { return journaled }
            let current: Order
            do {
                current = try await withDeadline(router.perSourceTimeout) { try await adapter.order(brokerOrderId: brokerId) }
            } catch let error as GatewayError where error.code == .notFound {
                // The broker no longer knows the order (some forget orders that left their open list): the journal's
                // last confirmed state is the answer, marked as such, never a 404 for an order the gateway placed.
                logger.info(
                    "the broker no longer reports a journaled order; answering its last confirmed state",
                    metadata: ["order": .string(journaled.id), "connection": .string(connection.id)]
                )
                return Self.fromJournal(journaled)
            }
            // A change of this order is in flight (`modifyOrder`): its own answer records it as `modified`. A read
            // that saw the broker's side of it first must not record it as a status change of its own (checked after
            // the read: a read that saw the change began after the change did).
            if inFlight.isRunning(journaled.id) { return journaled }
            let mapped = OrderView.gateway(current, connection: connection)
            guard Self.isSameOrder(mapped, as: last, journaledAt: journaled.updatedAt) else {
                // The broker now uses this id for another order (it started over, or reused it): that order is not
                // this one, and this one's view is not rewritten with it.
                logger.warning(
                    "the broker reports a different order under a journaled order's broker id; keeping the journal's view",
                    metadata: ["order": .string(journaled.id), "connection": .string(connection.id), "brokerOrderId": .string(brokerId)]
                )
                return Self.fromJournal(journaled)
            }
            return try await record(journaled, order: mapped, kind: .statusChanged)
        }
    }

    /// The journaled order as its last confirmed state, marked as coming from the journal.
    static func fromJournal(_ journaled: JournaledOrder) -> JournaledOrder {
        var marked = journaled
        marked.order?.source = .journal
        return marked
    }

    /// Whether the broker's answer under a journaled broker id is the order the journal last saw there: the same
    /// instrument and side, and not created after the journal last recorded it where the broker reports creation times
    /// (a broker order's creation time never changes; a broker that reuses an id after starting over reports the new
    /// order's, which is later than anything the journal heard of the old one).
    static func isSameOrder(_ current: Order, as last: Order, journaledAt: Date) -> Bool {
        guard current.instrument.symbol.uppercased() == last.instrument.symbol.uppercased(), current.side == last.side else {
            return false
        }
        if let now = current.createdAt, let then = last.createdAt, abs(now.timeIntervalSince(then)) >= 1, now > journaledAt {
            return false
        }
        return true
    }

    /// Stores a new broker view of the order and appends an event, unless the journal already holds that view: the
    /// cancel's answer, the watcher's read and a broker's push may all report the same change, and it is one change
    /// (one event, one stream update). Records of one order are serialized in this process and compared with the
    /// stored row, not with the caller's copy, which may be older than the watcher's write.
    ///
    /// The first broker view of an intent (`accepted`, `reconciled`) is always written: it changes the journal state.
    func record(_ journaled: JournaledOrder, order: Order, kind: OrderEvent.Kind, detail: String? = nil) async throws -> JournaledOrder {
        try await orderRecords.serialize(journaled.id) {
            let stored = try await journal.journaledOrder(tenantId: journaled.tenantId, id: journaled.id) ?? journaled
            if stored.state == .accepted, let previous = stored.order, Self.sameView(previous, order) {
                return stored
            }
            // A view of the broker order the journal followed when the caller loaded it, while a replace (Alpaca's
            // PATCH makes a new broker order) has moved the journal to another one since: the old order's
            // `replaced` is not this order's state, and writing it would lose the replacement.
            if let current = stored.brokerOrderId, current != journaled.brokerOrderId, order.brokerOrderId != current {
                return stored
            }
            // A view of the broker order read before it ended and recorded after its end (the watcher's read of the
            // open list racing a cancel's answer): an order that ended never trades again, so an older view that still
            // shows it active is not written over the end.
            if let previous = stored.order, !previous.status.isActive, order.status.isActive,
                order.brokerOrderId == nil || order.brokerOrderId == previous.brokerOrderId
            {
                return stored
            }
            var updated = stored
            updated.state = .accepted
            updated.brokerOrderId = order.brokerOrderId ?? stored.brokerOrderId
            var order = order
            order.source = nil
            // The order's client order id is the one the gateway journaled: a broker without client order ids
            // (TradeOgre) reports its own id there when the order is read back, and the stream shows the stored view.
            order.clientOrderId = stored.clientOrderId
            updated.order = order
            updated.error = nil
            updated.errorMessage = nil
            updated.updatedAt = Date()
            try await journal.updateJournaledOrder(
                updated,
                event: OrderEvent(
                    kind: kind,
                    state: .accepted,
                    status: order.status,
                    brokerOrderId: updated.brokerOrderId,
                    detail: detail,
                    at: Date()
                )
            )
            // Answer from what was stored, so the first answer and every idempotent repeat are the same to the byte.
            return try await journal.journaledOrder(tenantId: updated.tenantId, id: updated.id) ?? updated
        }
    }

    /// Whether two broker views of an order say the same thing (the fields a change or a fill moves).
    static func sameView(_ a: Order, _ b: Order) -> Bool {
        a.status == b.status && a.filledQuantity == b.filledQuantity && a.brokerOrderId == b.brokerOrderId
            && a.quantity == b.quantity && a.limitPrice == b.limitPrice && a.stopPrice == b.stopPrice
            && a.averageFillPrice == b.averageFillPrice && a.type == b.type && a.timeInForce == b.timeInForce
    }

    func mark(_ journaled: JournaledOrder, _ state: JournalState, kind: OrderEvent.Kind, error: GatewayError) async throws -> JournaledOrder {
        var updated = journaled
        updated.state = state
        updated.error = error.code
        updated.errorMessage = error.message
        updated.updatedAt = Date()
        try await journal.updateJournaledOrder(
            updated,
            event: OrderEvent(
                kind: kind,
                state: state,
                status: state == .unknown ? .unknown : .rejected,
                brokerOrderId: updated.brokerOrderId,
                detail: "\(error.code.rawValue): \(error.message)",
                at: Date()
            )
        )
        return try await journal.journaledOrder(tenantId: updated.tenantId, id: updated.id) ?? updated
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
