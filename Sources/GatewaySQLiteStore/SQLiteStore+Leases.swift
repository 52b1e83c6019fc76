public import Foundation
import GRDB
import GatewayCore
public import GatewayStore

/// Leases in the `leases` table (migration `v9-leases`). SQLite runs one writer at a time, so the conditional
/// upsert below is atomic for every process on the file.
extension SQLiteStore: LeaderLeaseStore {
    /// Implements `LeaderLeaseStore.tryAcquireLease(name:holder:ttl:now:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func tryAcquireLease(name: String, holder: String, ttl: Duration, now: Date) async throws -> Bool {
        let nowMillis = StoreClock.millis(now)
        let expires = nowMillis + ttl.leaseMillis
        return try await write("tryAcquireLease") { db in
            try String.fetchOne(
                db,
                sql: """
                    INSERT INTO leases (name, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET
                        holder = excluded.holder, expires_at = excluded.expires_at,
                        acquired_at = CASE WHEN leases.holder = excluded.holder AND leases.expires_at > ?
                            THEN leases.acquired_at ELSE excluded.acquired_at END
                    WHERE leases.holder = excluded.holder OR leases.expires_at <= ?
                    RETURNING holder
                    """,
                arguments: [name, holder, nowMillis, expires, nowMillis, nowMillis]
            ) != nil
        }
    }

    /// Implements `LeaderLeaseStore.renewLease(name:holder:ttl:now:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func renewLease(name: String, holder: String, ttl: Duration, now: Date) async throws -> Bool {
        let nowMillis = StoreClock.millis(now)
        return try await write("renewLease") { db in
            try db.execute(
                sql: "UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ? AND expires_at > ?",
                arguments: [nowMillis + ttl.leaseMillis, name, holder, nowMillis]
            )
            return db.changesCount > 0
        }
    }

    /// Implements `LeaderLeaseStore.releaseLease(name:holder:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func releaseLease(name: String, holder: String) async throws {
        try await write("releaseLease") { db in
            try db.execute(sql: "DELETE FROM leases WHERE name = ? AND holder = ?", arguments: [name, holder])
        }
    }

    /// Implements `LeaderLeaseStore.pruneAndCountLeases(prefix:now:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func pruneAndCountLeases(prefix: String, now: Date) async throws -> Int {
        let nowMillis = StoreClock.millis(now)
        return try await write("pruneAndCountLeases") { db in
            try db.execute(
                sql: "DELETE FROM leases WHERE substr(name, 1, length(?)) = ? AND expires_at <= ?",
                arguments: [prefix, prefix, nowMillis]
            )
            return try Int.fetchOne(
                db,
                sql: "SELECT count(*) FROM leases WHERE substr(name, 1, length(?)) = ?",
                arguments: [prefix, prefix]
            ) ?? 0
        }
    }
}
