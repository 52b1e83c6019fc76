import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Order journal")
struct OrderJournalTests {
    @Test("an intent reads back as written, with its first event", arguments: StoreBackend.all)
    func roundTrip(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let intent = sampleIntent(tenantId: tenant.id)
            try await store.createOrderIntent(intent, event: intentEvent(at: intent.createdAt))

            let read = try #require(try await store.journaledOrder(tenantId: tenant.id, id: intent.id))
            #expect(read == intent)
            #expect(read.request.limitPrice == Decimal(string: "187.05"))
            #expect(read.request.expiresAt == intent.request.expiresAt)
            #expect(
                try await store.orderEvents(tenantId: tenant.id, orderId: intent.id) == [
                    OrderEvent(
                        kind: .intent,
                        state: .submitting,
                        detail: "client order id",
                        at: intent.createdAt,
                        sequence: 1
                    )
                ]
            )
            // Decimals are strings in the JSON column, dates integer milliseconds.
            let requestJSON = try await store.rawStrings("SELECT request FROM orders WHERE id = ?", [intent.id])
            #expect(requestJSON.first?.contains(#""limitPrice":"187.05""#) == true)
            #expect(requestJSON.first?.contains(#""expiresAt":\#(StoreClock.millis(intent.request.expiresAt!))"#) == true)
        }
    }

    @Test("intents, updates and events survive a restart: a new store on the same file and key reads them back")
    func survivesRestart() async throws {
        try await withTemporaryDirectory { directory in
            let path = databasePath(in: directory)
            let cipher = CredentialCipher.random()
            let first = try await SQLiteStore.opening(path: path, cipher: cipher)
            let tenant = try await first.createTenant(name: "Acme")
            let pending = sampleIntent(tenantId: tenant.id)
            try await first.createOrderIntent(pending, event: intentEvent(at: pending.createdAt))
            let placed = sampleIntent(tenantId: tenant.id)
            try await first.createOrderIntent(placed, event: intentEvent(at: placed.createdAt))
            var done = accepted(placed, brokerOrderId: "B-1", at: journalDate(5))
            done.order?.filledQuantity = Decimal(string: "0.25")!
            let acceptedEvent = OrderEvent(
                kind: .accepted,
                state: .accepted,
                status: .open,
                brokerOrderId: "B-1",
                at: done.updatedAt
            )
            try await first.updateJournaledOrder(done, event: acceptedEvent)
            _ = try await first.claimIdempotencyKey(
                tenantId: tenant.id,
                key: "k",
                requestHash: "h",
                proposedOrderId: placed.id,
                retention: 86_400
            )
            try first.close()

            let second = try await SQLiteStore.opening(path: path, cipher: cipher)
            defer { try? second.close() }
            #expect(
                try await second.appliedMigrations() == [
                    "v1-initial", "v2-order-journal", "v3-tenant-read-freshness", "v4-sandbox-urls-without-path", "v5-order-journal-venues",
                    "v6-link-states", "v7-tenancy", "v8-sessions", "v9-leases", "v11-goals", "v12-alerts", "v13-order-feed", "v14-broker-id-reuse",
                    "v15-push-tokens",
                ]
            )
            #expect(try await second.journaledOrder(tenantId: tenant.id, id: pending.id) == pending)
            let reread = try #require(try await second.journaledOrder(tenantId: tenant.id, id: placed.id))
            #expect(reread == done)
            #expect(reread.order?.filledQuantity == Decimal(string: "0.25"))
            #expect(reread.order?.instrument.currency == "USD")
            #expect(
                try await second.orderEvents(tenantId: tenant.id, orderId: placed.id) == [
                    OrderEvent(kind: .intent, state: .submitting, detail: "client order id", at: placed.createdAt, sequence: 1),
                    OrderEvent(
                        kind: .accepted,
                        state: .accepted,
                        status: .open,
                        brokerOrderId: "B-1",
                        at: done.updatedAt,
                        sequence: 2
                    ),
                ]
            )
            #expect(
                try await second.journaledOrder(tenantId: tenant.id, connectionId: "conn_a", brokerOrderId: "B-1")?.id
                    == placed.id
            )
            #expect(try await second.journaledOrders(in: [.submitting], limit: 10) == [pending])
            #expect(
                try await second.claimIdempotencyKey(
                    tenantId: tenant.id,
                    key: "k",
                    requestHash: "h",
                    proposedOrderId: "ord_other",
                    retention: 86_400
                )
                    == .existing(orderId: placed.id)
            )
        }
    }

    @Test("events are appended with increasing sequences, whatever sequence the caller gives", arguments: StoreBackend.all)
    func eventsAreAppendOnly(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let intent = try await journalIntent(in: store, tenantId: tenant.id)
            var order = accepted(intent, brokerOrderId: "B-1")
            let kinds: [OrderEvent.Kind] = [.accepted, .statusChanged, .modified, .canceled]
            for (index, kind) in kinds.enumerated() {
                order.order?.status = index == 3 ? .canceled : .open
                try await store.updateJournaledOrder(
                    order,
                    event: OrderEvent(
                        kind: kind,
                        state: .accepted,
                        status: order.order?.status,
                        brokerOrderId: "B-1",
                        detail: "step \(index)",
                        at: journalDate(Int64(index)),
                        sequence: 99
                    )
                )
            }
            let events = try await store.orderEvents(tenantId: tenant.id, orderId: intent.id)
            #expect(events.map(\.sequence) == [1, 2, 3, 4, 5])
            #expect(events.map(\.kind) == [.intent] + kinds)
            #expect(events.last?.status == .canceled)
            #expect(events.dropFirst().allSatisfy { $0.brokerOrderId == "B-1" })
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: intent.id)?.order?.status == .canceled)

            // Below the API too: history cannot be rewritten or removed.
            await #expect(throws: (any Error).self) {
                try await store.rawExecute("UPDATE order_events SET kind = 'forged' WHERE order_id = ?", [intent.id])
            }
            await #expect(throws: (any Error).self) {
                try await store.rawExecute("DELETE FROM order_events WHERE order_id = ?", [intent.id])
            }
            await #expect(throws: (any Error).self) {
                try await store.rawExecute("DELETE FROM orders WHERE id = ?", [intent.id])
            }
            await #expect(throws: (any Error).self) {
                try await store.rawExecute("DELETE FROM order_broker_ids WHERE order_id = ?", [intent.id])
            }
            #expect(try await store.orderEvents(tenantId: tenant.id, orderId: intent.id) == events)
        }
    }

    @Test("concurrent updates of one order each get their own sequence, with no gap", arguments: StoreBackend.all)
    func concurrentUpdates(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let intent = try await journalIntent(in: store, tenantId: tenant.id)
            let order = accepted(intent, brokerOrderId: "B-1")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await store.updateJournaledOrder(
                            order,
                            event: OrderEvent(kind: .statusChanged, state: .accepted, detail: "\(index)", at: journalDate())
                        )
                    }
                }
                try await group.waitForAll()
            }
            let events = try await store.orderEvents(tenantId: tenant.id, orderId: intent.id)
            #expect(events.map(\.sequence) == Array(1...21))
            #expect(Set(events.compactMap(\.detail)).count == 21)
        }
    }

    @Test("updatedAt moves strictly forward, even when the caller's updatedAt is stale; createdAt never moves", arguments: StoreBackend.all)
    func updatedAtIncreases(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let intent = try await journalIntent(in: store, tenantId: tenant.id)
            var previous = intent.updatedAt
            for _ in 0..<5 {
                // The same stale value every time, as when a caller journals an event without touching the order.
                try await store.updateJournaledOrder(
                    intent,
                    event: OrderEvent(kind: .modifyFailed, state: .submitting, at: journalDate())
                )
                let read = try #require(try await store.journaledOrder(tenantId: tenant.id, id: intent.id))
                #expect(read.updatedAt > previous)
                #expect(read.createdAt == intent.createdAt)
                previous = read.updatedAt
            }
            let later = journalDate(60_000)
            var fresh = intent
            fresh.updatedAt = later
            try await store.updateJournaledOrder(fresh, event: OrderEvent(kind: .unknown, state: .unknown, at: later))
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: intent.id)?.updatedAt == later)
        }
    }

    @Test("rejection and unknown outcomes keep their error code and message", arguments: StoreBackend.all)
    func errors(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let intent = try await journalIntent(in: store, tenantId: tenant.id)
            var rejected = intent
            rejected.state = .rejected
            rejected.error = .insufficientFunds
            rejected.errorMessage = "buying power 12.00 < 233.81"
            rejected.updatedAt = journalDate(1)
            try await store.updateJournaledOrder(
                rejected,
                event: OrderEvent(kind: .rejected, state: .rejected, status: .rejected, detail: "insufficient_funds", at: rejected.updatedAt)
            )
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: intent.id) == rejected)
        }
    }

    @Test("an old broker id of a replace chain still finds the order; the connection scopes the look-up", arguments: StoreBackend.all)
    func replaceChain(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let intent = try await journalIntent(in: store, tenantId: tenant.id)
            try await store.updateJournaledOrder(
                accepted(intent, brokerOrderId: "B-1"),
                event: OrderEvent(kind: .accepted, state: .accepted, status: .open, brokerOrderId: "B-1", at: journalDate())
            )
            let replaced = accepted(intent, brokerOrderId: "B-2")
            try await store.updateJournaledOrder(
                replaced,
                event: OrderEvent(
                    kind: .modified,
                    state: .accepted,
                    status: .open,
                    brokerOrderId: "B-2",
                    detail: "B-1 → B-2",
                    at: journalDate()
                )
            )
            try await store.updateJournaledOrder(
                accepted(intent, brokerOrderId: "B-3"),
                event: OrderEvent(kind: .modified, state: .accepted, status: .open, brokerOrderId: "B-3", at: journalDate())
            )

            for brokerId in ["B-1", "B-2", "B-3"] {
                let found = try await store.journaledOrder(tenantId: tenant.id, connectionId: "conn_a", brokerOrderId: brokerId)
                #expect(found?.id == intent.id, "\(brokerId)")
                #expect(found?.brokerOrderId == "B-3")
            }
            #expect(try await store.journaledOrder(tenantId: tenant.id, connectionId: "conn_b", brokerOrderId: "B-1") == nil)
            #expect(try await store.journaledOrder(tenantId: tenant.id, connectionId: "conn_a", brokerOrderId: "B-9") == nil)
            // Re-recording an id the order already has is no change.
            try await store.updateJournaledOrder(
                accepted(intent, brokerOrderId: "B-3"),
                event: OrderEvent(kind: .statusChanged, state: .accepted, status: .open, at: journalDate())
            )
            #expect(
                try await store.claimedBrokerOrderIds(tenantId: tenant.id, connectionId: "conn_a", accountId: "PA1", since: .distantPast)
                    == ["B-1", "B-2", "B-3"]
            )
        }
    }

    @Test("one broker order never belongs to two orders; the refused write changes nothing", arguments: StoreBackend.all)
    func brokerIdBelongsToOneOrder(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let first = try await journalIntent(in: store, tenantId: tenant.id)
            let second = try await journalIntent(in: store, tenantId: tenant.id)
            try await store.updateJournaledOrder(
                accepted(first, brokerOrderId: "B-1"),
                event: OrderEvent(kind: .accepted, state: .accepted, brokerOrderId: "B-1", at: journalDate())
            )

            await expectGatewayError(.conflict) {
                try await store.updateJournaledOrder(
                    accepted(second, brokerOrderId: "B-1"),
                    event: OrderEvent(kind: .reconciled, state: .accepted, brokerOrderId: "B-1", at: journalDate())
                )
            }
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: second.id) == second)
            #expect(try await store.orderEvents(tenantId: tenant.id, orderId: second.id).count == 1)

            // Nor can a new intent arrive with it.
            let third = sampleIntent(tenantId: tenant.id, state: .accepted, brokerOrderId: "B-1")
            await expectGatewayError(.conflict) {
                try await store.createOrderIntent(third, event: intentEvent())
            }
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: third.id) == nil)

            // The same broker id on another connection is another broker order.
            let elsewhere = try await journalIntent(in: store, tenantId: tenant.id, connectionId: "conn_b")
            try await store.updateJournaledOrder(
                accepted(elsewhere, brokerOrderId: "B-1"),
                event: OrderEvent(kind: .accepted, state: .accepted, brokerOrderId: "B-1", at: journalDate())
            )
            #expect(
                try await store.journaledOrder(tenantId: tenant.id, connectionId: "conn_b", brokerOrderId: "B-1")?.id
                    == elsewhere.id
            )
            #expect(
                try await store.journaledOrder(tenantId: tenant.id, connectionId: "conn_a", brokerOrderId: "B-1")?.id
                    == first.id
            )
        }
    }

    @Test("an intent with a broker id already known is recorded under it", arguments: StoreBackend.all)
    func intentWithBrokerId(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let intent = sampleIntent(tenantId: tenant.id, state: .accepted, brokerOrderId: "B-7")
            try await store.createOrderIntent(intent, event: intentEvent())
            #expect(try await store.journaledOrder(tenantId: tenant.id, connectionId: "conn_a", brokerOrderId: "B-7") == intent)
        }
    }

    @Test("a client order id is used once per connection; an order id once", arguments: StoreBackend.all)
    func duplicates(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let a = try await store.createTenant(name: "A")
            let b = try await store.createTenant(name: "B")
            let intent = try await journalIntent(in: store, tenantId: a.id, clientOrderId: "my-order-1")
            await expectGatewayError(.conflict) {
                try await store.createOrderIntent(
                    sampleIntent(tenantId: a.id, clientOrderId: "my-order-1"),
                    event: intentEvent()
                )
            }
            await expectGatewayError(.conflict) {
                try await store.createOrderIntent(
                    sampleIntent(tenantId: a.id, id: intent.id, clientOrderId: "my-order-2"),
                    event: intentEvent()
                )
            }
            // Another connection, or another tenant, may use the same client order id.
            _ = try await journalIntent(in: store, tenantId: a.id, connectionId: "conn_b", clientOrderId: "my-order-1")
            _ = try await journalIntent(in: store, tenantId: b.id, clientOrderId: "my-order-1")
            #expect(try await store.orderEvents(tenantId: a.id, orderId: intent.id).count == 1)
        }
    }

    @Test("an order outlives its connection", arguments: StoreBackend.all)
    func outlivesConnection(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let connection = try await store.createConnection(tenantId: tenant.id, userId: nil, sampleConnection())
            let intent = try await journalIntent(in: store, tenantId: tenant.id, connectionId: connection.id)
            #expect(try await store.deleteConnection(tenantId: tenant.id, id: connection.id))
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: intent.id) == intent)
            #expect(try await store.orderEvents(tenantId: tenant.id, orderId: intent.id).count == 1)
        }
    }

    @Test("unknown orders and tenants are not found", arguments: StoreBackend.all)
    func notFound(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            await expectGatewayError(.notFound) {
                try await store.updateJournaledOrder(
                    sampleIntent(tenantId: tenant.id),
                    event: OrderEvent(kind: .accepted, state: .submitting, at: journalDate())
                )
            }
            await expectGatewayError(.notFound) {
                try await store.createOrderIntent(sampleIntent(tenantId: "ten_missing"), event: intentEvent())
            }
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: "ord_missing") == nil)
            #expect(try await store.orderEvents(tenantId: tenant.id, orderId: "ord_missing").isEmpty)
        }
    }

    @Test("journaledOrders(in:) spans tenants, oldest first, filtered by state, limited", arguments: StoreBackend.all)
    func ordersInStates(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let a = try await store.createTenant(name: "A")
            let b = try await store.createTenant(name: "B")
            let base = StoreClock.nowMillis() - 10_000
            func at(_ offset: Int64) -> Date { StoreClock.date(base + offset) }
            // Created out of order, across tenants.
            let plan: [(tenant: String, offset: Int64, state: JournalState)] = [
                (b.id, 40, .unknown), (a.id, 10, .submitting), (a.id, 30, .accepted), (b.id, 20, .submitting),
                (a.id, 50, .rejected), (b.id, 60, .unknown),
            ]
            var byOffset: [Int64: JournaledOrder] = [:]
            for item in plan {
                let intent = sampleIntent(tenantId: item.tenant, createdAt: at(item.offset))
                try await store.createOrderIntent(intent, event: intentEvent(at: intent.createdAt))
                var order = intent
                if item.state != .submitting {
                    order.state = item.state
                    try await store.updateJournaledOrder(
                        order,
                        event: OrderEvent(
                            kind: OrderEvent.Kind(rawValue: item.state.rawValue) ?? .statusChanged,
                            state: item.state,
                            at: journalDate()
                        )
                    )
                    order = try #require(try await store.journaledOrder(tenantId: item.tenant, id: intent.id))
                }
                byOffset[item.offset] = order
            }
            let pending = try await store.journaledOrders(in: [.unknown, .submitting], limit: 100)
            #expect(pending == [10, 20, 40, 60].map { byOffset[$0]! })
            #expect(try await store.journaledOrders(in: [.submitting, .unknown, .submitting], limit: 2) == [10, 20].map { byOffset[$0]! })
            #expect(try await store.journaledOrders(in: [.rejected], limit: 100) == [byOffset[50]!])
            #expect(try await store.journaledOrders(in: [], limit: 100).isEmpty)
            #expect(try await store.journaledOrders(in: [.unknown], limit: 0).isEmpty)
        }
    }

    @Test("claimedBrokerOrderIds: the connection's ids recorded since a time, replaced ones included", arguments: StoreBackend.all)
    func claimedBrokerOrderIds(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let a = try await store.createTenant(name: "A")
            let b = try await store.createTenant(name: "B")
            let start = journalDate()
            let first = try await journalIntent(in: store, tenantId: a.id)
            try await store.updateJournaledOrder(
                accepted(first, brokerOrderId: "B-1"),
                event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate())
            )
            try await store.updateJournaledOrder(
                accepted(first, brokerOrderId: "B-2"),
                event: OrderEvent(kind: .modified, state: .accepted, at: journalDate())
            )
            let second = try await journalIntent(in: store, tenantId: a.id)
            try await store.updateJournaledOrder(
                accepted(second, brokerOrderId: "B-3"),
                event: OrderEvent(kind: .reconciled, state: .accepted, at: journalDate())
            )
            // Not this connection's, not this tenant's, or never sent.
            let other = try await journalIntent(in: store, tenantId: a.id, connectionId: "conn_b")
            try await store.updateJournaledOrder(
                accepted(other, brokerOrderId: "B-4"),
                event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate())
            )
            let theirs = try await journalIntent(in: store, tenantId: b.id)
            try await store.updateJournaledOrder(
                accepted(theirs, brokerOrderId: "B-5"),
                event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate())
            )
            _ = try await journalIntent(in: store, tenantId: a.id)

            #expect(
                try await store.claimedBrokerOrderIds(tenantId: a.id, connectionId: "conn_a", accountId: "PA1", since: start) == [
                    "B-1", "B-2", "B-3",
                ]
            )
            #expect(try await store.claimedBrokerOrderIds(tenantId: a.id, connectionId: "conn_b", accountId: "PA1", since: start) == ["B-4"])
            #expect(try await store.claimedBrokerOrderIds(tenantId: b.id, connectionId: "conn_a", accountId: "PA1", since: start) == ["B-5"])
            #expect(
                try await store.claimedBrokerOrderIds(tenantId: a.id, connectionId: "conn_a", accountId: "PA1", since: journalDate(60_000)).isEmpty
            )
        }
    }

    @Test("tenant B can neither see nor change tenant A's orders, events or broker ids", arguments: StoreBackend.all)
    func tenantIsolation(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let a = try await store.createTenant(name: "A")
            let b = try await store.createTenant(name: "B")
            let intent = try await journalIntent(in: store, tenantId: a.id)
            let placed = accepted(intent, brokerOrderId: "B-1")
            try await store.updateJournaledOrder(placed, event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate()))
            let stored = try #require(try await store.journaledOrder(tenantId: a.id, id: intent.id))

            #expect(try await store.journaledOrder(tenantId: b.id, id: intent.id) == nil)
            #expect(try await store.journaledOrder(tenantId: b.id, connectionId: "conn_a", brokerOrderId: "B-1") == nil)
            #expect(try await store.orderEvents(tenantId: b.id, orderId: intent.id).isEmpty)
            #expect(try await store.claimedBrokerOrderIds(tenantId: b.id, connectionId: "conn_a", accountId: "PA1", since: .distantPast).isEmpty)
            var hijack = placed
            hijack.tenantId = b.id
            hijack.state = .rejected
            await expectGatewayError(.notFound) {
                try await store.updateJournaledOrder(hijack, event: OrderEvent(kind: .rejected, state: .rejected, at: journalDate()))
            }
            // B may use the same broker id on its own connection of the same name: the journal keys ids per tenant.
            let own = try await journalIntent(in: store, tenantId: b.id)
            try await store.updateJournaledOrder(
                accepted(own, brokerOrderId: "B-1"),
                event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate())
            )

            #expect(try await store.journaledOrder(tenantId: a.id, id: intent.id) == stored)
            #expect(try await store.orderEvents(tenantId: a.id, orderId: intent.id).count == 2)
            #expect(try await store.journaledOrder(tenantId: a.id, connectionId: "conn_a", brokerOrderId: "B-1")?.id == intent.id)
            #expect(try await store.journaledOrder(tenantId: b.id, connectionId: "conn_a", brokerOrderId: "B-1")?.id == own.id)
        }
    }
}
