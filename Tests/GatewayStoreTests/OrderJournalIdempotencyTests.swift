import Foundation
import GatewayCore
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Order journal: idempotency keys")
struct OrderJournalIdempotencyTests {
    static let day: TimeInterval = 86_400

    @Test("50 concurrent claims of one key: exactly one is claimed, the others find its order", arguments: StoreBackend.all)
    func concurrentClaims(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let claims = try await withThrowingTaskGroup(of: (proposed: String, claim: IdempotencyClaim).self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let proposed = newJournalOrderId()
                        let claim = try await store.claimIdempotencyKey(
                            tenantId: tenant.id,
                            key: "key-1",
                            requestHash: "hash-a",
                            proposedOrderId: proposed,
                            retention: Self.day
                        )
                        return (proposed, claim)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(claims.count == 50)
            let winners = claims.filter { if case .claimed = $0.claim { true } else { false } }
            try #require(winners.count == 1)
            let winner = winners[0]
            #expect(winner.claim == .claimed(orderId: winner.proposed))
            let others = claims.filter { $0.proposed != winner.proposed }
            #expect(others.count == 49)
            #expect(others.allSatisfy { $0.claim == .existing(orderId: winner.proposed) })
            let rows = try await store.rawStrings(
                "SELECT order_id FROM idempotency_keys WHERE tenant_id = ?",
                [tenant.id]
            )
            #expect(rows == [winner.proposed])
        }
    }

    @Test("concurrent claims with two different requests: one wins, the same request replays, the other mismatches", arguments: StoreBackend.all)
    func concurrentClaimsWithTwoRequests(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let claims = try await withThrowingTaskGroup(of: (hash: String, claim: IdempotencyClaim).self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let hash = index.isMultiple(of: 2) ? "hash-a" : "hash-b"
                        let claim = try await store.claimIdempotencyKey(
                            tenantId: tenant.id,
                            key: "key-1",
                            requestHash: hash,
                            proposedOrderId: newJournalOrderId(),
                            retention: Self.day
                        )
                        return (hash, claim)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = claims.compactMap { item -> (hash: String, orderId: String)? in
                if case .claimed(let orderId) = item.claim { (item.hash, orderId) } else { nil }
            }
            try #require(winners.count == 1)
            let (winningHash, orderId) = winners[0]
            for item in claims where item.claim != .claimed(orderId: orderId) {
                #expect(item.claim == (item.hash == winningHash ? .existing(orderId: orderId) : .mismatch(orderId: orderId)))
            }
        }
    }

    @Test("the same key with a different request is a mismatch, and leaves the key as it was", arguments: StoreBackend.all)
    func mismatch(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let first = try await store.claimIdempotencyKey(
                tenantId: tenant.id,
                key: "k",
                requestHash: "hash-a",
                proposedOrderId: "ord_first",
                retention: Self.day
            )
            #expect(first == .claimed(orderId: "ord_first"))
            let other = try await store.claimIdempotencyKey(
                tenantId: tenant.id,
                key: "k",
                requestHash: "hash-b",
                proposedOrderId: "ord_second",
                retention: Self.day
            )
            #expect(other == .mismatch(orderId: "ord_first"))
            let again = try await store.claimIdempotencyKey(
                tenantId: tenant.id,
                key: "k",
                requestHash: "hash-a",
                proposedOrderId: "ord_third",
                retention: Self.day
            )
            #expect(again == .existing(orderId: "ord_first"))
        }
    }

    @Test("an expired key is claimed again, by any request; the new claim then holds", arguments: StoreBackend.all)
    func expiredKeyIsReclaimable(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let first = try await store.claimIdempotencyKey(
                tenantId: tenant.id,
                key: "k",
                requestHash: "hash-a",
                proposedOrderId: "ord_old",
                retention: 0.001
            )
            #expect(first == .claimed(orderId: "ord_old"))
            try await Task.sleep(for: .milliseconds(20))
            let reclaimed = try await store.claimIdempotencyKey(
                tenantId: tenant.id,
                key: "k",
                requestHash: "hash-b",
                proposedOrderId: "ord_new",
                retention: Self.day
            )
            #expect(reclaimed == .claimed(orderId: "ord_new"))
            #expect(
                try await store.claimIdempotencyKey(
                    tenantId: tenant.id,
                    key: "k",
                    requestHash: "hash-b",
                    proposedOrderId: "ord_x",
                    retention: Self.day
                )
                    == .existing(orderId: "ord_new")
            )
            #expect(
                try await store.claimIdempotencyKey(
                    tenantId: tenant.id,
                    key: "k",
                    requestHash: "hash-a",
                    proposedOrderId: "ord_y",
                    retention: Self.day
                )
                    == .mismatch(orderId: "ord_new")
            )
        }
    }

    @Test("a key lives for exactly its retention", arguments: StoreBackend.all)
    func retentionIsStored(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            _ = try await store.claimIdempotencyKey(
                tenantId: tenant.id,
                key: "k",
                requestHash: "h",
                proposedOrderId: "ord_1",
                retention: Self.day
            )
            let lifetime = try await store.rawStrings(
                "SELECT CAST(expires_at - created_at AS TEXT) FROM idempotency_keys WHERE tenant_id = ?",
                [tenant.id]
            )
            #expect(lifetime == ["86400000"])
        }
    }

    @Test("keys are per tenant: the same key in two tenants is two claims", arguments: StoreBackend.all)
    func keysArePerTenant(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let a = try await store.createTenant(name: "A")
            let b = try await store.createTenant(name: "B")
            let inA = try await store.claimIdempotencyKey(
                tenantId: a.id,
                key: "shared",
                requestHash: "hash-a",
                proposedOrderId: "ord_a",
                retention: Self.day
            )
            let inB = try await store.claimIdempotencyKey(
                tenantId: b.id,
                key: "shared",
                requestHash: "hash-b",
                proposedOrderId: "ord_b",
                retention: Self.day
            )
            #expect(inA == .claimed(orderId: "ord_a"))
            #expect(inB == .claimed(orderId: "ord_b"))
            #expect(
                try await store.claimIdempotencyKey(
                    tenantId: b.id,
                    key: "shared",
                    requestHash: "hash-b",
                    proposedOrderId: "ord_c",
                    retention: Self.day
                )
                    == .existing(orderId: "ord_b")
            )
        }
    }

    @Test("an unknown tenant cannot claim; a retention that is not positive is refused", arguments: StoreBackend.all)
    func refusals(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            await expectGatewayError(.notFound) {
                try await store.claimIdempotencyKey(
                    tenantId: "ten_missing",
                    key: "k",
                    requestHash: "h",
                    proposedOrderId: "ord_1",
                    retention: Self.day
                )
            }
            let tenant = try await store.createTenant(name: "Acme")
            for retention in [0, -1, .infinity, .nan] as [TimeInterval] {
                await expectGatewayError(.internalError) {
                    try await store.claimIdempotencyKey(
                        tenantId: tenant.id,
                        key: "k",
                        requestHash: "h",
                        proposedOrderId: "ord_1",
                        retention: retention
                    )
                }
            }
        }
    }
}
