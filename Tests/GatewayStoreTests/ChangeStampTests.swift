import Foundation
import GatewayCore
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("The store's change stamp: unchanged while nothing is written, changed by every write, whoever made it")
struct ChangeStampTests {
    @Test("reads leave it alone; this store's own write changes it")
    func ownWrites() async throws {
        try await withStore { store, _ in
            let tenant = try await store.createTenant(name: "A")
            let before = try await store.changeStamp()
            _ = try await store.tenants()
            _ = try await store.tenant(id: tenant.id)
            #expect(try await store.changeStamp() == before)
            let key = try await store.issueAPIKey(tenantId: tenant.id, label: "k")
            let afterIssue = try await store.changeStamp()
            #expect(afterIssue != before)
            #expect(try await store.revokeAPIKey(tenantId: tenant.id, keyId: key.id, audit: nil))
            #expect(try await store.changeStamp() != afterIssue)
        }
    }

    @Test("a write through another store on the same file (another process) changes it")
    func anotherProcess() async throws {
        let cipher = CredentialCipher.random()
        try await withStore(cipher: cipher) { store, directory in
            let other = try await SQLiteStore.opening(path: databasePath(in: directory), cipher: cipher)
            defer { try? other.close() }
            let tenant = try await store.createTenant(name: "A")
            let key = try await store.issueAPIKey(tenantId: tenant.id, label: "k")
            let before = try await store.changeStamp()
            #expect(try await store.changeStamp() == before)
            #expect(try await other.revokeAPIKey(tenantId: tenant.id, keyId: key.id, audit: nil))
            let after = try await store.changeStamp()
            #expect(after != before)
            // Seen once, it stays put until the next write.
            #expect(try await store.changeStamp() == after)
            _ = try await other.disableTenant(id: tenant.id, audit: nil)
            #expect(try await store.changeStamp() != after)
        }
    }

    @Test("a write through another instance on the same database changes it", arguments: StoreBackend.all)
    func anotherInstance(_ backend: StoreBackend) async throws {
        try await withTwoStores(backend) { first, second in
            let stamps = try #require(first as? any StoreChangeStamp)
            let tenant = try await first.createTenant(name: "A")
            let key = try await first.issueAPIKey(tenantId: tenant.id, label: "k")
            let before = try await stamps.changeStamp()
            #expect(try await stamps.changeStamp() == before)
            #expect(try await second.revokeAPIKey(tenantId: tenant.id, keyId: key.id, audit: nil))
            let after = try await stamps.changeStamp()
            #expect(after != before)
            // Seen once, it stays put until the next write.
            #expect(try await stamps.changeStamp() == after)
            _ = try await second.disableTenant(id: tenant.id, audit: nil)
            #expect(try await stamps.changeStamp() != after)
        }
    }

    @Test("the in-memory store counts its own writes")
    func inMemory() async throws {
        let store = try SQLiteStore(inMemoryWith: .random())
        let before = try await store.changeStamp()
        #expect(try await store.changeStamp() == before)
        _ = try await store.createTenant(name: "A")
        #expect(try await store.changeStamp() != before)
    }
}
