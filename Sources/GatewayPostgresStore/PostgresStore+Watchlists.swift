import Foundation
import GatewayCore
public import GatewayModel
import GatewayStore
import PostgresNIO

extension PostgresStore {
    static let watchlistColumns = "id, name, instruments, created_at, updated_at"

    /// Implements `WatchlistStore.watchlists(tenantId:userId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func watchlists(tenantId: String, userId: String) async throws -> [Watchlist] {
        try await userRows("watchlists", of: "watchlists", columns: Self.watchlistColumns, tenantId: tenantId, userId: userId, Watchlist.init(row:))
    }

    /// Implements `WatchlistStore.watchlist(tenantId:userId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func watchlist(tenantId: String, userId: String, id: String) async throws -> Watchlist? {
        try await read("watchlist") { db in try await Self.fetchWatchlist(db, tenantId: tenantId, userId: userId, id: id) }
    }

    /// Implements `WatchlistStore.createWatchlist(tenantId:userId:name:instruments:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func createWatchlist(
        tenantId: String,
        userId: String,
        name: String,
        instruments: [Instrument]
    ) async throws -> Watchlist {
        let list = try WatchlistWrite(name: name, instruments: instruments)
        let id = StoreIdentifier.make(StoreIdentifier.watchlist)
        return try await write("createWatchlist", conflict: list.conflict) { db in
            try await Self.lockTenant(db, tenantId)
            try await Self.requireUser(db, tenantId: tenantId, userId)
            try await Self.requireFreeWatchlistName(db, tenantId: tenantId, userId: userId, name: list.name, except: nil)
            let now = try await Self.creationTime(db, in: "watchlists", tenantId: tenantId)
            try await db.execute(
                """
                INSERT INTO watchlists (id, tenant_id, user_id, name, instruments, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [id, tenantId, userId, list.name, list.instrumentsJSON, now, now]
            )
            return list.stored(id: id, at: now)
        }
    }

    /// Implements `WatchlistStore.updateWatchlist(tenantId:userId:id:name:instruments:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
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
            guard
                try await db.row(
                    "SELECT 1 FROM watchlists WHERE tenant_id = ? AND user_id = ? AND id = ? FOR UPDATE",
                    [tenantId, userId, id]
                ) != nil
            else { return nil }
            if let name = change.name {
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
                [change.name, change.instrumentsJSON, now, tenantId, userId, id]
            ).map(Watchlist.init(row:))
        }
    }

    /// Implements `WatchlistStore.deleteWatchlist(tenantId:userId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
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
        try await userRow(db, of: "watchlists", columns: watchlistColumns, tenantId: tenantId, userId: userId, id: id, Watchlist.init(row:))
    }

    static func requireFreeWatchlistName(
        _ db: PostgresSQL,
        tenantId: String,
        userId: String,
        name: String,
        except id: String?
    ) async throws {
        try await requireFreeName(
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
