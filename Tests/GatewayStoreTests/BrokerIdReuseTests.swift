import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

/// Issue 26: a broker that starts over (a reset paper account, a simulator without its state) hands out order ids it
/// gave before. The journal never binds one broker order id to two live orders, and never refuses or rewrites: the
/// placement answer that reuses an id is recorded as its own order, and the older order keeps its history and view.
@Suite("Order journal: a broker order id reused by a broker that started over")
struct BrokerIdReuseTests {
    @Test(arguments: StoreBackend.all) func aReusedIdIsTheNewOrdersAndTheOldOrderKeepsItsView(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let old = try await journalIntent(in: store, tenantId: tenant.id)
            let oldPlaced = accepted(old, brokerOrderId: "76300001", status: .filled)
            try await store.updateJournaledOrder(
                oldPlaced,
                event: OrderEvent(kind: .accepted, state: .accepted, status: .filled, brokerOrderId: "76300001", at: journalDate())
            )
            let oldStored = try #require(try await store.journaledOrder(tenantId: tenant.id, id: old.id))

            // Sent after the old binding was recorded: the broker's answer to it is a reuse of the id.
            var fresh = sampleIntent(tenantId: tenant.id, createdAt: journalDate(5))
            fresh.request.quantity = 3
            try await store.createOrderIntent(fresh, event: intentEvent(at: fresh.createdAt))
            try await store.updateJournaledOrder(
                accepted(fresh, brokerOrderId: "76300001"),
                event: OrderEvent(kind: .accepted, state: .accepted, status: .open, brokerOrderId: "76300001", at: journalDate(6))
            )

            #expect(try await store.journaledOrder(tenantId: tenant.id, connectionId: "conn_a", brokerOrderId: "76300001")?.id == fresh.id)
            // The older order is as it was: its view, its state, its events.
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: old.id) == oldStored)
            #expect(try await store.orderEvents(tenantId: tenant.id, orderId: old.id).map(\.kind) == [.intent, .accepted])
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: fresh.id)?.request.quantity == 3)
            // Both bindings are kept; one is live.
            #expect(
                try await store.rawStrings(
                    "SELECT order_id FROM order_broker_ids WHERE broker_order_id = ? AND retired_at IS NULL",
                    ["76300001"]
                )
                    == [fresh.id]
            )
            #expect(
                try await store.rawStrings(
                    "SELECT order_id FROM order_broker_ids WHERE broker_order_id = ? AND retired_at IS NOT NULL",
                    ["76300001"]
                )
                    == [old.id]
            )
            // A binding is never deleted, and never changed but to retire it.
            await #expect(throws: (any Error).self) {
                try await store.rawExecute("DELETE FROM order_broker_ids WHERE order_id = ?", [old.id])
            }
            await #expect(throws: (any Error).self) {
                try await store.rawExecute("UPDATE order_broker_ids SET order_id = ? WHERE order_id = ?", [old.id, fresh.id])
            }
        }
    }

    /// Only the placement's own answer retires: a reconciliation match, or an answer for an order sent before the
    /// binding was recorded (two intents given one broker order at once), is still refused.
    @Test(arguments: StoreBackend.all) func onlyAPlacementAnswerSentAfterTheBindingRetiresIt(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let early = try await journalIntent(in: store, tenantId: tenant.id)
            let holder = try await journalIntent(in: store, tenantId: tenant.id)
            try await store.updateJournaledOrder(
                accepted(holder, brokerOrderId: "B-9", at: journalDate(1)),
                event: OrderEvent(kind: .accepted, state: .accepted, brokerOrderId: "B-9", at: journalDate(1))
            )
            await expectGatewayError(.conflict) {
                try await store.updateJournaledOrder(
                    accepted(early, brokerOrderId: "B-9"),
                    event: OrderEvent(kind: .accepted, state: .accepted, brokerOrderId: "B-9", at: journalDate(2))
                )
            }
            let late = sampleIntent(tenantId: tenant.id, createdAt: journalDate(10))
            try await store.createOrderIntent(late, event: intentEvent(at: late.createdAt))
            await expectGatewayError(.conflict) {
                try await store.updateJournaledOrder(
                    accepted(late, brokerOrderId: "B-9"),
                    event: OrderEvent(kind: .reconciled, state: .accepted, brokerOrderId: "B-9", at: journalDate(11))
                )
            }
            #expect(try await store.journaledOrder(tenantId: tenant.id, connectionId: "conn_a", brokerOrderId: "B-9")?.id == holder.id)
        }
    }
}
