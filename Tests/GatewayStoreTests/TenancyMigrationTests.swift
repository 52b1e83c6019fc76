import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Schema: v7 tenancy")
struct TenancyMigrationTests {
    @Test("v7 gives each tenant one user (demo for the demo tenant) owning its rows, and binds its keys to it with every scope")
    func migratesExistingData() async throws {
        try await withTemporaryDirectory { directory in
            let path = databasePath(in: directory)
            let demoKey = APIKeySecret.generate()
            let otherKey = APIKeySecret.generate()
            func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
            // Rows as the release before v7 wrote them: two tenants, the first recorded as the demo tenant.
            try SQLiteStore.makeOlderDatabase(
                path: path,
                upTo: "v6-link-states",
                statements: [
                    "INSERT INTO tenants (id, name, created_at) VALUES ('ten_demo', 'Demo', 1), ('ten_other', 'Other', 2)",
                    "INSERT INTO store_meta (key, value) VALUES ('demo_tenant_id', CAST('ten_demo' AS BLOB))",
                    """
                    INSERT INTO api_keys (id, tenant_id, label, hash, created_at) VALUES
                        ('\(demoKey.keyId)', 'ten_demo', 'demo', X'\(hex(demoKey.hash))', 1),
                        ('\(otherKey.keyId)', 'ten_other', 'other', X'\(hex(otherKey.hash))', 2)
                    """,
                    """
                    INSERT INTO connections (id, tenant_id, broker, display_name, base_url, status, credentials_ciphertext,
                        created_at, updated_at)
                    VALUES ('conn_demo', 'ten_demo', 'alpaca', 'A', 'sandbox://alpaca', 'active', X'00', 1, 1),
                           ('conn_other', 'ten_other', 'alpaca', 'B', 'sandbox://alpaca', 'active', X'00', 1, 1)
                    """,
                    "INSERT INTO watchlists (id, tenant_id, name, created_at, updated_at) VALUES ('wl_demo', 'ten_demo', 'W', 1, 1)",
                    """
                    INSERT INTO orders (id, tenant_id, connection_id, account_id, client_order_id, request, state, created_at,
                        updated_at)
                    VALUES ('ord_demo', 'ten_demo', 'conn_demo', 'ACC', 'c1', '{}', 'accepted', 1, 1)
                    """,
                ]
            )

            let store = try await SQLiteStore.opening(path: path, cipher: .random())
            defer { try? store.close() }
            #expect(try await store.appliedMigrations().contains("v7-tenancy"))

            let demoUsers = try await store.users(tenantId: "ten_demo", after: nil, limit: 10, externalId: nil, email: nil)
            let otherUsers = try await store.users(tenantId: "ten_other", after: nil, limit: 10, externalId: nil, email: nil)
            #expect(demoUsers.map(\.externalId) == ["demo"])
            #expect(otherUsers.map(\.externalId) == ["default"])
            let demoUser = try #require(demoUsers.first).id
            let otherUser = try #require(otherUsers.first).id
            #expect(demoUser.hasPrefix("usr_") && demoUser != otherUser)

            #expect(try await store.rawStrings("SELECT user_id FROM connections WHERE id = 'conn_demo'") == [demoUser])
            #expect(try await store.rawStrings("SELECT user_id FROM connections WHERE id = 'conn_other'") == [otherUser])
            #expect(try await store.rawStrings("SELECT user_id FROM watchlists") == [demoUser])
            #expect(try await store.rawStrings("SELECT user_id FROM orders") == [demoUser])

            // The old keys still authenticate, bound to their tenant's user, with every scope.
            let demo = try #require(try await store.authenticateAPIKey(demoKey.plaintext))
            #expect(demo.tenant.id == "ten_demo")
            #expect(demo.key.userId == demoUser)
            #expect(Set(demo.key.scopes) == ["read", "trade", "admin"])
            let other = try #require(try await store.authenticateAPIKey(otherKey.plaintext))
            #expect(other.key.userId == otherUser)
            #expect(Set(other.key.scopes) == ["read", "trade", "admin"])
            #expect(other.tenant.disabledAt == nil)
        }
    }

    @Test("a disabled tenant is reported with its key, which the caller refuses; disabling twice keeps the first time", arguments: StoreBackend.all)
    func disabledTenant(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let key = try await store.issueAPIKey(tenantId: tenant.id, label: "k", scopes: ["read"], userId: nil, audit: nil)
            #expect(try await store.authenticateAPIKey(key.plaintext)?.tenant.disabledAt == nil)
            let disabled = try #require(
                try await store.disableTenant(
                    id: tenant.id,
                    audit: AuditRecord(tenantId: tenant.id, actor: "operator", action: "tenant.disabled")
                )
            )
            let when = try #require(disabled.disabledAt)
            #expect(try await store.authenticateAPIKey(key.plaintext)?.tenant.disabledAt == when)
            #expect(try await store.disableTenant(id: tenant.id, audit: nil)?.disabledAt == when)
            #expect(try await store.disableTenant(id: "ten_missing", audit: nil) == nil)
            #expect(try await store.tenants().first?.disabledAt == when)
            #expect(try await store.auditEvents(tenantId: tenant.id, before: nil, limit: 10).map(\.action) == ["tenant.disabled"])
        }
    }
}
