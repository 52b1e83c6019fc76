import GatewayStore
import PostgresNIO

// The queries every user-owned table (connections, users, watchlists, goals, alerts, devices) shares: its creation
// order and, for the named ones, its unique names. The rules around them are `StoreRules`'.
extension PostgresStore {
    /// A new row's `created_at`: strictly after the newest row of the tenant (or of one user) in `table`, so that
    /// "oldest first" is also creation order and a cursor is exact. Callers hold the tenant's lock (`lockTenant`)
    /// or the user's, so the newest row stays the newest until they commit.
    static func creationTime(_ db: PostgresSQL, in table: String, tenantId: String, userId: String? = nil) async throws -> Int64 {
        let newest = try await db.row(
            "SELECT MAX(created_at) AS newest FROM \(table) WHERE tenant_id = ?\(userId == nil ? "" : " AND user_id = ?")",
            [tenantId] + (userId.map { [$0] } ?? [])
        )?.optionalInt64("newest")
        return StoreClock.millis(after: newest)
    }

    /// `StoreRules.requireFreeName` against the user's row of `table` that has `name`.
    static func requireFreeName(
        _ db: PostgresSQL,
        in table: String,
        tenantId: String,
        userId: String,
        name: String,
        except id: String?,
        conflict: String
    ) async throws {
        let taken = try await db.row(
            "SELECT id FROM \(table) WHERE tenant_id = ? AND user_id = ? AND name = ?",
            [tenantId, userId, name]
        )?.string("id")
        try StoreRules.requireFreeName(name, takenBy: taken, except: id, conflict: conflict)
    }

    /// The user's rows of `table` (watchlists, goals, alerts), oldest first (`created_at`, then `id`).
    func userRows<Item: Sendable>(
        _ operation: String,
        of table: String,
        columns: String,
        tenantId: String,
        userId: String,
        _ decode: (PostgresRandomAccessRow) throws -> Item
    ) async throws -> [Item] {
        try await read(operation) { db in
            try await db.rows(
                "SELECT \(columns) FROM \(table) WHERE tenant_id = ? AND user_id = ? ORDER BY created_at, id",
                [tenantId, userId]
            ).map(decode)
        }
    }

    /// The user's row `id` of `table`; `nil` when the user has none (another user's row is not theirs).
    static func userRow<Item>(
        _ db: PostgresSQL,
        of table: String,
        columns: String,
        tenantId: String,
        userId: String,
        id: String,
        _ decode: (PostgresRandomAccessRow) throws -> Item
    ) async throws -> Item? {
        try await db.row(
            "SELECT \(columns) FROM \(table) WHERE tenant_id = ? AND user_id = ? AND id = ?",
            [tenantId, userId, id]
        ).map(decode)
    }
}
