public import Foundation
import GRDB
import GatewayCore
public import GatewayStore
public import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The default ``GatewayStore``: one SQLite file (WAL mode) through GRDB.
///
/// Every operation runs through GRDB's async API, so no event-loop thread waits on the disk. Connections'
/// credentials are sealed with the ``CredentialCipher``; API keys are kept as hashes only.
///
/// ```swift
/// let store = try SQLiteStore.open(dataDirectory: dataFolder, environment: ProcessInfo.processInfo.environment)
/// ```
public final class SQLiteStore: GatewayStore {
    /// The database file's name in the data folder.
    public static let databaseFileName = "gateway.sqlite"

    let writer: any DatabaseWriter
    /// The cipher stored credentials and webhook secrets are sealed with.
    public let cipher: CredentialCipher
    let logger: Logger
    /// The database file, or `nil` for an in-memory store.
    public let path: String?
    /// A connection of its own that only reads `PRAGMA data_version` (``StoreChangeStamp``); `nil` in memory.
    let stampConnection: DatabaseQueue?
    /// This store's own writes, counted for ``StoreChangeStamp``.
    let ownWrites = Atomic<UInt64>(0)

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    ///
    /// A new file is created with mode `0600`; SQLite gives its `-wal` and `-shm` files the same mode.
    ///
    /// - Throws: `MasterKeyError` (`keyMismatch`) when the database was created with another master key, so a
    ///   misconfigured key stops the gateway at startup instead of failing every broker call later;
    ///   `GatewayError(.internalError)` when the file cannot be opened or migrated.
    /// - Parameter busyTimeout: how long a write waits for another connection's write lock before it fails as busy
    ///   (a retryable 503 `upstream_unavailable`).
    public init(
        path: String,
        cipher: CredentialCipher,
        logger: Logger = Logger(label: "BrokerGateway.Store"),
        busyTimeout: TimeInterval = 5
    ) throws {
        self.cipher = cipher
        self.logger = logger
        self.path = path
        do {
            // Made with mode 0600 before SQLite would make it with 0644 minus the umask.
            createOwnerOnlyFileIfMissing(path)
            var configuration = Configuration()
            configuration.label = "BrokerGateway.Store"
            configuration.foreignKeysEnabled = true
            // Another process (an admin command) may hold the write lock for a moment.
            configuration.busyMode = .timeout(busyTimeout)
            Self.traceStatements(&configuration, logger: logger)
            (writer, stampConnection) = try Self.openRetryingBusy(path: path, configuration: configuration, busyTimeout: busyTimeout)
        } catch {
            logger.error(
                "cannot open the database",
                metadata: ["path": .string(path), "error": .string(Self.safeDescription(error))]
            )
            throw GatewayError(.internalError, "the gateway's database at \(path) cannot be opened")
        }
        try prepare()
    }

    /// The pool and the change-stamp connection, opened again while SQLite answers busy, for up to `busyTimeout`.
    /// Two processes (or two stores in one) opening a new file at once both switch it to WAL; SQLite answers the one
    /// whose lock upgrade would deadlock `SQLITE_BUSY` at once, without waiting in its busy handler, so the busy
    /// timeout alone does not cover an open. Seen in CI: two stores opened together on one new file, under load.
    static func openRetryingBusy(
        path: String,
        configuration: Configuration,
        busyTimeout: TimeInterval
    ) throws -> (DatabasePool, DatabaseQueue) {
        let deadline = Date().addingTimeInterval(busyTimeout)
        var attempt = 0
        while true {
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                return (pool, try openStampConnection(path: path, busyTimeout: busyTimeout))
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                // The other opener holds the lock for its switch to WAL and its first transaction: milliseconds.
                attempt += 1
                Thread.sleep(forTimeInterval: min(0.02 * Double(attempt), 0.2))
            }
        }
    }

    /// Opens the store as ``init(path:cipher:logger:busyTimeout:)`` does, on a dispatch queue: opening migrates the
    /// file and waits for its disk syncs, and another connection's write lock may hold it up to `busyTimeout`. From
    /// async code that wait must not hold a thread of the cooperative pool (two on a 2-core machine), which every
    /// request and every other task shares.
    public static func opening(
        path: String,
        cipher: CredentialCipher,
        logger: Logger = Logger(label: "BrokerGateway.Store"),
        busyTimeout: TimeInterval = 5
    ) async throws -> SQLiteStore {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(
                    with: Result {
                        try SQLiteStore(path: path, cipher: cipher, logger: logger, busyTimeout: busyTimeout)
                    }
                )
            }
        }
    }

    /// A store that lives in memory only and disappears with the value: for tests and demos.
    public init(
        inMemoryWith cipher: CredentialCipher = .random(),
        logger: Logger = Logger(label: "BrokerGateway.Store")
    )
        throws
    {
        self.cipher = cipher
        self.logger = logger
        self.path = nil
        self.stampConnection = nil
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        Self.traceStatements(&configuration, logger: logger)
        do {
            writer = try DatabaseQueue(configuration: configuration)
        } catch {
            throw GatewayError(.internalError, "an in-memory database cannot be created")
        }
        try prepare()
    }

    /// The gateway's default store: `<dataDirectory>/gateway.sqlite`, with the master key found by
    /// ``CredentialCipher/load(environment:dataDirectory:)``. Creates the data folder (mode `0700`) if needed.
    public static func open(
        dataDirectory: URL,
        environment: [String: String],
        logger: Logger = Logger(label: "BrokerGateway.Store")
    ) throws -> SQLiteStore {
        let directory = dataDirectory.path(percentEncoded: false)
        do {
            try FileManager.default.createDirectory(
                atPath: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw GatewayError(.internalError, "the data folder \(directory) cannot be created")
        }
        let cipher = try CredentialCipher.load(environment: environment, dataDirectory: dataDirectory)
        logger.info("master key loaded", metadata: ["source": .string(cipher.source.description)])
        return try SQLiteStore(
            path: dataDirectory.appending(path: databaseFileName).path(percentEncoded: false),
            cipher: cipher,
            logger: logger
        )
    }

    /// Closes the database. Later calls fail with `GatewayError(.internalError)`.
    public func close() throws {
        do {
            try stampConnection?.close()
            try writer.close()
        } catch {
            throw GatewayError(.internalError, "the gateway's database cannot be closed")
        }
    }

    /// The names of the migrations applied to this database, in order (`v1-initial`, …).
    public func appliedMigrations() async throws -> [String] {
        try await read("appliedMigrations") { db in try Self.migrator.appliedMigrations(db) }
    }

    // MARK: Opening

    /// The migrations this version knows, in order.
    static var knownMigrations: [String] { migrator.migrations }

    private func prepare() throws {
        do {
            try migrate()
            let applied = try writer.read { db in try Self.migrator.appliedIdentifiers(db) }
            _ = StoreRules.newerMigrations(applied: applied.sorted(), known: Self.knownMigrations, logger: logger)
        } catch {
            logger.error("cannot migrate the database", metadata: ["error": .string(Self.safeDescription(error))])
            throw GatewayError(.internalError, "the gateway's database cannot be brought up to date")
        }
        try checkMasterKey()
    }

    /// Applies the migrations the file lacks. Two processes opening a new file at once both read the list of applied
    /// migrations and then run the first one each lacks, each in its own write transaction: the second then fails
    /// (its table exists) and rolls back. So a failure is retried for as long as another process has applied more
    /// migrations meanwhile; one with no such progress is a real failure.
    private func migrate() throws {
        var applied = try writer.read { db in try Self.migrator.appliedIdentifiers(db).count }
        while true {
            do {
                try Self.migrator.migrate(writer)
                return
            } catch {
                let now = try writer.read { db in try Self.migrator.appliedIdentifiers(db).count }
                guard now > applied else { throw error }
                applied = now
            }
        }
    }

    /// The first open stores a value sealed with the master key; later opens must be able to unseal it, or hold
    /// either key of an open rotation (`MasterKeyRotation.admit`).
    private func checkMasterKey() throws {
        let cipher = self.cipher
        let records: MasterKeyRecords
        do {
            let candidate = try cipher.seal(BrokerCredentials(), tenantId: "", connectionId: StoreRules.keyCheckName)
            records = try writer.write { db in
                try db.execute(sql: MasterKeySQL.insertIfAbsent, arguments: [StoreRules.keyCheckName, candidate])
                return try Self.masterKeyRecords(db)
            }
        } catch {
            logger.error("cannot check the master key", metadata: ["error": .string(Self.safeDescription(error))])
            throw GatewayError(.internalError, "the gateway's database cannot be read")
        }
        try MasterKeyRotation.admit(cipher, records: records)
    }

    /// With the store's logger at `trace`, every statement the store runs is logged (`sqlite statement`, its SQL
    /// without arguments, so no hash or ciphertext): what a request costs the database can be read from the log, and
    /// tests count the reads a cache saves. At any other level nothing is installed and nothing is paid.
    static func traceStatements(_ configuration: inout Configuration, logger: Logger) {
        guard logger.logLevel <= .trace else { return }
        configuration.prepareDatabase { db in
            db.trace(options: .statement) { event in
                guard case .statement(let statement) = event else { return }
                logger.trace("sqlite statement", metadata: ["sql": .string(statement.sql)])
            }
        }
    }
}

/// `O_EXCL` leaves a file that exists, or that another process creates meanwhile, alone. At file scope because the
/// store's own `open` and `close` would shadow `open(2)` and `close(2)`.
func createOwnerOnlyFileIfMissing(_ path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return }  // It exists, or SQLite will report why it cannot be made.
    _ = fchmod(descriptor, 0o600)
    _ = close(descriptor)
}
