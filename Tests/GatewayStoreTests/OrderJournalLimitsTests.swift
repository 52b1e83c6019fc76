import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

/// Issue 12 in the store: the journal reads back whatever it wrote and never writes what it could not read; a
/// released order is taken back by exactly one request; claims hold across tenants at one broker account; a busy
/// database is a retryable 503.
@Suite("Order journal: its own rows, released orders, claims across tenants, busy")
struct OrderJournalLimitsTests {
    /// Before: decimals were read back through the client's 64-character limit, so an order of "1e70" (71 characters
    /// in canonical text) or a broker's long value could be written and then never read.
    @Test(arguments: StoreBackend.all) func everyDecimalTheJournalWritesReadsBack(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            var intent = sampleIntent(tenantId: tenant.id)
            intent.request.quantity = .greatestFiniteMagnitude
            intent.request.limitPrice = .leastNonzeroMagnitude
            try await store.createOrderIntent(intent, event: intentEvent(at: intent.createdAt))
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: intent.id) == intent)

            var placed = accepted(intent, brokerOrderId: "B-1")
            placed.order?.filledQuantity = try #require(DecimalText.parse("1e70"))
            placed.order?.averageFillPrice = Decimal(1) / Decimal(3)
            try await store.updateJournaledOrder(placed, event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate()))
            let reread = try #require(try await store.journaledOrder(tenantId: tenant.id, id: intent.id))
            #expect(reread.order?.filledQuantity == DecimalText.parse("1e70"))
            #expect(reread.order?.averageFillPrice == Decimal(1) / Decimal(3))
            #expect(reread.request.quantity == .greatestFiniteMagnitude)
        }
    }

    /// A broker's sum that overflows is NaN, which no reader takes: it is refused before the write (the broker's
    /// answer is malformed), and the stored row stays readable. Before, "NaN" was written and the row was lost.
    @Test(arguments: StoreBackend.all) func aValueThatWouldNotReadBackIsNeverWritten(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let intent = try await journalIntent(in: store, tenantId: tenant.id)
            var placed = accepted(intent, brokerOrderId: "B-1")
            placed.order?.averageFillPrice = Decimal.nan
            await expectGatewayError(.malformedResponse) {
                try await store.updateJournaledOrder(placed, event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate()))
            }
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: intent.id) == intent)
            #expect(try await store.orderEvents(tenantId: tenant.id, orderId: intent.id).count == 1)
        }
    }

    @Test(arguments: StoreBackend.all) func aRowThatCannotBeReadIsListedAndNamedNeverHidesTheOthers(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            try await store.rawExecute(
                """
                INSERT INTO orders (id, tenant_id, connection_id, account_id, client_order_id, request, state, created_at, updated_at)
                VALUES ('ord_bad', ?, 'conn_a', 'PA1', 'cid-bad', 'not json', 'unknown', 1, 1)
                """,
                [tenant.id]
            )
            var good = sampleIntent(tenantId: tenant.id, state: .unknown)
            good.sentAt = good.createdAt.addingTimeInterval(5)
            try await store.createOrderIntent(good, event: intentEvent(at: good.createdAt))

            let references = try await store.journaledOrderReferences(in: [.unknown], limit: 10)
            #expect(references.map(\.id) == ["ord_bad", good.id])
            #expect(references.last?.sentAt == good.sentAt)
            #expect(references.first?.sentAt == StoreClock.date(1))
            #expect(try await store.journaledOrderReferences(tenantId: tenant.id, in: [.unknown], limit: 10).count == 2)
            #expect(try await store.journaledOrder(tenantId: tenant.id, id: good.id) == good)
            do {
                _ = try await store.journaledOrder(tenantId: tenant.id, id: "ord_bad")
                Issue.record("an unreadable row was read")
            } catch let error as GatewayError {
                #expect(error.code == .internalError)
                #expect(error.message.contains("ord_bad"))
                #expect(!error.message.contains("not json"))
            }
        }
    }

    // MARK: Released orders

    @Test(arguments: StoreBackend.all) func aReleasedOrderIsTakenBackOnceAndSentAgainLater(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let other = try await store.createTenant(name: "Other")
            let intent = try await journalIntent(in: store, tenantId: tenant.id)
            let event = OrderEvent(kind: .intent, state: .submitting, detail: "again", at: journalDate(5_000))
            // Only a released order can be taken back.
            #expect(try await store.reclaimReleasedOrder(tenantId: tenant.id, id: intent.id, event: event) == nil)
            var released = intent
            released.state = .released
            released.error = .rateLimited
            released.errorMessage = "slow down"
            try await store.updateJournaledOrder(released, event: OrderEvent(kind: .released, state: .released, at: journalDate()))
            #expect(try await store.reclaimReleasedOrder(tenantId: other.id, id: intent.id, event: event) == nil)

            let taken = try #require(try await store.reclaimReleasedOrder(tenantId: tenant.id, id: intent.id, event: event))
            #expect(taken.state == .submitting)
            #expect(taken.error == nil)
            #expect(taken.errorMessage == nil)
            #expect(taken.sentAt == event.at)
            #expect(taken.createdAt == intent.createdAt)
            #expect(try await store.reclaimReleasedOrder(tenantId: tenant.id, id: intent.id, event: event) == nil)
            let events = try await store.orderEvents(tenantId: tenant.id, orderId: intent.id)
            #expect(events.map(\.kind) == [.intent, .released, .intent])
            #expect(events.map(\.sequence) == [1, 2, 3])
        }
    }

    /// The compare-and-set holds across processes: two stores on one file (two gateways), many takers, one winner.
    @Test(arguments: StoreBackend.shared) func concurrentTakersOfAReleasedOrderHaveOneWinner(backend: StoreBackend) async throws {
        try await withTwoStores(backend) { first, second in
            let tenant = try await first.createTenant(name: "Acme")
            var intent = try await journalIntent(in: first, tenantId: tenant.id)
            intent.state = .released
            try await first.updateJournaledOrder(intent, event: OrderEvent(kind: .released, state: .released, at: journalDate()))
            let released = intent
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        try await store.reclaimReleasedOrder(
                            tenantId: tenant.id,
                            id: released.id,
                            event: OrderEvent(kind: .intent, state: .submitting, at: journalDate())
                        ) != nil
                    }
                }
                var count = 0
                for try await won in group where won { count += 1 }
                return count
            }
            #expect(winners == 1)
            #expect(try await first.orderEvents(tenantId: tenant.id, orderId: released.id).map(\.kind) == [.intent, .released, .intent])
        }
    }

    // MARK: Claims across tenants

    /// Two tenants link one broker account (the same broker, base URL and account, however the URL is spelled): a
    /// broker order id one of them recorded is claimed for both, and neither can record it for a second intent. An
    /// account elsewhere (another base URL, another account id) is another venue.
    @Test(arguments: StoreBackend.all) func claimsHoldAcrossTenantsAtOneBrokerAccount(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let a = try await store.createTenant(name: "A")
            let b = try await store.createTenant(name: "B")
            func connection(_ tenant: Tenant, _ baseURL: String) async throws -> ConnectionDescriptor {
                try await store.createConnection(
                    tenantId: tenant.id,
                    userId: nil,
                    NewConnection(
                        broker: .tradeogre,
                        displayName: "shared",
                        baseURL: baseURL,
                        credentials: BrokerCredentials(["apiKey": "k"])
                    )
                )
            }
            let connectionA = try await connection(a, "https://tradeogre.com/api/v1")
            let connectionB = try await connection(b, "https://TradeOgre.com/api/v1/")
            let elsewhere = try await connection(b, "https://other.example/api/v1")
            let start = journalDate(-1)

            let theirs = try await journalIntent(in: store, tenantId: b.id, connectionId: connectionB.id)
            try await store.updateJournaledOrder(
                accepted(theirs, brokerOrderId: "uuid-1"),
                event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate())
            )
            #expect(
                try await store.claimedBrokerOrderIds(
                    tenantId: a.id,
                    connectionId: connectionA.id,
                    accountId: "PA1",
                    since: start
                ) == ["uuid-1"]
            )
            #expect(
                try await store.claimedBrokerOrderIds(
                    tenantId: a.id,
                    connectionId: connectionA.id,
                    accountId: "PA2",
                    since: start
                ).isEmpty
            )
            #expect(
                try await store.claimedBrokerOrderIds(
                    tenantId: b.id,
                    connectionId: elsewhere.id,
                    accountId: "PA1",
                    since: start
                ).isEmpty
            )

            // A's intent can never be given B's order, and the refusal names no order of B's.
            let mine = try await journalIntent(in: store, tenantId: a.id, connectionId: connectionA.id)
            do {
                try await store.updateJournaledOrder(
                    accepted(mine, brokerOrderId: "uuid-1"),
                    event: OrderEvent(kind: .reconciled, state: .accepted, at: journalDate())
                )
                Issue.record("two tenants' intents hold one broker order")
            } catch let error as GatewayError {
                #expect(error.code == .conflict)
                #expect(!error.message.contains(theirs.id))
            }
            #expect(try await store.journaledOrder(tenantId: a.id, id: mine.id) == mine)
            // The same id at another venue is another order.
            let far = try await journalIntent(in: store, tenantId: b.id, connectionId: elsewhere.id)
            try await store.updateJournaledOrder(
                accepted(far, brokerOrderId: "uuid-1"),
                event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate())
            )
        }
    }

    /// Rows journaled before the venue existed get it from their connection when the database is upgraded.
    @Test func anUpgradeGivesEarlierOrdersTheirVenue() async throws {
        try await withTemporaryDirectory { directory in
            let path = databasePath(in: directory)
            let cipher = CredentialCipher.random()
            let first = try await SQLiteStore.opening(path: path, cipher: cipher)
            let a = try await first.createTenant(name: "A")
            let b = try await first.createTenant(name: "B")
            let connectionA = try await first.createConnection(
                tenantId: a.id,
                userId: nil,
                NewConnection(
                    broker: .tradeit,
                    displayName: "x",
                    baseURL: "https://ems.tradingticket.com",
                    credentials: BrokerCredentials(["k": "v"])
                )
            )
            let connectionB = try await first.createConnection(
                tenantId: b.id,
                userId: nil,
                NewConnection(
                    broker: .tradeit,
                    displayName: "y",
                    baseURL: "https://ems.tradingticket.com/",
                    credentials: BrokerCredentials(["k": "v"])
                )
            )
            let theirs = try await journalIntent(in: first, tenantId: b.id, connectionId: connectionB.id)
            try await first.updateJournaledOrder(
                accepted(theirs, brokerOrderId: "8000001"),
                event: OrderEvent(kind: .accepted, state: .accepted, at: journalDate())
            )
            // Back to what v3 made.
            try await first.executeRaw(
                """
                DROP INDEX order_broker_ids_venue; DROP INDEX order_broker_ids_venue_order;
                DROP TRIGGER order_broker_ids_never_changed;
                ALTER TABLE order_broker_ids DROP COLUMN venue;
                CREATE TRIGGER order_broker_ids_never_changed BEFORE UPDATE ON order_broker_ids
                BEGIN SELECT RAISE(ABORT, 'recorded broker order ids never change'); END;
                ALTER TABLE orders DROP COLUMN venue; ALTER TABLE orders DROP COLUMN sent_at;
                DELETE FROM grdb_migrations WHERE identifier = 'v5-order-journal-venues';
                """
            )
            try first.close()

            let second = try await SQLiteStore.opening(path: path, cipher: cipher)
            defer { try? second.close() }
            #expect(try await second.appliedMigrations().contains("v5-order-journal-venues"))
            #expect(try await second.journaledOrder(tenantId: b.id, id: theirs.id)?.sentAt == theirs.createdAt)
            #expect(
                try await second.claimedBrokerOrderIds(
                    tenantId: a.id,
                    connectionId: connectionA.id,
                    accountId: "PA1",
                    since: .distantPast
                ) == ["8000001"]
            )
            // The journal's rules still hold after the upgrade.
            await #expect(throws: (any Error).self) {
                try await second.executeRaw("UPDATE order_broker_ids SET broker_order_id = 'x'")
            }
        }
    }

    // MARK: Busy

    /// Before: SQLITE_BUSY was a 500 `internal`.
    @Test func aWriteThatMeetsAnotherWritersLockIsARetryable503() async throws {
        try await withTemporaryDirectory { directory in
            let path = databasePath(in: directory)
            let store = try await SQLiteStore.opening(path: path, cipher: .random(), busyTimeout: 0.05)
            defer { try? store.close() }
            let lock = try WriteLockHolder(path: path)
            do {
                _ = try await store.createTenant(name: "blocked")
                Issue.record("the write went through another writer's lock")
            } catch let error as GatewayError {
                #expect(error.code == .upstreamUnavailable)
                #expect(error.code.httpStatus == 503)
                #expect(error.retryable)
                #expect(error.retryAfter == 1)
            }
            lock.release()
            _ = try await store.createTenant(name: "after")
        }
    }
}
