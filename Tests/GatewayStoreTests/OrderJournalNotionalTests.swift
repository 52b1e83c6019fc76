import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

/// Issue 15, item 3 in the store: the journal keeps a notional request and the broker's order with its notional,
/// replace chain and times, and reads back exactly what it wrote.
@Suite("Order journal: notional orders and order times")
struct OrderJournalNotionalTests {
    @Test(arguments: StoreBackend.all) func aNotionalRequestAndItsOrderReadBack(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            var intent = sampleIntent(tenantId: tenant.id)
            intent.request.type = .market
            intent.request.timeInForce = .day
            intent.request.limitPrice = nil
            intent.request.expiresAt = nil
            intent.request.quantity = nil
            intent.request.notional = try #require(DecimalText.parse("500.25"))
            try await store.createOrderIntent(intent, event: intentEvent(at: intent.createdAt))
            let stored = try #require(try await store.journaledOrder(tenantId: tenant.id, id: intent.id))
            #expect(stored.request == intent.request)
            #expect(stored.request.notional == DecimalText.parse("500.25"))
            #expect(stored.request.quantity == nil)
            // The digest an idempotency key holds is over the same request the journal keeps.
            #expect(try stored.request.canonicalJSON() == intent.request.canonicalJSON())

            var placed = accepted(intent, brokerOrderId: "B-2", status: .filled)
            let submitted = journalDate(-2_000)
            placed.order?.quantity = try #require(DecimalText.parse("2.63"))
            placed.order?.filledQuantity = try #require(DecimalText.parse("2.63"))
            placed.order?.notional = intent.request.notional
            placed.order?.replaces = "B-1"
            placed.order?.replacedBy = "B-3"
            placed.order?.submittedAt = submitted
            placed.order?.filledAt = journalDate(-1_000)
            placed.order?.canceledAt = journalDate(-500)
            placed.order?.expiredAt = journalDate(-250)
            try await store.updateJournaledOrder(placed, event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate()))
            let reread = try #require(try await store.journaledOrder(tenantId: tenant.id, id: intent.id))
            #expect(reread.order == placed.order)
            #expect(reread.order?.notional == DecimalText.parse("500.25"))
            #expect(reread.order?.submittedAt == submitted)
            #expect(reread.order?.replaces == "B-1" && reread.order?.replacedBy == "B-3")
        }
    }
}
