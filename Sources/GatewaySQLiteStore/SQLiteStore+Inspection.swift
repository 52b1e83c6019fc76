import Dispatch
import GRDB
import Synchronization

// Raw access for the store's own tests (`@testable import GatewayStore`), e.g. to move a ciphertext between rows
// the way an attacker with write access to the file could. Not part of the API.
extension SQLiteStore {
    func executeRaw(_ sql: String, arguments: [String] = []) async throws {
        defer { countWrite() }
        try await writer.write { db in try db.execute(sql: sql, arguments: StatementArguments(arguments)) }
    }

    func fetchRawStrings(_ sql: String, arguments: [String] = []) async throws -> [String] {
        try await writer.read { db in try String.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) }
    }

    /// SQLite's plan for a statement, one `detail` line per step.
    func queryPlan(_ sql: String, arguments: [String] = []) async throws -> [String] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments))
                .map { try $0.decode(String.self, forColumn: "detail") }
        }
    }
}

/// A connection of its own that holds the database's write lock, the way another process (an admin command) can:
/// for tests of what a busy database does to a request. GRDB ends every access with its transaction, so the lock is
/// held inside one access, on a dispatch queue of its own, until `release()`.
final class WriteLockHolder: Sendable {
    private let released = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(path: String) throws {
        let queue = try DatabaseQueue(path: path)
        let locked = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        let (released, finished) = (self.released, self.finished)
        DispatchQueue(label: "WriteLockHolder").async {
            do {
                try queue.inDatabase { db in
                    try db.execute(sql: "BEGIN EXCLUSIVE")
                    locked.signal()
                    released.wait()
                    try db.execute(sql: "COMMIT")
                }
            } catch {
                failure.withLock { $0 = error }
                locked.signal()
            }
            finished.signal()
        }
        locked.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    func release() {
        released.signal()
        finished.wait()
    }
}

extension SQLiteStore {
    /// A database file as an older release left it: migrated only up to `migration`, then `statements` run on it
    /// (rows of that time). For the tests of later migrations.
    static func makeOlderDatabase(path: String, upTo migration: String, statements: [String]) throws {
        let queue = try DatabaseQueue(path: path)
        try migrator.migrate(queue, upTo: migration)
        try queue.write { db in
            for statement in statements { try db.execute(sql: statement) }
        }
        try queue.close()
    }
}
