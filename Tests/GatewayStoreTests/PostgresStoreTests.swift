import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewayPostgresStore
@testable import GatewaySQLiteStore
@testable import GatewayStore

/// What only PostgreSQL has to show: secrets in its tables, its master key check, its connection errors, and the
/// triggers that stand in for SQLite's. Skipped without `BROKERGATEWAY_TEST_POSTGRES_URL`.
@Suite("PostgreSQL store", .enabled(if: StoreBackend.postgresURL != nil))
struct PostgresStoreTests {
    @Test("no secret is stored in clear: credentials sealed, key secrets and refresh tokens as hashes")
    func secretsNotInClear() async throws {
        try await withStore(.postgres) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(email: "ada@example.com"), audit: nil)
            let key = try await store.issueAPIKey(tenantId: tenant.id, label: "k", scopes: ["read"], userId: nil, audit: nil)
            _ = try await store.createConnection(
                tenantId: tenant.id,
                userId: user.id,
                sampleConnection(credentials: ["apiSecretKey": "sekret-credential-42"])
            )
            let device = try await store.registerDevice(
                tenantId: tenant.id,
                userId: user.id,
                NewDevice(name: "Phone", type: "ios"),
                limit: 5
            )
            let refreshToken = "refresh-token-plaintext-77"
            _ = try await store.createSession(
                tenantId: tenant.id,
                userId: user.id,
                deviceId: device.id,
                refreshHash: Array(APIKeySecret.hash(secret: Substring(refreshToken))),
                expiresAt: Date().addingTimeInterval(60),
                audit: nil
            )
            let secret = String(try #require(key.plaintext.split(separator: "_").last))
            let tables = try await store.rawStrings(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()"
            )
            #expect(tables.contains("api_keys") && tables.contains("connections"))
            var everything = ""
            for table in tables {
                everything += try await store.rawStrings("SELECT t::text FROM \"\(table)\" t").joined(separator: "\n")
            }
            for plaintext in [secret, "sekret-credential-42", refreshToken, key.plaintext] {
                let hex = plaintext.utf8.map { String(format: "%02x", $0) }.joined()
                #expect(!everything.contains(plaintext), "\(plaintext) is stored in clear")
                #expect(!everything.contains(hex), "\(plaintext) is stored in clear as bytes")
            }
        }
    }

    @Test("another master key is refused at startup; the same key opens the database")
    func masterKeyCheck() async throws {
        let cipher = CredentialCipher.random()
        try await withPostgresSchema { settings in
            try await PostgresStore.withStore(settings: settings, cipher: cipher, logger: quietLogger) { _ in }
            try await PostgresStore.withStore(settings: settings, cipher: cipher, logger: quietLogger) { _ in }
            do {
                try await PostgresStore.withStore(settings: settings, cipher: .random(), logger: quietLogger) { _ in }
                Issue.record("another master key was accepted")
            } catch let error as MasterKeyError {
                #expect(error.code == .keyMismatch)
            }
        }
    }

    @Test("a wrong password or an unreachable server is an error that never shows the password")
    func connectionErrorsHideThePassword() async throws {
        var settings = try PostgresStoreSettings(url: try #require(StoreBackend.postgresURL))
        settings.password = "not-the-password-31337"
        settings.connectTimeout = .seconds(5)
        await #expect(throws: GatewayError.self) {
            do {
                try await PostgresStore.withStore(settings: settings, cipher: .random(), logger: quietLogger) { _ in }
            } catch {
                #expect(!String(describing: error).contains("not-the-password-31337"))
                #expect(!String(reflecting: error).contains("not-the-password-31337"))
                throw error
            }
        }
        var unreachable = settings
        unreachable.host = "127.0.0.1"
        unreachable.port = 1  // nothing listens on port 1
        let error = await #expect(throws: GatewayError.self) {
            try await PostgresStore.withStore(settings: unreachable, cipher: .random(), logger: quietLogger) { _ in }
        }
        #expect(error?.code == .upstreamUnavailable)
        #expect(error?.message.contains("not-the-password-31337") == false)
    }

    @Test("below the API, a row's user is one of its tenant's and never changes")
    func userOfTenantTriggers() async throws {
        try await withStore(.postgres) { store in
            let a = try await store.createTenant(name: "A")
            let b = try await store.createTenant(name: "B")
            let userOfB = try await store.createUser(tenantId: b.id, NewUser(), audit: nil)
            let userOfA = try await store.createUser(tenantId: a.id, NewUser(), audit: nil)
            await #expect(throws: (any Error).self) {
                try await store.rawExecute(
                    """
                    INSERT INTO orders (id, tenant_id, connection_id, account_id, client_order_id, request, state, created_at, updated_at, user_id)
                    VALUES ('ord_x', ?, 'conn_a', 'PA1', 'cid', '{}', 'submitting', 1, 1, ?)
                    """,
                    [a.id, userOfB.id]
                )
            }
            await #expect(throws: (any Error).self) {
                try await store.rawExecute(
                    "INSERT INTO api_keys (id, tenant_id, label, hash, created_at, user_id) VALUES ('key_x', ?, 'l', '\\x00', 1, ?)",
                    [a.id, userOfB.id]
                )
            }
            let connection = try await store.createConnection(tenantId: a.id, userId: userOfA.id, sampleConnection())
            await #expect(throws: (any Error).self) {
                try await store.rawExecute("UPDATE connections SET user_id = ? WHERE id = ?", [userOfB.id, connection.id])
            }
            // A connection's user must be its tenant's (a composite foreign key).
            await expectGatewayError(.notFound) {
                try await store.createConnection(tenantId: a.id, userId: userOfB.id, sampleConnection())
            }
        }
    }
}
