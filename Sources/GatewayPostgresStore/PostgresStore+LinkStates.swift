public import Foundation
import GatewayCore
public import GatewayStore
import PostgresNIO

/// Interactive links in progress: spent by one conditional `UPDATE … RETURNING`, which Postgres runs under the
/// row's lock, so of any number of concurrent completions on any number of instances exactly one changes the row.
extension PostgresStore {
    /// Implements `LinkStateStore.recordLinkState(tenantId:connectionId:stateHash:expiresAt:now:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func recordLinkState(
        tenantId: String,
        connectionId: String,
        stateHash: [UInt8],
        expiresAt: Date,
        now: Date
    ) async throws {
        let nowMillis = StoreClock.millis(now)
        let expires = StoreClock.millis(expiresAt)
        let hash = Data(stateHash)
        try await write("recordLinkState", conflict: "a link with this state already exists") { db in
            // The connection's row is held, so two links started at once for it leave one state, the later one.
            guard
                try await db.row(
                    "SELECT 1 FROM connections WHERE tenant_id = ? AND id = ? FOR NO KEY UPDATE",
                    [tenantId, connectionId]
                )
                    != nil
            else { throw StoreRules.connectionNotFound(connectionId) }
            try await db.execute(
                "DELETE FROM link_states WHERE expires_at < ?",
                [nowMillis - StoreRules.linkStateRetention]
            )
            try await db.execute(
                "DELETE FROM link_states WHERE tenant_id = ? AND connection_id = ?",
                [tenantId, connectionId]
            )
            try await db.execute(
                """
                INSERT INTO link_states (state_hash, tenant_id, connection_id, created_at, expires_at, consumed_at)
                VALUES (?, ?, ?, ?, ?, NULL)
                """,
                [hash, tenantId, connectionId, nowMillis, expires]
            )
        }
    }

    /// Implements `LinkStateStore.consumeLinkState(connectionId:stateHash:now:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func consumeLinkState(connectionId: String, stateHash: [UInt8], now: Date) async throws -> LinkStateOutcome {
        let nowMillis = StoreClock.millis(now)
        let hash = Data(stateHash)
        return try await write("consumeLinkState") { db in
            let spent =
                try await db.count(
                    """
                    UPDATE link_states SET consumed_at = ?
                    WHERE state_hash = ? AND connection_id = ? AND consumed_at IS NULL AND expires_at > ?
                    RETURNING state_hash
                    """,
                    [nowMillis, hash, connectionId, nowMillis]
                ) > 0
            guard
                let row = try await db.row(
                    "SELECT tenant_id, connection_id, expires_at, consumed_at FROM link_states WHERE state_hash = ?",
                    [hash]
                ),
                try row.string("connection_id") == connectionId
            else { return .unknown }
            return try Self.outcome(row, spentNow: spent, nowMillis: nowMillis)
        }
    }

    /// Implements `LinkStateStore.consumeLinkState(tenantId:connectionId:now:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func consumeLinkState(tenantId: String, connectionId: String, now: Date) async throws -> LinkStateOutcome {
        let nowMillis = StoreClock.millis(now)
        return try await write("consumeLinkState") { db in
            let spent =
                try await db.count(
                    """
                    UPDATE link_states SET consumed_at = ?
                    WHERE tenant_id = ? AND connection_id = ? AND consumed_at IS NULL AND expires_at > ?
                    RETURNING state_hash
                    """,
                    [nowMillis, tenantId, connectionId, nowMillis]
                ) > 0
            guard
                let row = try await db.row(
                    """
                    SELECT tenant_id, connection_id, expires_at, consumed_at FROM link_states
                    WHERE tenant_id = ? AND connection_id = ?
                    """,
                    [tenantId, connectionId]
                )
            else { return .unknown }
            return try Self.outcome(row, spentNow: spent, nowMillis: nowMillis)
        }
    }

    private static func outcome(_ row: PostgresRandomAccessRow, spentNow: Bool, nowMillis: Int64) throws -> LinkStateOutcome {
        if spentNow {
            return .consumed(tenantId: try row.string("tenant_id"), connectionId: try row.string("connection_id"))
        }
        if try row.optionalInt64("consumed_at") != nil { return .alreadyUsed }
        if try row.int64("expires_at") <= nowMillis { return .expired }
        return .unknown
    }
}
