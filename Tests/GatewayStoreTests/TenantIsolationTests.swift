import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Tenant isolation")
struct TenantIsolationTests {
    @Test("tenant A cannot see, update or delete tenant B's connections", arguments: StoreBackend.all)
    func connections(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let a = try await store.createTenant(name: "A")
            let b = try await store.createTenant(name: "B")
            let mine = try await store.createConnection(tenantId: a.id, userId: nil, sampleConnection("A's"))
            let theirs = try await store.createConnection(tenantId: b.id, userId: nil, sampleConnection("B's"))

            #expect(try await store.connections(tenantId: a.id).map(\.id) == [mine.id])
            #expect(try await store.connection(tenantId: a.id, id: theirs.id) == nil)
            await expectGatewayError(.notFound) {
                try await store.credentials(tenantId: a.id, connectionId: theirs.id)
            }
            await expectGatewayError(.notFound) {
                try await store.updateCredentials(tenantId: a.id, connectionId: theirs.id, BrokerCredentials(["x": "y"]))
            }
            #expect(
                try await store.updateConnectionStatus(
                    tenantId: a.id,
                    connectionId: theirs.id,
                    status: .relinkRequired,
                    detail: ["reason": "x"]
                ) == nil
            )
            #expect(try await store.deleteConnection(tenantId: a.id, id: theirs.id) == false)

            // B's connection is untouched.
            #expect(try await store.connection(tenantId: b.id, id: theirs.id) == theirs)
            #expect(try await store.credentials(tenantId: b.id, connectionId: theirs.id)["apiSecretKey"] == "s3cret")
            #expect(try await store.deleteConnection(tenantId: b.id, id: theirs.id))
            #expect(try await store.connection(tenantId: b.id, id: theirs.id) == nil)
        }
    }

    @Test("tenant A cannot see, update or delete tenant B's watchlists", arguments: StoreBackend.all)
    func watchlists(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let a = try await store.createTenant(name: "A")
            let b = try await store.createTenant(name: "B")
            let userA = try await store.createUser(tenantId: a.id, NewUser(), audit: nil)
            let userB = try await store.createUser(tenantId: b.id, NewUser(), audit: nil)
            let aapl = Instrument(symbol: "AAPL", assetClass: .equity)
            let theirs = try await store.createWatchlist(tenantId: b.id, userId: userB.id, name: "Tech", instruments: [aapl])
            // The same name in another tenant is no conflict.
            let mine = try await store.createWatchlist(tenantId: a.id, userId: userA.id, name: "Tech", instruments: [])

            #expect(try await store.watchlists(tenantId: a.id, userId: userA.id).map(\.id) == [mine.id])
            #expect(try await store.watchlist(tenantId: a.id, userId: userA.id, id: theirs.id) == nil)
            #expect(try await store.updateWatchlist(tenantId: a.id, userId: userA.id, id: theirs.id, name: "Mine now", instruments: []) == nil)
            #expect(try await store.deleteWatchlist(tenantId: a.id, userId: userA.id, id: theirs.id) == false)
            #expect(try await store.watchlist(tenantId: b.id, userId: userB.id, id: theirs.id) == theirs)
        }
    }

    @Test("writes for an unknown tenant are not found", arguments: StoreBackend.all)
    func unknownTenant(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            await expectGatewayError(.notFound) {
                try await store.createConnection(tenantId: "ten_missing", userId: nil, sampleConnection())
            }
            await expectGatewayError(.notFound) {
                try await store.createWatchlist(tenantId: "ten_missing", userId: "usr_missing", name: "x", instruments: [])
            }
            await expectGatewayError(.notFound) {
                try await store.issueAPIKey(tenantId: "ten_missing", label: "x")
            }
            let missing = try await store.tenant(id: "ten_missing")
            #expect(missing == nil)
        }
    }
}
