import Crypto
import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

/// Link states as the store keeps them: by the nonce's hash only, one live state per connection, timed, and spent by
/// exactly one caller.
@Suite("Store: link states")
struct LinkStateTests {
    func hash(_ state: String) -> [UInt8] { Array(SHA256.hash(data: Data(state.utf8))) }

    /// A tenant with a pending connection.
    func pending(_ store: AnyStore) async throws -> (Tenant, ConnectionDescriptor) {
        let tenant = try await store.createTenant(name: "T")
        var new = sampleConnection()
        new.status = .pendingLink
        return (tenant, try await store.createConnection(tenantId: tenant.id, userId: nil, new))
    }

    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: StoreBackend.all) func aStateIsSpentOnceAndLooksUpItsTenant(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, connection) = try await pending(store)
            try await store.recordLinkState(
                tenantId: tenant.id,
                connectionId: connection.id,
                stateHash: hash("s1"),
                expiresAt: start + 600,
                now: start
            )
            let first = try await store.consumeLinkState(connectionId: connection.id, stateHash: hash("s1"), now: start + 1)
            #expect(first == .consumed(tenantId: tenant.id, connectionId: connection.id))
            let second = try await store.consumeLinkState(connectionId: connection.id, stateHash: hash("s1"), now: start + 2)
            #expect(second == .alreadyUsed)
            #expect(try await store.consumeLinkState(tenantId: tenant.id, connectionId: connection.id, now: start + 3) == .alreadyUsed)
        }
    }

    @Test(arguments: StoreBackend.all) func anExpiredStateCompletesNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, connection) = try await pending(store)
            try await store.recordLinkState(
                tenantId: tenant.id,
                connectionId: connection.id,
                stateHash: hash("s1"),
                expiresAt: start + 600,
                now: start
            )
            #expect(try await store.consumeLinkState(connectionId: connection.id, stateHash: hash("s1"), now: start + 600) == .expired)
            #expect(try await store.consumeLinkState(tenantId: tenant.id, connectionId: connection.id, now: start + 601) == .expired)
        }
    }

    @Test(arguments: StoreBackend.all) func aStateOfAnotherConnectionOrAnUnknownOneIsUnknownAndNotSpent(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, connection) = try await pending(store)
            let other = try await store.createConnection(tenantId: tenant.id, userId: nil, sampleConnection("Other"))
            try await store.recordLinkState(
                tenantId: tenant.id,
                connectionId: connection.id,
                stateHash: hash("s1"),
                expiresAt: start + 600,
                now: start
            )
            #expect(try await store.consumeLinkState(connectionId: other.id, stateHash: hash("s1"), now: start + 1) == .unknown)
            #expect(try await store.consumeLinkState(connectionId: connection.id, stateHash: hash("s2"), now: start + 1) == .unknown)
            #expect(try await store.consumeLinkState(tenantId: tenant.id, connectionId: other.id, now: start + 1) == .unknown)
            // Neither attempt spent the real one.
            #expect(
                try await store.consumeLinkState(connectionId: connection.id, stateHash: hash("s1"), now: start + 2)
                    == .consumed(tenantId: tenant.id, connectionId: connection.id)
            )
        }
    }

    @Test(arguments: StoreBackend.all) func aNewLinkReplacesTheConnectionsEarlierState(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, connection) = try await pending(store)
            try await store.recordLinkState(
                tenantId: tenant.id,
                connectionId: connection.id,
                stateHash: hash("old"),
                expiresAt: start + 600,
                now: start
            )
            try await store.recordLinkState(
                tenantId: tenant.id,
                connectionId: connection.id,
                stateHash: hash("new"),
                expiresAt: start + 700,
                now: start + 100
            )
            #expect(try await store.consumeLinkState(connectionId: connection.id, stateHash: hash("old"), now: start + 101) == .unknown)
            #expect(
                try await store.consumeLinkState(connectionId: connection.id, stateHash: hash("new"), now: start + 101)
                    == .consumed(tenantId: tenant.id, connectionId: connection.id)
            )
        }
    }

    @Test(arguments: StoreBackend.all) func ofManyConcurrentConsumersExactlyOneWins(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, connection) = try await pending(store)
            try await store.recordLinkState(
                tenantId: tenant.id,
                connectionId: connection.id,
                stateHash: hash("s1"),
                expiresAt: start + 600,
                now: start
            )
            let outcomes = try await withThrowingTaskGroup(of: LinkStateOutcome.self) { group in
                for index in 0..<16 {
                    let by = hash("s1")
                    let id = connection.id
                    let tenantId = tenant.id
                    let start = self.start
                    group.addTask {
                        index.isMultiple(of: 2)
                            ? try await store.consumeLinkState(connectionId: id, stateHash: by, now: start + 1)
                            : try await store.consumeLinkState(tenantId: tenantId, connectionId: id, now: start + 1)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .consumed = $0 { true } else { false } }.count == 1)
            #expect(outcomes.filter { $0 == .alreadyUsed }.count == 15)
        }
    }

    @Test func theNonceItselfIsNeverStoredAndGoesWithItsConnection() async throws {
        try await withStore { store, directory in
            let (tenant, connection) = try await pending(store)
            let nonce = "9f1c2a7be04d4c6f8a3b5d7e9f0a1b2c"
            try await store.recordLinkState(
                tenantId: tenant.id,
                connectionId: connection.id,
                stateHash: hash(nonce),
                expiresAt: start + 600,
                now: start
            )
            #expect(!occurs(nonce, in: try databaseFileBytes(in: directory)))
            #expect(try await store.deleteConnection(tenantId: tenant.id, id: connection.id))
            #expect(try await store.consumeLinkState(connectionId: connection.id, stateHash: hash(nonce), now: start + 1) == .unknown)
            await expectGatewayError(.notFound) {
                try await store.recordLinkState(
                    tenantId: tenant.id,
                    connectionId: connection.id,
                    stateHash: hash("x"),
                    expiresAt: start + 600,
                    now: start
                )
            }
        }
    }

    @Test func aStateIsFoundByItsHashThroughAnIndexNeverAScan() async throws {
        try await withStore { store, _ in
            for sql in [
                "UPDATE link_states SET consumed_at = ? WHERE state_hash = ? AND connection_id = ? AND consumed_at IS NULL AND expires_at > ?",
                "SELECT tenant_id, connection_id, expires_at, consumed_at FROM link_states WHERE state_hash = ?",
                "UPDATE link_states SET consumed_at = ? WHERE tenant_id = ? AND connection_id = ? AND consumed_at IS NULL AND expires_at > ?",
                "DELETE FROM link_states WHERE expires_at < ?",
            ] {
                let plan = try await store.queryPlan(sql, arguments: Array(repeating: "x", count: sql.filter { $0 == "?" }.count))
                #expect(!plan.isEmpty && plan.allSatisfy { !$0.hasPrefix("SCAN") }, "\(sql): \(plan)")
            }
        }
    }

    @Test(arguments: StoreBackend.all) func theDemoTenantIsRecorded(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            #expect(try await store.demoTenantId() == nil)
            let tenant = try await store.createTenant(name: "Demo")
            try await store.setDemoTenantId(tenant.id)
            #expect(try await store.demoTenantId() == tenant.id)
            await expectGatewayError(.notFound) { try await store.setDemoTenantId("ten_nobody") }
        }
    }
}
