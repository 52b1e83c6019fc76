import Foundation
import GatewayCore
public import GatewayModel
import GatewayStore
import PostgresNIO

extension PostgresStore {
    static let watchlistColumns = "id, name, instruments, created_at, updated_at"

    public func watchlists(tenantId: String, userId: String) async throws -> [Watchlist] {
        try await read("watchlists") { db in
            try await db.rows(
                """
                SELECT \(Self.watchlistColumns) FROM watchlists WHERE tenant_id = ? AND user_id = ?
                ORDER BY created_at, id
                """,
                [tenantId, userId]
            ).map(Watchlist.init(row:))
        }
    }

    public func watchlist(tenantId: String, userId: String, id: String) async throws -> Watchlist? {
        try await read("watchlist") { db in try await Self.fetchWatchlist(db, tenantId: tenantId, userId: userId, id: id) }
    }

    public func createWatchlist(
        tenantId: String,
        userId: String,
        name: String,
        instruments: [Instrument]
    ) async throws -> Watchlist {
        let name = try StoreRules.validatedWatchlistName(name)
        let instrumentsJSON = try StoreRules.encodeJSON(instruments)
        let id = StoreIdentifier.make(StoreIdentifier.watchlist)
        return try await write("createWatchlist", conflict: StoreRules.watchlistNameConflict(name)) { db in
            try await Self.lockTenant(db, tenantId)
            try await Self.requireUser(db, tenantId: tenantId, userId)
            try await Self.requireFreeWatchlistName(db, tenantId: tenantId, userId: userId, name: name, except: nil)
            let newest = try await db.row(
                "SELECT MAX(created_at) AS newest FROM watchlists WHERE tenant_id = ?",
                [tenantId]
            )?.optionalInt64("newest")
            let now = StoreClock.millis(after: newest)
            try await db.execute(
                """
                INSERT INTO watchlists (id, tenant_id, user_id, name, instruments, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [id, tenantId, userId, name, instrumentsJSON, now, now]
            )
            return Watchlist(
                id: id,
                name: name,
                instruments: instruments,
                connectionId: nil,
                createdAt: StoreClock.date(now),
                updatedAt: StoreClock.date(now)
            )
        }
    }

    public func updateWatchlist(
        tenantId: String,
        userId: String,
        id: String,
        name: String?,
        instruments: [Instrument]?
    ) async throws -> Watchlist? {
        let name = try name.map(StoreRules.validatedWatchlistName)
        let instrumentsJSON = try instruments.map(StoreRules.encodeJSON)
        let now = StoreClock.nowMillis()
        return try await write("updateWatchlist", conflict: name.map(StoreRules.watchlistNameConflict)) { db in
            guard
                try await db.row(
                    "SELECT 1 FROM watchlists WHERE tenant_id = ? AND user_id = ? AND id = ? FOR UPDATE",
                    [tenantId, userId, id]
                ) != nil
            else { return nil }
            if let name {
                try await Self.requireFreeWatchlistName(db, tenantId: tenantId, userId: userId, name: name, except: id)
            }
            return try await db.row(
                """
                UPDATE watchlists
                SET name = COALESCE(?, name), instruments = COALESCE(?, instruments),
                    updated_at = GREATEST(?, updated_at + 1)
                WHERE tenant_id = ? AND user_id = ? AND id = ?
                RETURNING \(Self.watchlistColumns)
                """,
                [name, instrumentsJSON, now, tenantId, userId, id]
            ).map(Watchlist.init(row:))
        }
    }

    public func deleteWatchlist(tenantId: String, userId: String, id: String) async throws -> Bool {
        try await write("deleteWatchlist") { db in
            try await db.count(
                "DELETE FROM watchlists WHERE tenant_id = ? AND user_id = ? AND id = ? RETURNING id",
                [tenantId, userId, id]
            )
                > 0
        }
    }

    static func fetchWatchlist(_ db: PostgresSQL, tenantId: String, userId: String, id: String) async throws -> Watchlist? {
        try await db.row(
            "SELECT \(watchlistColumns) FROM watchlists WHERE tenant_id = ? AND user_id = ? AND id = ?",
            [tenantId, userId, id]
        ).map(Watchlist.init(row:))
    }

    static func requireFreeWatchlistName(
        _ db: PostgresSQL,
        tenantId: String,
        userId: String,
        name: String,
        except id: String?
    ) async throws {
        let taken = try await db.row(
            "SELECT id FROM watchlists WHERE tenant_id = ? AND user_id = ? AND name = ?",
            [tenantId, userId, name]
        )?.string("id")
        if let taken, taken != id {
            throw GatewayError(.conflict, StoreRules.watchlistNameConflict(name))
        }
    }
}
