public import Foundation
import GRDB
import GatewayCore
public import GatewayStore

/// Interactive links in progress (`link_states`): the state nonce an OAuth popup carries, stored as its SHA-256,
/// looked up by that hash, timed, and spent by one conditional `UPDATE`, which SQLite runs for one writer at a time:
/// the first completion sets `consumed_at` and every later one finds it set.
extension SQLiteStore {

    /// Implements `LinkStateStore.recordLinkState(tenantId:connectionId:stateHash:expiresAt:now:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
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
            guard try Self.fetchConnection(db, tenantId: tenantId, id: connectionId) != nil else {
                throw StoreRules.connectionNotFound(connectionId)
            }
            try db.execute(
                sql: "DELETE FROM link_states WHERE expires_at < ?",
                arguments: [nowMillis - StoreRules.linkStateRetention]
            )
            try db.execute(
                sql: "DELETE FROM link_states WHERE tenant_id = ? AND connection_id = ?",
                arguments: [tenantId, connectionId]
            )
            try db.execute(
                sql: """
                    INSERT INTO link_states (state_hash, tenant_id, connection_id, created_at, expires_at, consumed_at)
                    VALUES (?, ?, ?, ?, ?, NULL)
                    """,
                arguments: [hash, tenantId, connectionId, nowMillis, expires]
            )
        }
    }

    /// Implements `LinkStateStore.consumeLinkState(connectionId:stateHash:now:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func consumeLinkState(connectionId: String, stateHash: [UInt8], now: Date) async throws -> LinkStateOutcome {
        let nowMillis = StoreClock.millis(now)
        let hash = Data(stateHash)
        return try await write("consumeLinkState") { db in
            try db.execute(
                sql: """
                    UPDATE link_states SET consumed_at = ?
                    WHERE state_hash = ? AND connection_id = ? AND consumed_at IS NULL AND expires_at > ?
                    """,
                arguments: [nowMillis, hash, connectionId, nowMillis]
            )
            let spent = db.changesCount > 0
            let row = try Row.fetchOne(
                db,
                sql: "SELECT tenant_id, connection_id, expires_at, consumed_at FROM link_states WHERE state_hash = ?",
                arguments: [hash]
            )
            guard let row, try row.decode(String.self, forColumn: "connection_id") == connectionId else { return .unknown }
            return try Self.outcome(row, spentNow: spent, nowMillis: nowMillis)
        }
    }

    /// Implements `LinkStateStore.consumeLinkState(tenantId:connectionId:now:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func consumeLinkState(tenantId: String, connectionId: String, now: Date) async throws -> LinkStateOutcome {
        let nowMillis = StoreClock.millis(now)
        return try await write("consumeLinkState") { db in
            try db.execute(
                sql: """
                    UPDATE link_states SET consumed_at = ?
                    WHERE tenant_id = ? AND connection_id = ? AND consumed_at IS NULL AND expires_at > ?
                    """,
                arguments: [nowMillis, tenantId, connectionId, nowMillis]
            )
            let spent = db.changesCount > 0
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT tenant_id, connection_id, expires_at, consumed_at FROM link_states
                        WHERE tenant_id = ? AND connection_id = ?
                        """,
                    arguments: [tenantId, connectionId]
                )
            else { return .unknown }
            return try Self.outcome(row, spentNow: spent, nowMillis: nowMillis)
        }
    }

    /// After the conditional update: the caller spent the row, or the reason it could not.
    private static func outcome(_ row: Row, spentNow: Bool, nowMillis: Int64) throws -> LinkStateOutcome {
        if spentNow {
            return .consumed(
                tenantId: try row.decode(forColumn: "tenant_id"),
                connectionId: try row.decode(forColumn: "connection_id")
            )
        }
        if try row.decode(Int64?.self, forColumn: "consumed_at") != nil { return .alreadyUsed }
        if try row.decode(Int64.self, forColumn: "expires_at") <= nowMillis { return .expired }
        // Unreachable while the update above sees the same row; answering "unknown" never completes a link.
        return .unknown
    }
}
