import GRDB

// Raw access for the store's own tests (`@testable import GatewayStore`), e.g. to move a ciphertext between rows
// the way an attacker with write access to the file could. Not part of the API.
extension SQLiteStore {
    func executeRaw(_ sql: String, arguments: [String] = []) async throws {
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
