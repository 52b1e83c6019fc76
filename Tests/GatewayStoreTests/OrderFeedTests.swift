import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

/// The journal as a feed (what streams tail and replay): every event once, in commit order, per user; and the open
/// orders the order watcher brings up to date.
@Suite("The order feed")
struct OrderFeedTests {
    @Test("events come once each, in commit order, with cursors that only grow; per user or all", arguments: StoreBackend.all)
    func feed(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let ann = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "ann"), audit: nil)
            let bob = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "bob"), audit: nil)
            let annConnection = try await store.createConnection(tenantId: tenant.id, userId: ann.id, sampleConnection())
            let bobConnection = try await store.createConnection(tenantId: tenant.id, userId: bob.id, sampleConnection())
            let start = try await store.orderFeedEnd()

            let annOrder = try await journalIntent(in: store, tenantId: tenant.id, connectionId: annConnection.id)
            let bobOrder = try await journalIntent(in: store, tenantId: tenant.id, connectionId: bobConnection.id)
            let annAccepted = accepted(annOrder, brokerOrderId: "B-ann", status: .open)
            try await store.updateJournaledOrder(
                annAccepted,
                event: OrderEvent(kind: .accepted, state: .accepted, status: .open, brokerOrderId: "B-ann", at: journalDate())
            )
            var annFilled = annAccepted
            annFilled.order?.status = .filled
            annFilled.order?.filledQuantity = 1
            try await store.updateJournaledOrder(
                annFilled,
                event: OrderEvent(kind: .statusChanged, state: .accepted, status: .filled, at: journalDate())
            )

            let all = try await store.orderFeed(after: start, limit: 100)
            #expect(all.map(\.orderId) == [annOrder.id, bobOrder.id, annOrder.id, annOrder.id])
            #expect(all.map(\.event.kind) == [.intent, .intent, .accepted, .statusChanged])
            let cursors = all.map(\.cursor)
            #expect(cursors == cursors.sorted() && Set(cursors).count == cursors.count && cursors.allSatisfy { $0 > start })
            #expect(try await store.orderFeedEnd() == cursors.last)
            #expect(all.map(\.userId) == [ann.id, bob.id, ann.id, ann.id])
            #expect(all.allSatisfy { $0.tenantId == tenant.id })
            // The order is the journal's current view, whichever event it comes with.
            #expect(all.last?.order?.status == .filled)
            #expect(all.last?.event.status == .filled)
            #expect(all.last?.broker == .alpaca)

            let annsOnly = try await store.orderFeed(tenantId: tenant.id, userId: ann.id, after: start, limit: 100)
            #expect(annsOnly.map(\.cursor) == [cursors[0], cursors[2], cursors[3]])
            // From a cursor on, and a page at a time.
            let afterFirst = try await store.orderFeed(tenantId: tenant.id, userId: ann.id, after: cursors[0], limit: 1)
            #expect(afterFirst.map(\.cursor) == [cursors[2]])
            #expect(try await store.orderFeed(tenantId: tenant.id, userId: bob.id, after: cursors[1], limit: 100).isEmpty)
            #expect(try await store.orderFeed(after: cursors[3], limit: 100).isEmpty)
        }
    }

    @Test("open orders are those the broker has and has not finished, least recently updated first", arguments: StoreBackend.all)
    func openOrders(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let connection = try await store.createConnection(tenantId: tenant.id, userId: nil, sampleConnection())
            let submitting = try await journalIntent(in: store, tenantId: tenant.id, connectionId: connection.id)
            let open = try await journalIntent(in: store, tenantId: tenant.id, connectionId: connection.id)
            let done = try await journalIntent(in: store, tenantId: tenant.id, connectionId: connection.id)
            try await store.updateJournaledOrder(
                accepted(open, brokerOrderId: "B-open", status: .partiallyFilled),
                event: OrderEvent(kind: .accepted, state: .accepted, status: .partiallyFilled, at: journalDate())
            )
            try await store.updateJournaledOrder(
                accepted(done, brokerOrderId: "B-done", status: .filled),
                event: OrderEvent(kind: .accepted, state: .accepted, status: .filled, at: journalDate())
            )
            let found = try await store.openOrderReferences(limit: 10)
            #expect(found.map(\.id) == [open.id])
            #expect(!found.contains { $0.id == submitting.id || $0.id == done.id })
            #expect(try await store.openOrderReferences(limit: 0).isEmpty)
        }
    }
}
