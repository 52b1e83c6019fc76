public import Foundation
import GatewayCore
public import GatewayStore
import PostgresNIO

/// Leases as rows with an expiry, claimed by one conditional upsert (`INSERT … ON CONFLICT DO UPDATE … WHERE the
/// lease is free or already ours … RETURNING`): Postgres runs it under the row's lock, so of any number of instances
/// asking at once for a free lease exactly one gets a row back.
///
/// Why a row and not a session advisory lock on a dedicated connection: a session lock lasts as long as the server
/// believes the connection lives, and a leader that is frozen, partitioned, or killed while its TCP connection
/// lingers half-open keeps the lock for as long as the kernel's keepalive takes (hours by default); a lease row
/// lapses exactly `ttl` after its last renewal, whatever happened to the process or its connections. A row also
/// needs no connection pinned outside the pool, works the same on SQLite, and shows who leads
/// (`SELECT * FROM leases`).
extension PostgresStore: LeaderLeaseStore {
    /// Implements `LeaderLeaseStore.tryAcquireLease(name:holder:ttl:now:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func tryAcquireLease(name: String, holder: String, ttl: Duration, now: Date) async throws -> Bool {
        let nowMillis = StoreClock.millis(now)
        let expires = nowMillis + ttl.leaseMillis
        return try await write("tryAcquireLease") { db in
            try await db.count(
                """
                INSERT INTO leases (name, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET
                    holder = excluded.holder, expires_at = excluded.expires_at,
                    acquired_at = CASE WHEN leases.holder = excluded.holder AND leases.expires_at > ?
                        THEN leases.acquired_at ELSE excluded.acquired_at END
                WHERE leases.holder = excluded.holder OR leases.expires_at <= ?
                RETURNING holder
                """,
                [name, holder, nowMillis, expires, nowMillis, nowMillis]
            ) > 0
        }
    }

    /// Implements `LeaderLeaseStore.renewLease(name:holder:ttl:now:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func renewLease(name: String, holder: String, ttl: Duration, now: Date) async throws -> Bool {
        let nowMillis = StoreClock.millis(now)
        return try await write("renewLease") { db in
            try await db.count(
                "UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ? AND expires_at > ? RETURNING name",
                [nowMillis + ttl.leaseMillis, name, holder, nowMillis]
            ) > 0
        }
    }

    /// Implements `LeaderLeaseStore.releaseLease(name:holder:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func releaseLease(name: String, holder: String) async throws {
        try await write("releaseLease") { db in
            try await db.execute("DELETE FROM leases WHERE name = ? AND holder = ?", [name, holder])
        }
    }

    /// Implements `LeaderLeaseStore.pruneAndCountLeases(prefix:now:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func pruneAndCountLeases(prefix: String, now: Date) async throws -> Int {
        let nowMillis = StoreClock.millis(now)
        return try await write("pruneAndCountLeases") { db in
            try await db.execute(
                "DELETE FROM leases WHERE substr(name, 1, length(?::text)) = ?::text AND expires_at <= ?",
                [prefix, prefix, nowMillis]
            )
            return try await db.row(
                "SELECT count(*) AS n FROM leases WHERE substr(name, 1, length(?::text)) = ?::text",
                [prefix, prefix]
            )?.int("n") ?? 0
        }
    }
}
