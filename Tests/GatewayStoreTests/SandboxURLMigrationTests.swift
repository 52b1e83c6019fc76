import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Schema: sandbox URLs without a path")
struct SandboxURLMigrationTests {
    @Test("v4 rewrites the demo connections' sandbox://<name><base path> to sandbox://<name>, and nothing else")
    func rewritesKnownBasePaths() async throws {
        try await withTemporaryDirectory { directory in
            let path = databasePath(in: directory)
            let cipher = CredentialCipher.random()
            let first = try await SQLiteStore.opening(path: path, cipher: cipher)
            let tenant = try await first.createTenant(name: "Acme")
            let stored: [(broker: BrokerKind, before: String, after: String)] = [
                (.saxo, "sandbox://saxo/sim/openapi", "sandbox://saxo"),
                (.saxo, "sandbox://saxo/sim/openapi/", "sandbox://saxo"),
                (.tradeogre, "sandbox://tradeogre/api/v1", "sandbox://tradeogre"),
                (.alpaca, "sandbox://alpaca", "sandbox://alpaca"),
                // Not a known base path: left as it is (and refused when called).
                (.alpaca, "sandbox://alpaca/_sandbox/prices", "sandbox://alpaca/_sandbox/prices"),
                (.saxo, "https://gateway.saxobank.com/sim/openapi", "https://gateway.saxobank.com/sim/openapi"),
            ]
            var ids: [String] = []
            for entry in stored {
                let connection = try await first.createConnection(
                    tenantId: tenant.id,
                    userId: nil,
                    NewConnection(
                        broker: entry.broker,
                        displayName: entry.before,
                        baseURL: entry.before,
                        credentials: BrokerCredentials(["k": "v"])
                    )
                )
                ids.append(connection.id)
            }
            // Back to the schema before v4, as a database made by the previous release.
            try await first.executeRaw("DELETE FROM grdb_migrations WHERE identifier = 'v4-sandbox-urls-without-path'")
            try first.close()

            let second = try await SQLiteStore.opening(path: path, cipher: cipher)
            defer { try? second.close() }
            #expect(try await second.appliedMigrations().contains("v4-sandbox-urls-without-path"))
            for (id, entry) in zip(ids, stored) {
                let connection = try await second.connection(tenantId: tenant.id, id: id)
                #expect(connection?.baseURL == entry.after, "\(entry.before)")
                #expect(try await second.credentials(tenantId: tenant.id, connectionId: id) == BrokerCredentials(["k": "v"]))
            }
        }
    }
}
