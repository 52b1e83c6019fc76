public import Foundation
import GatewayCore
public import GatewayStore
public import Logging
import NIOCore
import PostgresNIO

/// The ``GatewayStore`` and ``OrderJournalStore`` on PostgreSQL, for many gateway instances on one database.
///
/// It behaves as ``SQLiteStore`` does, operation for operation (same errors, orders, pages, uniqueness rules and
/// secrets handling; its tests are the same suites); what differs is how atomicity is had. SQLite runs one writer
/// at a time, so a look-up and the write that depends on it are one step; here several processes write at once, so
/// every such pair is one statement (`INSERT … ON CONFLICT`, a conditional `UPDATE … RETURNING`) or runs under a row
/// lock (`SELECT … FOR UPDATE`) or a transaction-scoped advisory lock, in one transaction (READ COMMITTED).
///
/// The connection pool is postgres-nio's `PostgresClient`, run for the store's lifetime by ``withStore(settings:cipher:logger:_:)``:
/// structured, so the pool closes when the body returns or throws.
public final class PostgresStore: GatewayStore, Sendable {
    let client: PostgresClient
    /// The cipher stored credentials and webhook secrets are sealed with.
    public let cipher: CredentialCipher
    let logger: Logger
    /// Where the database is, without its password: for logs and errors.
    public let location: String
    /// The schema of the settings, made by the first migration when it does not exist; `nil`: the server's default.
    let schema: String?
    /// For the start-up probe only. Holds the password: never logged.
    let settings: PostgresStoreSettings

    init(settings: PostgresStoreSettings, cipher: CredentialCipher, logger: Logger) {
        self.cipher = cipher
        self.logger = logger
        self.location = settings.redactedDescription
        self.schema = settings.schema
        self.settings = settings
        var backgroundLogger = logger
        backgroundLogger.logLevel = max(logger.logLevel, .warning)
        client = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: backgroundLogger)
    }

    /// Runs `body` with a store whose pool is running, whose schema is migrated (once, whatever the number of
    /// instances starting at once) and whose master key is checked; the pool is closed afterwards.
    ///
    /// - Throws: `MasterKeyError(.keyMismatch)` when the database was created with another master key;
    ///   `GatewayError(.upstreamUnavailable)` when the server cannot be reached; `.internalError` when the schema
    ///   cannot be brought up to date.
    public static func withStore<Result: Sendable>(
        settings: PostgresStoreSettings,
        cipher: CredentialCipher,
        logger: Logger = Logger(label: "BrokerGateway.Store"),
        _ body: (PostgresStore) async throws -> Result
    ) async throws -> Result {
        let store = PostgresStore(settings: settings, cipher: cipher, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.client.run() }
            defer { group.cancelAll() }
            try await store.prepare()
            return try await body(store)
        }
    }

    // MARK: Running statements

    /// Runs `body` on one pooled connection outside a transaction, turning failures into `GatewayError`s.
    func read<T: Sendable>(_ operation: String, _ body: (PostgresSQL) async throws -> T) async throws -> T {
        do {
            return try await client.withConnection { connection in
                try await body(PostgresSQL(connection: connection, logger: logger))
            }
        } catch {
            throw gatewayError(for: error, operation: operation, conflict: nil)
        }
    }

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws. A unique-constraint
    /// failure becomes `conflict` with the message given, as in the SQLite store.
    func write<T: Sendable>(
        _ operation: String,
        conflict: String? = nil,
        _ body: (PostgresSQL) async throws -> T
    ) async throws -> T {
        do {
            return try await client.withConnection { connection in
                let sql = PostgresSQL(connection: connection, logger: logger)
                try await sql.execute("BEGIN")
                let value: T
                do {
                    value = try await body(sql)
                } catch {
                    // A failed rollback leaves the connection broken; the pool drops it. The body's error is the story.
                    _ = try? await sql.execute("ROLLBACK")
                    throw error
                }
                try await sql.execute("COMMIT")
                return value
            }
        } catch {
            throw gatewayError(for: error, operation: operation, conflict: conflict)
        }
    }

    // MARK: Opening

    func prepare() async throws {
        try await probe()
        do {
            try await migrate()
        } catch let error as GatewayError {
            // Already said in the store's terms (unreachable, login refused, …) and logged.
            throw error
        } catch {
            logger.error(
                "cannot migrate the database",
                metadata: ["database": .string(location), "error": .string(Self.safeDescription(error))]
            )
            throw GatewayError(.internalError, "the gateway's database cannot be brought up to date")
        }
        _ = StoreRules.newerMigrations(applied: try await appliedMigrations(), known: Self.migrations.map(\.name), logger: logger)
        try await checkMasterKey()
    }

    /// Opens one connection outside the pool and closes it. The pool retries a failing connection for up to a
    /// minute before it fails the operation waiting for it; at start-up a wrong password or an unreachable server
    /// should stop the gateway at once, with an error that says which.
    private func probe() async throws {
        do {
            var configuration = PostgresConnection.Configuration(
                host: settings.host,
                port: settings.port,
                username: settings.username,
                password: settings.password,
                database: settings.database,
                tls: try settings.connectionTLS
            )
            configuration.options.connectTimeout = .milliseconds(settings.connectTimeout.leaseMillis)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try await connection.close()
        } catch let error as PSQLError where error.serverInfo != nil {
            // The server answered and refused (a wrong password, an unknown database): said by SQLSTATE.
            throw gatewayError(for: error, operation: "connect", conflict: nil)
        } catch {
            logger.error(
                "database unreachable",
                metadata: ["database": .string(location), "error": .string(Self.safeDescription(error))]
            )
            throw GatewayError(
                .upstreamUnavailable,
                "the gateway's database at \(location) cannot be reached",
                retryable: true,
                retryAfter: StoreRules.busyRetryAfter
            )
        }
    }

    /// The first instance to start stores a value sealed with the master key (one insert, whoever wins the race);
    /// every instance must be able to unseal it, or hold either key of an open rotation (`MasterKeyRotation.admit`).
    private func checkMasterKey() async throws {
        let candidate = try cipher.seal(BrokerCredentials(), tenantId: "", connectionId: StoreRules.keyCheckName)
        let records = try await write("checkMasterKey") { db in
            try await db.execute(MasterKeySQL.insertIfAbsent, [StoreRules.keyCheckName, candidate])
            return try await Self.masterKeyRecords(db)
        }
        try MasterKeyRotation.admit(cipher, records: records)
    }
}
