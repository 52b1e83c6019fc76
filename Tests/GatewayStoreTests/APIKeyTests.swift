import Foundation
import GatewayCore
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("API keys")
struct APIKeyTests {
    @Test("an issued key authenticates; a wrong secret, an unknown or malformed key, a revoked key do not", arguments: StoreBackend.all)
    func authentication(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let issued = try await store.issueAPIKey(tenantId: tenant.id, label: "ci")
            #expect(issued.tenantId == tenant.id)
            #expect(issued.id.hasPrefix("key_"))
            #expect(issued.plaintext.hasPrefix("bgw_"))
            #expect(try await store.tenant(forAPIKey: issued.plaintext) == tenant)

            // Same key id, another secret of the right shape.
            var wrongSecret = Array(issued.plaintext)
            wrongSecret[wrongSecret.count - 1] = wrongSecret.last == "0" ? "1" : "0"
            #expect(try await store.tenant(forAPIKey: String(wrongSecret)) == nil)
            // Another key id with the right secret.
            let lookup = issued.plaintext.dropFirst(4).prefix(12)
            let otherLookup = String(repeating: lookup.first == "a" ? "b" : "a", count: 12)
            #expect(try await store.tenant(forAPIKey: issued.plaintext.replacingOccurrences(of: lookup, with: otherLookup)) == nil)
            for malformed in [
                "", "bgw_", issued.plaintext + "0", String(issued.plaintext.dropLast()), issued.plaintext.uppercased(), "Bearer " + issued.plaintext,
            ] {
                #expect(try await store.tenant(forAPIKey: malformed) == nil, "\(malformed.count) characters")
            }

            let other = try await store.createTenant(name: "Other")
            #expect(try await store.revokeAPIKey(tenantId: other.id, keyId: issued.id) == false)
            #expect(try await store.tenant(forAPIKey: issued.plaintext) == tenant)
            #expect(try await store.revokeAPIKey(tenantId: tenant.id, keyId: issued.id))
            #expect(try await store.tenant(forAPIKey: issued.plaintext) == nil)
            #expect(try await store.revokeAPIKey(tenantId: tenant.id, keyId: issued.id) == false)

            let listed = try await store.apiKeys(tenantId: tenant.id)
            #expect(listed.map(\.id) == [issued.id])
            #expect(listed.first?.label == "ci")
            #expect(listed.first?.revokedAt != nil)
            #expect(try await store.apiKeys(tenantId: other.id).isEmpty)
        }
    }

    @Test("two keys of one tenant work independently", arguments: StoreBackend.all)
    func independentKeys(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let first = try await store.issueAPIKey(tenantId: tenant.id, label: "one")
            let second = try await store.issueAPIKey(tenantId: tenant.id, label: "two")
            #expect(first.id != second.id)
            #expect(first.plaintext != second.plaintext)
            #expect(try await store.revokeAPIKey(tenantId: tenant.id, keyId: first.id))
            #expect(try await store.tenant(forAPIKey: first.plaintext) == nil)
            #expect(try await store.tenant(forAPIKey: second.plaintext) == tenant)
        }
    }

    @Test("neither the key nor its secret is stored")
    func secretNotStored() async throws {
        try await withStore { store, directory in
            let tenant = try await store.createTenant(name: "Acme")
            let issued = try await store.issueAPIKey(tenantId: tenant.id, label: "RECOGNISABLE-LABEL")
            let secret = String(issued.plaintext.split(separator: "_", maxSplits: 2)[2])
            #expect(secret.count == 64)

            let files = try databaseFileBytes(in: directory)
            #expect(occurs("RECOGNISABLE-LABEL", in: files), "the scan must see the row")
            #expect(!occurs(issued.plaintext, in: files))
            #expect(!occurs(secret, in: files))
            #expect(!occurs(String(secret.prefix(16)), in: files))

            let storedHashes = try await store.rawStrings("SELECT hex(hash) FROM api_keys")
            #expect(storedHashes.count == 1)
            #expect(storedHashes.first?.count == 64)  // 32 bytes: a SHA-256
            #expect(storedHashes.first?.lowercased() != secret)
        }
    }
}

@Suite("API key lookup cost")
struct APIKeyLookupPlanTests {
    @Test("the lookup by key is one search by primary key (key, tenant, bound user), never a scan")
    func lookupUsesPrimaryKeys() async throws {
        let store = try SQLiteStore(inMemoryWith: .random())
        let plan = try await store.queryPlan(SQLiteStore.apiKeyLookupSQL, arguments: ["key_x"])
        #expect(plan.count == 3)
        #expect(plan.allSatisfy { $0.hasPrefix("SEARCH") }, "\(plan)")
        #expect(!plan.contains { $0.contains("SCAN") }, "\(plan)")
    }
}
