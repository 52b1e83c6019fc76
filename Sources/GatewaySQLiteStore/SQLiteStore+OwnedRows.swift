import GRDB
import GatewayStore

// The queries every user-owned table (connections, users, watchlists, goals, alerts, devices) shares: its creation
// order and, for the named ones, its unique names. The rules around them are `StoreRules`'.
extension SQLiteStore {
    /// A new row's `created_at`: strictly after the newest row of the tenant (or of one user) in `table`, so that
    /// "oldest first" is also creation order and a cursor is exact.
    static func creationTime(_ db: Database, in table: String, tenantId: String, userId: String? = nil) throws -> Int64 {
        let newest = try Int64.fetchOne(
            db,
            sql: "SELECT MAX(created_at) FROM \(table) WHERE tenant_id = ?\(userId == nil ? "" : " AND user_id = ?")",
            arguments: StatementArguments([tenantId] + (userId.map { [$0] } ?? []))
        )
        return StoreClock.millis(after: newest)
    }

    /// `StoreRules.requireFreeName` against the user's row of `table` that has `name`.
    static func requireFreeName(
        _ db: Database,
        in table: String,
        tenantId: String,
        userId: String,
        name: String,
        except id: String?,
        conflict: String
    ) throws {
        let taken = try String.fetchOne(
            db,
            sql: "SELECT id FROM \(table) WHERE tenant_id = ? AND user_id = ? AND name = ?",
            arguments: [tenantId, userId, name]
        )
        try StoreRules.requireFreeName(name, takenBy: taken, except: id, conflict: conflict)
    }

    /// The user's rows of `table` (watchlists, goals, alerts), oldest first (`created_at`, then `id`).
    func userRows<Item: Sendable>(
        _ operation: String,
        of table: String,
        columns: String,
        tenantId: String,
        userId: String,
        _ decode: @escaping @Sendable (Row) throws -> Item
    ) async throws -> [Item] {
        try await read(operation) { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(columns) FROM \(table) WHERE tenant_id = ? AND user_id = ? ORDER BY created_at, id",
                arguments: [tenantId, userId]
            ).map(decode)
        }
    }

    /// The user's row `id` of `table`; `nil` when the user has none (another user's row is not theirs).
    static func userRow<Item>(
        _ db: Database,
        of table: String,
        columns: String,
        tenantId: String,
        userId: String,
        id: String,
        _ decode: (Row) throws -> Item
    ) throws -> Item? {
        try Row.fetchOne(
            db,
            sql: "SELECT \(columns) FROM \(table) WHERE tenant_id = ? AND user_id = ? AND id = ?",
            arguments: [tenantId, userId, id]
        ).map(decode)
    }
}
