public import Foundation
import GRDB
import GatewayCore
public import GatewayModel
public import GatewayStore

/// The order feed on SQLite: the journal's events in commit order. An event's cursor is its `rowid`: SQLite gives a
/// new row the largest rowid plus one, writers go one at a time, and journal events are never deleted (triggers), so
/// rowids only grow, in commit order.
extension SQLiteStore {
    /// Implements `OrderJournalStore.orderFeed(after:limit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func orderFeed(after cursor: Int64, limit: Int) async throws -> [OrderFeedEvent] {
        guard limit > 0 else { return [] }
        return try await read("orderFeed") { db in
            try Self.feedRows(db, where: "e.rowid > ?", [cursor], limit: limit)
        }
    }

    /// Implements `OrderJournalStore.orderFeed(tenantId:userId:after:limit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func orderFeed(tenantId: String, userId: String, after cursor: Int64, limit: Int) async throws -> [OrderFeedEvent] {
        guard limit > 0 else { return [] }
        return try await read("orderFeedOfUser") { db in
            try Self.feedRows(
                db,
                where: "e.rowid > ? AND o.tenant_id = ? AND o.user_id = ?",
                [cursor, tenantId, userId],
                limit: limit
            )
        }
    }

    /// Implements `OrderJournalStore.orderFeedEnd()` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func orderFeedEnd() async throws -> Int64 {
        try await read("orderFeedEnd") { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM order_events") ?? 0
        }
    }

    /// Implements `OrderJournalStore.openOrderReferences(limit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func openOrderReferences(limit: Int) async throws -> [JournaledOrderReference] {
        guard limit > 0 else { return [] }
        let open = OrderStatus.allCases.filter(\.isActive).map(\.rawValue)
        return try await read("openOrderReferences") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.referenceColumns) FROM orders
                    WHERE state = 'accepted' AND broker_status IN (\(databaseQuestionMarks(count: open.count)))
                    ORDER BY updated_at, id LIMIT ?
                    """,
                arguments: StatementArguments(open) + [limit]
            ).map(JournaledOrderReference.init(row:))
        }
    }

    private static func feedRows(
        _ db: Database,
        where condition: String,
        _ arguments: StatementArguments,
        limit: Int
    )
        throws -> [OrderFeedEvent]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT e.rowid AS cursor, e.order_id, e.sequence, e.kind, e.state, e.status, e.broker_order_id,
                    e.detail, e.at, o.tenant_id, o.user_id, o.connection_id, o."order",
                    CASE WHEN instr(o.venue, char(10)) > 1 THEN substr(o.venue, 1, instr(o.venue, char(10)) - 1) END
                        AS venue_broker
                FROM order_events e JOIN orders o ON o.id = e.order_id
                WHERE \(condition)
                ORDER BY e.rowid LIMIT ?
                """,
            arguments: arguments + [limit]
        ).map { row in
            let orderId = try row.decode(String.self, forColumn: "order_id")
            return OrderFeedEvent(
                cursor: try row.decode(forColumn: "cursor"),
                tenantId: try row.decode(forColumn: "tenant_id"),
                userId: try row.decode(String?.self, forColumn: "user_id"),
                orderId: orderId,
                connectionId: try row.decode(forColumn: "connection_id"),
                broker: try row.decode(String?.self, forColumn: "venue_broker").map { BrokerKind($0) },
                event: try OrderEvent(row: row, orderId: orderId),
                // An order that does not read leaves the update without it, never the feed stuck on it.
                order: try row.decode(String?.self, forColumn: "order").flatMap {
                    try? JournalJSON.decode(Order.self, $0, column: "order", orderId: orderId)
                }
            )
        }
    }
}
