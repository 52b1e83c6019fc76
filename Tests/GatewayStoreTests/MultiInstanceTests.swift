import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewayPostgresStore
@testable import GatewaySQLiteStore
@testable import GatewayStore

/// Two store instances on one database, as two gateway processes behind a load balancer: what must hold across
/// them (issue 14). On SQLite, two stores on one file; on PostgreSQL, two pools on one schema.
@Suite("Many instances on one database")
struct MultiInstanceTests {
    static let day: TimeInterval = 24 * 3600

    @Test("two instances migrating one fresh database at once apply each migration exactly once", arguments: StoreBackend.shared)
    func concurrentMigrations(backend: StoreBackend) async throws {
        // Both open (and so migrate) concurrently inside withTwoStores; neither may fail, and each migration is
        // recorded once. Without the migration lock, the second CREATE TABLE of a fresh schema fails.
        try await withTwoStores(backend) { first, second in
            let expected =
                backend == .sqlite
                ? [
                    "v1-initial", "v2-order-journal", "v3-tenant-read-freshness", "v4-sandbox-urls-without-path",
                    "v5-order-journal-venues", "v6-link-states", "v7-tenancy", "v8-sessions", "v9-leases", "v11-goals", "v12-alerts",
                    "v13-order-feed", "v14-broker-id-reuse", "v15-push-tokens",
                ]
                : [
                    "v8-schema", "v9-leases", "v10-change-stamp", "v11-goals", "v12-alerts", "v13-order-feed", "v14-broker-id-reuse",
                    "v15-push-tokens",
                ]
            let firstApplied = try await applied(first)
            #expect(firstApplied == expected)
            #expect(try await applied(second) == firstApplied)
            #expect(Set(firstApplied).count == firstApplied.count)
            #expect(try await first.migrationsApplied())
            #expect(try await second.migrationsApplied())
            // Both work on the same data.
            let tenant = try await first.createTenant(name: "Acme")
            #expect(try await second.tenant(id: tenant.id) == tenant)
        }
    }

    func applied(_ store: AnyStore) async throws -> [String] {
        switch store {
        case let store as SQLiteStore: try await store.appliedMigrations()
        case let store as PostgresStore: try await store.appliedMigrations()
        default: []
        }
    }

    @Test("on PostgreSQL, many instances starting at once on a fresh schema all succeed and record each migration once")
    func manyInstancesMigrateOnce() async throws {
        guard StoreBackend.postgresURL != nil else { return }
        let cipher = CredentialCipher.random()
        try await withPostgresSchema { settings in
            var small = settings
            small.maximumConnections = 2
            // Four instances, two pairs, all preparing at once.
            try await withTwoPostgresStores(settings: small, cipher: cipher) { first, _ in
                try await withTwoPostgresStores(settings: small, cipher: cipher) { _, _ in }
                let rows = try await first.rawStrings(
                    "SELECT name || ':' || applied_order::text FROM schema_migrations ORDER BY applied_order"
                )
                #expect(rows == PostgresStore.migrations.enumerated().map { "\($0.element.name):\($0.offset + 1)" })
            }
        }
    }

    @Test("50 concurrent claims of one idempotency key through two instances: exactly one winner", arguments: StoreBackend.shared)
    func claimsAcrossInstances(backend: StoreBackend) async throws {
        try await withTwoStores(backend) { first, second in
            let tenant = try await first.createTenant(name: "Acme")
            let claims = try await withThrowingTaskGroup(of: (proposed: String, claim: IdempotencyClaim).self) { group in
                for index in 0..<50 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        let proposed = "ord_\(index)"
                        let claim = try await store.claimIdempotencyKey(
                            tenantId: tenant.id,
                            key: "one-key",
                            requestHash: "same-request",
                            proposedOrderId: proposed,
                            retention: Self.day
                        )
                        return (proposed, claim)
                    }
                }
                var all: [(proposed: String, claim: IdempotencyClaim)] = []
                for try await claim in group { all.append(claim) }
                return all
            }
            #expect(claims.count == 50)
            let winners = claims.filter { if case .claimed = $0.claim { true } else { false } }
            try #require(winners.count == 1)
            let winner = winners[0]
            #expect(claims.filter { $0.proposed != winner.proposed }.allSatisfy { $0.claim == .existing(orderId: winner.proposed) })
            #expect(try await second.rawStrings("SELECT order_id FROM idempotency_keys WHERE tenant_id = ?", [tenant.id]) == [winner.proposed])
        }
    }

    @Test("a broker order id recorded through two instances at once belongs to one order", arguments: StoreBackend.shared)
    func brokerOrderIdOwnershipAcrossInstances(backend: StoreBackend) async throws {
        try await withTwoStores(backend) { first, second in
            let tenant = try await first.createTenant(name: "Acme")
            var intents: [JournaledOrder] = []
            for _ in 0..<10 { intents.append(try await journalIntent(in: first, tenantId: tenant.id)) }
            let acceptedCount = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (index, intent) in intents.enumerated() {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        do {
                            try await store.updateJournaledOrder(
                                accepted(intent, brokerOrderId: "B-shared"),
                                event: OrderEvent(kind: .accepted, state: .accepted, brokerOrderId: "B-shared", at: journalDate())
                            )
                            return true
                        } catch let error as GatewayError where error.code == .conflict {
                            return false
                        }
                    }
                }
                var count = 0
                for try await won in group where won { count += 1 }
                return count
            }
            #expect(acceptedCount == 1)
            let owner = try await second.journaledOrder(tenantId: tenant.id, connectionId: "conn_a", brokerOrderId: "B-shared")
            #expect(owner?.state == .accepted)
        }
    }

    @Test("journal updates of one order through two instances get consecutive event sequences", arguments: StoreBackend.shared)
    func journalUpdatesAcrossInstances(backend: StoreBackend) async throws {
        try await withTwoStores(backend) { first, second in
            let tenant = try await first.createTenant(name: "Acme")
            let intent = try await journalIntent(in: first, tenantId: tenant.id)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        try await store.updateJournaledOrder(
                            intent,
                            event: OrderEvent(kind: .statusChanged, state: .submitting, detail: "\(index)", at: journalDate())
                        )
                    }
                }
                try await group.waitForAll()
            }
            let events = try await second.orderEvents(tenantId: tenant.id, orderId: intent.id)
            #expect(events.map(\.sequence) == Array(1...21))
            #expect(Set(events.dropFirst().compactMap(\.detail)) == Set((0..<20).map(String.init)))
        }
    }

    // MARK: Leases

    @Test("a lease has one holder at a time; it renews; it lapses after its ttl and another instance takes it", arguments: StoreBackend.shared)
    func leaseLifecycle(backend: StoreBackend) async throws {
        try await withTwoStores(backend) { first, second in
            let start = StoreClock.date(StoreClock.nowMillis())
            let ttl = Duration.seconds(30)
            #expect(try await first.tryAcquireLease(name: "reconciler", holder: "a", ttl: ttl, now: start))
            #expect(try await !second.tryAcquireLease(name: "reconciler", holder: "b", ttl: ttl, now: start.addingTimeInterval(1)))
            // The holder asking again renews it, and so does renewLease.
            #expect(try await first.tryAcquireLease(name: "reconciler", holder: "a", ttl: ttl, now: start.addingTimeInterval(10)))
            #expect(try await second.renewLease(name: "reconciler", holder: "a", ttl: ttl, now: start.addingTimeInterval(20)))
            #expect(try await !second.renewLease(name: "reconciler", holder: "b", ttl: ttl, now: start.addingTimeInterval(20)))
            // Still held just before the renewed expiry (20 s + 30 s), free at it.
            #expect(try await !second.tryAcquireLease(name: "reconciler", holder: "b", ttl: ttl, now: start.addingTimeInterval(49.999)))
            #expect(try await second.tryAcquireLease(name: "reconciler", holder: "b", ttl: ttl, now: start.addingTimeInterval(50)))
            // The old holder lost it: it can neither renew nor take it back while b holds it.
            #expect(try await !first.renewLease(name: "reconciler", holder: "a", ttl: ttl, now: start.addingTimeInterval(51)))
            #expect(try await !first.tryAcquireLease(name: "reconciler", holder: "a", ttl: ttl, now: start.addingTimeInterval(51)))
            // A release by someone else does nothing; the holder's release frees it at once.
            try await first.releaseLease(name: "reconciler", holder: "a")
            #expect(try await !first.tryAcquireLease(name: "reconciler", holder: "a", ttl: ttl, now: start.addingTimeInterval(52)))
            try await second.releaseLease(name: "reconciler", holder: "b")
            #expect(try await first.tryAcquireLease(name: "reconciler", holder: "a", ttl: ttl, now: start.addingTimeInterval(53)))
            // Another lease name is independent.
            #expect(try await second.tryAcquireLease(name: "other", holder: "b", ttl: ttl, now: start.addingTimeInterval(53)))
        }
    }

    @Test("of many instances asking at once for a free lease, exactly one gets it", arguments: StoreBackend.shared)
    func leaseRace(backend: StoreBackend) async throws {
        try await withTwoStores(backend) { first, second in
            let now = StoreClock.date(StoreClock.nowMillis())
            let winners = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<30 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        try await store.tryAcquireLease(name: "reconciler", holder: "h\(index)", ttl: .seconds(30), now: now)
                            ? "h\(index)" : nil
                    }
                }
                var all: [String] = []
                for try await winner in group { if let winner { all.append(winner) } }
                return all
            }
            #expect(winners.count == 1)
            #expect(try await first.rawStrings("SELECT holder FROM leases WHERE name = 'reconciler'") == winners)
        }
    }

    @Test(
        "members' leases count the live members; an expired one is pruned, and its holder's next acquisition brings it back",
        arguments: StoreBackend.shared
    )
    func membershipLeases(backend: StoreBackend) async throws {
        try await withTwoStores(backend) { first, second in
            let start = StoreClock.date(StoreClock.nowMillis())
            let ttl = Duration.seconds(15)
            #expect(try await first.tryAcquireLease(name: "instance/a", holder: "a", ttl: ttl, now: start))
            #expect(try await second.tryAcquireLease(name: "instance/b", holder: "b", ttl: ttl, now: start.addingTimeInterval(1)))
            // Leases of another group are not members.
            #expect(try await first.tryAcquireLease(name: "order-reconciler", holder: "a", ttl: ttl, now: start))
            #expect(try await first.pruneAndCountLeases(prefix: "instance/", now: start.addingTimeInterval(2)) == 2)
            #expect(try await second.pruneAndCountLeases(prefix: "instance/", now: start.addingTimeInterval(2)) == 2)
            // a stops renewing: at its expiry (+15 s) it is pruned; b, renewed at +1 s, lives until +16 s.
            #expect(try await second.pruneAndCountLeases(prefix: "instance/", now: start.addingTimeInterval(15)) == 1)
            #expect(try await first.rawStrings("SELECT name FROM leases WHERE name LIKE 'instance/%'") == ["instance/b"])
            // The other group's expired lease is not pruned by this group's count.
            #expect(try await first.rawStrings("SELECT name FROM leases WHERE name = 'order-reconciler'") == ["order-reconciler"])
            // a comes back.
            #expect(try await first.tryAcquireLease(name: "instance/a", holder: "a", ttl: ttl, now: start.addingTimeInterval(15.5)))
            #expect(try await first.pruneAndCountLeases(prefix: "instance/", now: start.addingTimeInterval(15.5)) == 2)
            // A release leaves at once.
            try await second.releaseLease(name: "instance/b", holder: "b")
            #expect(try await second.pruneAndCountLeases(prefix: "instance/", now: start.addingTimeInterval(15.6)) == 1)
        }
    }
}
