import Foundation
import GatewayCore
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Schema and migrations")
struct SchemaTests {
    @Test("migrations on an empty file create the schema; re-opening is a no-op")
    func migrationsCreateSchemaOnce() async throws {
        try await withTemporaryDirectory { directory in
            let path = databasePath(in: directory)
            let cipher = CredentialCipher.random()
            #expect(!FileManager.default.fileExists(atPath: path))

            let first = try await SQLiteStore.opening(path: path, cipher: cipher)
            #expect(
                try await first.appliedMigrations() == [
                    "v1-initial", "v2-order-journal", "v3-tenant-read-freshness", "v4-sandbox-urls-without-path", "v5-order-journal-venues",
                    "v6-link-states", "v7-tenancy", "v8-sessions", "v9-leases", "v11-goals", "v12-alerts", "v13-order-feed", "v14-broker-id-reuse",
                    "v15-push-tokens",
                ]
            )
            let tables = try await first.fetchRawStrings(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
            #expect(
                tables == [
                    "alert_deliveries", "alerts", "api_keys", "audit_events", "connections", "devices", "goals", "grdb_migrations",
                    "idempotency_keys", "leases",
                    "link_states", "login_codes", "order_broker_ids", "order_events", "orders", "sessions",
                    "spent_refresh_tokens", "store_meta", "tenants", "users", "watchlists",
                ]
            )
            let indexes = try await first.fetchRawStrings(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
            #expect(
                indexes == [
                    "alert_deliveries_alert", "alerts_enabled", "alerts_user", "api_keys_tenant", "audit_events_tenant",
                    "connections_tenant", "connections_user",
                    "devices_fingerprint", "devices_push_token", "devices_user", "goals_user", "link_states_connection", "link_states_expiry",
                    "order_broker_ids_connection", "order_broker_ids_live", "order_broker_ids_venue",
                    "order_broker_ids_venue_order", "orders_connection", "orders_open", "orders_state", "orders_tenant",
                    "orders_user", "sessions_device",
                    "sessions_user", "users_email",
                    "users_external_id", "users_tenant", "watchlists_tenant", "watchlists_user",
                ]
            )
            let foreignKeys = try await first.fetchRawStrings("PRAGMA foreign_keys")
            #expect(foreignKeys == ["1"])
            let journalMode = try await first.fetchRawStrings("PRAGMA journal_mode")
            #expect(journalMode == ["wal"])
            let schemaBefore = try await first.fetchRawStrings("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
            let tenant = try await first.createTenant(name: "Acme")
            try first.close()
            #expect(try posixPermissions(path) == 0o600)

            let second = try await SQLiteStore.opening(path: path, cipher: cipher)
            defer { try? second.close() }
            #expect(
                try await second.appliedMigrations() == [
                    "v1-initial", "v2-order-journal", "v3-tenant-read-freshness", "v4-sandbox-urls-without-path", "v5-order-journal-venues",
                    "v6-link-states", "v7-tenancy", "v8-sessions", "v9-leases", "v11-goals", "v12-alerts", "v13-order-feed", "v14-broker-id-reuse",
                    "v15-push-tokens",
                ]
            )
            let schemaAfter = try await second.fetchRawStrings("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
            #expect(schemaAfter == schemaBefore)
            #expect(try await second.tenant(id: tenant.id) == tenant)
            #expect(try await second.tenants() == [tenant])
        }
    }

    @Test("re-opening with another master key is refused at startup")
    func reopeningWithAnotherKeyFails() async throws {
        try await withTemporaryDirectory { directory in
            let path = databasePath(in: directory)
            try SQLiteStore(path: path, cipher: .random()).close()
            let error = expectMasterKeyError(.keyMismatch) { try SQLiteStore(path: path, cipher: .random()) }
            #expect(error?.message.contains(CredentialCipher.environmentVariable) == true)
        }
    }

    @Test("the default store lives in the data folder with a private key file and database")
    func openInDataDirectory() async throws {
        try await withTemporaryDirectory { root in
            let directory = root.appending(path: "data")
            let store = try SQLiteStore.open(dataDirectory: directory, environment: [:])
            let tenant = try await store.createTenant(name: "Demo")
            try store.close()
            let keyPath = directory.appending(path: CredentialCipher.keyFileName).path(percentEncoded: false)
            #expect(try posixPermissions(keyPath) == 0o600)
            #expect(try posixPermissions(databasePath(in: directory)) == 0o600)
            #expect(try posixPermissions(directory.path(percentEncoded: false)) == 0o700)

            let reopened = try SQLiteStore.open(dataDirectory: directory, environment: [:])
            defer { try? reopened.close() }
            #expect(try await reopened.tenant(id: tenant.id) == tenant)
        }
    }

    @Test("an in-memory store works without a folder")
    func inMemory() async throws {
        let store = try SQLiteStore(inMemoryWith: .random())
        #expect(store.path == nil)
        let tenant = try await store.createTenant(name: "Memory")
        let connection = try await store.createConnection(tenantId: tenant.id, userId: nil, sampleConnection())
        #expect(try await store.credentials(tenantId: tenant.id, connectionId: connection.id)["apiSecretKey"] == "s3cret")
    }
}
