import Foundation
import GatewayCore
import GatewayModel
import Logging
import PostgresNIO
import Testing

@testable import GatewayPostgresStore
@testable import GatewaySQLiteStore
@testable import GatewayStore

/// The store backends every parameterised suite runs on: SQLite always; PostgreSQL when
/// `BROKERGATEWAY_TEST_POSTGRES_URL` names a server (`.ci/run` starts one), where each test gets a schema of its own,
/// dropped afterwards, so tests run in parallel on one database.
enum StoreBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    static let postgresURL = ProcessInfo.processInfo.environment["BROKERGATEWAY_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    static let all: [StoreBackend] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]
    /// Only the backends where several store instances share one database (for cross-instance tests).
    static let shared: [StoreBackend] = all

    var testDescription: String { rawValue }
}

/// What the suites use of a store: the two protocols, the leases, and raw SQL for checks below the API.
protocol TestableStore: GatewayStore, OrderJournalStore, LeaderLeaseStore, MasterKeyStore {
    /// The first column of each row, as text.
    func rawStrings(_ sql: String, _ arguments: [String]) async throws -> [String]
    func rawExecute(_ sql: String, _ arguments: [String]) async throws
}

extension TestableStore {
    func rawStrings(_ sql: String) async throws -> [String] { try await rawStrings(sql, []) }
    func rawExecute(_ sql: String) async throws { try await rawExecute(sql, []) }
}

extension SQLiteStore: TestableStore {
    func rawStrings(_ sql: String, _ arguments: [String]) async throws -> [String] {
        try await fetchRawStrings(sql, arguments: arguments)
    }

    func rawExecute(_ sql: String, _ arguments: [String]) async throws {
        try await executeRaw(sql, arguments: arguments)
    }
}

extension PostgresStore: TestableStore {
    func rawStrings(_ sql: String, _ arguments: [String]) async throws -> [String] {
        try await read("rawStrings") { db in
            try await db.rows(sql, arguments).map { row in try row[0].decode(String?.self) ?? "" }
        }
    }

    func rawExecute(_ sql: String, _ arguments: [String]) async throws {
        try await write("rawExecute") { db in try await db.execute(sql, arguments) }
    }
}

typealias AnyStore = any TestableStore

/// A fresh store of `backend`, closed (and its PostgreSQL schema dropped) when `body` returns or throws.
func withStore<T: Sendable>(
    _ backend: StoreBackend,
    cipher: CredentialCipher = .random(),
    _ body: (AnyStore) async throws -> T
) async throws -> T {
    switch backend {
    case .sqlite:
        return try await withStore(cipher: cipher) { store, _ in try await body(store) }
    case .postgres:
        return try await withPostgresSchema { settings in
            try await PostgresStore.withStore(settings: settings, cipher: cipher, logger: quietLogger) { store in
                try await body(store)
            }
        }
    }
}

/// One database, opened as many times as a test likes, each time with the cipher it is given (as gateway
/// instances started with different keys would open it).
struct StoreDatabase: Sendable {
    let backend: StoreBackend
    let sqlitePath: String?
    let postgres: PostgresStoreSettings?

    /// Opens the database with a cipher of its own over `cipher`'s key: copies of one cipher share what they
    /// learn, and two instances of the gateway share nothing.
    func with<T: Sendable>(_ key: CredentialCipher, _ body: (AnyStore) async throws -> T) async throws -> T {
        let cipher = CredentialCipher(key: key.key, source: key.source)
        if let sqlitePath {
            let store = try await SQLiteStore.opening(path: sqlitePath, cipher: cipher, logger: quietLogger)
            defer { try? store.close() }
            return try await body(store)
        }
        return try await PostgresStore.withStore(settings: postgres!, cipher: cipher, logger: quietLogger) { store in
            try await body(store)
        }
    }
}

func withStoreDatabase<T: Sendable>(_ backend: StoreBackend, _ body: (StoreDatabase) async throws -> T) async throws -> T {
    switch backend {
    case .sqlite:
        try await withTemporaryDirectory { directory in
            try await body(StoreDatabase(backend: backend, sqlitePath: databasePath(in: directory), postgres: nil))
        }
    case .postgres:
        try await withPostgresSchema { settings in
            try await body(StoreDatabase(backend: backend, sqlitePath: nil, postgres: settings))
        }
    }
}

/// Two store instances on one fresh database, as two gateway processes would have: two SQLite stores on one file,
/// or two PostgreSQL stores (two pools) on one schema. Both are opened at once.
func withTwoStores<T: Sendable>(
    _ backend: StoreBackend,
    cipher: CredentialCipher = .random(),
    _ body: (AnyStore, AnyStore) async throws -> T
) async throws -> T {
    switch backend {
    case .sqlite:
        return try await withTemporaryDirectory { directory in
            let path = databasePath(in: directory)
            let stores = try await withThrowingTaskGroup(of: SQLiteStore.self) { group in
                for _ in 0..<2 { group.addTask { try await SQLiteStore.opening(path: path, cipher: cipher) } }
                var stores: [SQLiteStore] = []
                for try await store in group { stores.append(store) }
                return stores
            }
            let (first, second) = (stores[0], stores[1])
            defer {
                try? first.close()
                try? second.close()
            }
            return try await body(first, second)
        }
    case .postgres:
        return try await withPostgresSchema { settings in
            try await withTwoPostgresStores(settings: settings, cipher: cipher, body)
        }
    }
}

/// Opens two stores on `settings` at once (both migrate concurrently), then runs `body`.
func withTwoPostgresStores<T: Sendable>(
    settings: PostgresStoreSettings,
    cipher: CredentialCipher,
    _ body: (AnyStore, AnyStore) async throws -> T
) async throws -> T {
    let first = PostgresStore(settings: settings, cipher: cipher, logger: quietLogger)
    let second = PostgresStore(settings: settings, cipher: cipher, logger: quietLogger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await first.client.run() }
        group.addTask { await second.client.run() }
        defer { group.cancelAll() }
        async let preparedFirst: Void = first.prepare()
        async let preparedSecond: Void = second.prepare()
        _ = try await (preparedFirst, preparedSecond)
        return try await body(first, second)
    }
}

let quietLogger: Logger = {
    var logger = Logger(label: "GatewayStoreTests")
    logger.logLevel = .critical
    return logger
}()

/// Settings for a schema of the test's own on the test server, dropped afterwards. At most a few tests hold a
/// schema at once, so the server's connection limit is never reached however many tests run in parallel.
func withPostgresSchema<T: Sendable>(_ body: (PostgresStoreSettings) async throws -> T) async throws -> T {
    guard let url = StoreBackend.postgresURL else {
        throw GatewayError(.internalError, "BROKERGATEWAY_TEST_POSTGRES_URL is not set")
    }
    var settings = try PostgresStoreSettings(url: url)
    settings.schema = "test_" + RandomIdentifier.base32(count: 16)
    settings.maximumConnections = 4
    // Not the subject here: under CI's load a connection to the test server once took more than the default 10 s.
    settings.connectTimeout = .seconds(60)
    await PostgresTestSlots.shared.enter()
    let result: Result<T, any Error>
    do {
        result = .success(try await body(settings))
    } catch {
        result = .failure(error)
    }
    let schema = settings.schema ?? ""
    // Without migrating or checking the master key: only the schema's removal.
    let dropper = PostgresStore(settings: settings, cipher: .random(), logger: quietLogger)
    do {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await dropper.client.run() }
            defer { group.cancelAll() }
            try await dropper.rawExecute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
        }
    } catch {
        // A schema left behind costs only space on a throwaway server; the test's own outcome is what counts.
    }
    await PostgresTestSlots.shared.leave()
    return try result.get()
}

/// A counting semaphore for the PostgreSQL tests: 12 at a time, each with at most a few pools of 4 connections.
actor PostgresTestSlots {
    static let shared = PostgresTestSlots(limit: 12)
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { free = limit }

    func enter() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
