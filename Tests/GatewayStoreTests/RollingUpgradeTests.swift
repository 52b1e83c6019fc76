import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewayPostgresStore
@testable import GatewaySQLiteStore
@testable import GatewayStore

/// A rolling upgrade (issue 31): an instance of this version keeps running on a database a newer version has migrated,
/// because migrations only add (a nullable column, a table). It ignores what it does not know and says so.
@Suite("Rolling upgrade")
struct RollingUpgradeTests {
    @Test("this version opens and serves a database a newer version added a column, a table and a migration to", arguments: StoreBackend.all)
    func olderVersionBesideNewer(backend: StoreBackend) async throws {
        try await withStoreDatabase(backend) { database in
            let cipher = CredentialCipher.random()
            let credentials = BrokerCredentials(["keyId": "K", "secretKey": "S"])
            let (tenantId, userId) = try await database.with(cipher) { store in
                let tenant = try await store.createTenant(name: "upgrade")
                let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
                // What a newer version's migration might do: only additions, recorded as applied.
                try await store.rawExecute("ALTER TABLE connections ADD COLUMN future_note TEXT")
                try await store.rawExecute("CREATE TABLE future_things (id TEXT PRIMARY KEY, note TEXT)")
                switch backend {
                case .sqlite:
                    try await store.rawExecute("INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')")
                case .postgres:
                    try await store.rawExecute(
                        "INSERT INTO schema_migrations (name, applied_order, applied_at) VALUES ('v99-future', 9999, 0)"
                    )
                }
                return (tenant.id, user.id)
            }
            // This version, started again on that database: it opens, names the newer migration, and serves.
            try await database.with(cipher) { store in
                let applied: [String]
                switch backend {
                case .sqlite: applied = try await store.rawStrings("SELECT identifier FROM grdb_migrations")
                case .postgres: applied = try await store.rawStrings("SELECT name FROM schema_migrations")
                }
                let known = backend == .sqlite ? SQLiteStore.knownMigrations : PostgresStore.migrations.map(\.name)
                #expect(StoreRules.newerMigrations(applied: applied, known: known, logger: quietLogger) == ["v99-future"])
                let made = try await store.createConnection(
                    tenantId: tenantId,
                    userId: userId,
                    NewConnection(
                        broker: BrokerKind("alpaca"),
                        displayName: "A",
                        baseURL: "https://paper-api.alpaca.markets",
                        credentials: credentials
                    )
                )
                #expect(try await store.credentials(tenantId: tenantId, connectionId: made.id) == credentials)
                #expect(try await store.connections(tenantId: tenantId).map(\.id) == [made.id])
            }
        }
    }
}
