import Foundation
import GRDB
import GatewayCore
public import GatewayModel
import GatewayStore

extension SQLiteStore {
    static let watchlistColumns = "id, name, instruments, created_at, updated_at"

    /// The user's gateway-side watchlists, oldest first.
    public func watchlists(tenantId: String, userId: String) async throws -> [Watchlist] {
        try await userRows("watchlists", of: "watchlists", columns: Self.watchlistColumns, tenantId: tenantId, userId: userId, Watchlist.init(row:))
    }

    /// Implements `WatchlistStore.watchlist(tenantId:userId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
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
        let list = try WatchlistWrite(name: name, instruments: instruments)
        let id = StoreIdentifier.make(StoreIdentifier.watchlist)
        return try await write("createWatchlist", conflict: list.conflict) { db in
            try Self.requireTenant(db, tenantId)
            try Self.requireUser(db, tenantId: tenantId, userId)
            try Self.requireFreeWatchlistName(db, tenantId: tenantId, userId: userId, name: list.name, except: nil)
            let now = try Self.creationTime(db, in: "watchlists", tenantId: tenantId)
            try db.execute(
                sql: """
                    INSERT INTO watchlists (id, tenant_id, user_id, name, instruments, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, tenantId, userId, list.name, list.instrumentsJSON, now, now]
            )
            return list.stored(id: id, at: now)
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
        let change = try WatchlistChange(name: name, instruments: instruments)
        let now = StoreClock.nowMillis()
        return try await write("updateWatchlist", conflict: change.conflict) { db in
            guard try Self.fetchWatchlist(db, tenantId: tenantId, userId: userId, id: id) != nil else { return nil }
            if let name = change.name {
                try Self.requireFreeWatchlistName(db, tenantId: tenantId, userId: userId, name: name, except: id)
            }
            try db.execute(
                sql: """
                    UPDATE watchlists
                    SET name = COALESCE(?, name), instruments = COALESCE(?, instruments),
                        updated_at = MAX(?, updated_at + 1)
                    WHERE tenant_id = ? AND user_id = ? AND id = ?
                    """,
                arguments: [change.name, change.instrumentsJSON, now, tenantId, userId, id]
            )
            return try Self.fetchWatchlist(db, tenantId: tenantId, userId: userId, id: id)
        }
    }

    /// Implements `WatchlistStore.deleteWatchlist(tenantId:userId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
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
        try userRow(db, of: "watchlists", columns: watchlistColumns, tenantId: tenantId, userId: userId, id: id, Watchlist.init(row:))
    }

    static func requireFreeWatchlistName(
        _ db: Database,
        tenantId: String,
        userId: String,
        name: String,
        except id: String?
    ) throws {
        try requireFreeName(
            db,
            in: "watchlists",
            tenantId: tenantId,
            userId: userId,
            name: name,
            except: id,
            conflict: StoreRules.watchlistNameConflict(name)
        )
    }
}
