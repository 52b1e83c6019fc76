import Foundation
import GRDB
import GatewayCore
public import GatewayModel
import GatewayStore

extension SQLiteStore {
    static let watchlistColumns = "id, name, instruments, created_at, updated_at"

    /// The user's gateway-side watchlists, oldest first.
    public func watchlists(tenantId: String, userId: String) async throws -> [Watchlist] {
        try await read("watchlists") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.watchlistColumns) FROM watchlists WHERE tenant_id = ? AND user_id = ?
                    ORDER BY created_at, id
                    """,
                arguments: [tenantId, userId]
            ).map(Watchlist.init(row:))
        }
    }

    public func watchlist(tenantId: String, userId: String, id: String) async throws -> Watchlist? {
        try await read("watchlist") { db in
            try Self.fetchWatchlist(db, tenantId: tenantId, userId: userId, id: id)
        }
    }

    /// The name is trimmed of surrounding whitespace and must then be 1 to 100 characters; names are unique per
    /// user (compared exactly).
    /// - Throws: `GatewayError(.invalidRequest)` for a bad name, `.conflict` for a name the user already uses,
    ///   `.notFound` for an unknown tenant or user.
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
            try Self.requireTenant(db, tenantId)
            try Self.requireUser(db, tenantId: tenantId, userId)
            try Self.requireFreeWatchlistName(db, tenantId: tenantId, userId: userId, name: name, except: nil)
            let newest = try Int64.fetchOne(
                db,
                sql: "SELECT MAX(created_at) FROM watchlists WHERE tenant_id = ?",
                arguments: [tenantId]
            )
            let now = StoreClock.millis(after: newest)
            try db.execute(
                sql: """
                    INSERT INTO watchlists (id, tenant_id, user_id, name, instruments, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, tenantId, userId, name, instrumentsJSON, now, now]
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

    /// Changes the name and/or the instruments (`nil` keeps the current value). `nil` when the tenant has no such
    /// watchlist.
    /// - Throws: as `createWatchlist` for the new name (renaming onto another list's name is a `conflict`).
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
            guard try Self.fetchWatchlist(db, tenantId: tenantId, userId: userId, id: id) != nil else { return nil }
            if let name {
                try Self.requireFreeWatchlistName(db, tenantId: tenantId, userId: userId, name: name, except: id)
            }
            try db.execute(
                sql: """
                    UPDATE watchlists
                    SET name = COALESCE(?, name), instruments = COALESCE(?, instruments),
                        updated_at = MAX(?, updated_at + 1)
                    WHERE tenant_id = ? AND user_id = ? AND id = ?
                    """,
                arguments: [name, instrumentsJSON, now, tenantId, userId, id]
            )
            return try Self.fetchWatchlist(db, tenantId: tenantId, userId: userId, id: id)
        }
    }

    public func deleteWatchlist(tenantId: String, userId: String, id: String) async throws -> Bool {
        try await write("deleteWatchlist") { db in
            try db.execute(
                sql: "DELETE FROM watchlists WHERE tenant_id = ? AND user_id = ? AND id = ?",
                arguments: [tenantId, userId, id]
            )
            return db.changesCount > 0
        }
    }

    static func fetchWatchlist(_ db: Database, tenantId: String, userId: String, id: String) throws -> Watchlist? {
        try Row.fetchOne(
            db,
            sql: "SELECT \(watchlistColumns) FROM watchlists WHERE tenant_id = ? AND user_id = ? AND id = ?",
            arguments: [tenantId, userId, id]
        ).map(Watchlist.init(row:))
    }

    /// Checked before writing for a clear message; the unique index is the backstop against a race.
    static func requireFreeWatchlistName(
        _ db: Database,
        tenantId: String,
        userId: String,
        name: String,
        except id: String?
    ) throws {
        let taken = try String.fetchOne(
            db,
            sql: "SELECT id FROM watchlists WHERE tenant_id = ? AND user_id = ? AND name = ?",
            arguments: [tenantId, userId, name]
        )
        if let taken, taken != id {
            throw GatewayError(.conflict, StoreRules.watchlistNameConflict(name))
        }
    }

}
