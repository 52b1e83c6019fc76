public import Foundation
import GatewayCore
public import GatewayModel
public import GatewayStore
import PostgresNIO

/// The order feed on PostgreSQL (as `SQLiteStore+OrderFeed.swift`): an event's cursor is its `feed_id`, taken from a
/// sequence while the writer holds the feed's transaction lock (`append`), so feed ids commit in increasing order.
extension PostgresStore {
    /// Implements `OrderJournalStore.orderFeed(after:limit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func orderFeed(after cursor: Int64, limit: Int) async throws -> [OrderFeedEvent] {
        guard limit > 0 else { return [] }
        return try await read("orderFeed") { db in
            try await Self.feedRows(db, where: "e.feed_id > ?", [cursor], limit: limit)
        }
    }

    /// Implements `OrderJournalStore.orderFeed(tenantId:userId:after:limit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func orderFeed(tenantId: String, userId: String, after cursor: Int64, limit: Int) async throws -> [OrderFeedEvent] {
        guard limit > 0 else { return [] }
        return try await read("orderFeedOfUser") { db in
            try await Self.feedRows(
                db,
                where: "e.feed_id > ? AND o.tenant_id = ? AND o.user_id = ?",
                [cursor, tenantId, userId],
                limit: limit
            )
        }
    }

    /// Implements `OrderJournalStore.orderFeedEnd()` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func orderFeedEnd() async throws -> Int64 {
        try await read("orderFeedEnd") { db in
            try await db.row("SELECT MAX(feed_id) AS last FROM order_events")?.optionalInt64("last") ?? 0
        }
    }

    /// Implements `OrderJournalStore.openOrderReferences(limit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func openOrderReferences(limit: Int) async throws -> [JournaledOrderReference] {
        guard limit > 0 else { return [] }
        let open = OrderStatus.allCases.filter(\.isActive).map(\.rawValue)
        return try await read("openOrderReferences") { db in
            try await db.rows(
                """
                SELECT \(Self.referenceColumns) FROM orders
                WHERE state = 'accepted' AND broker_status IN (\(PostgresSQL.placeholders(open.count)))
                ORDER BY updated_at, id LIMIT ?
                """,
                open as [any SQLArgument] + [limit]
            ).map(JournaledOrderReference.init(row:))
        }
    }

    private static func feedRows(
        _ db: PostgresSQL,
        where condition: String,
        _ arguments: [any SQLArgument],
        limit: Int
    )
        async throws -> [OrderFeedEvent]
    {
        try await db.rows(
            """
            SELECT e.feed_id AS cursor, e.order_id, e.sequence, e.kind, e.state, e.status, e.broker_order_id,
                e.detail, e.at, o.tenant_id, o.user_id, o.connection_id, o."order",
                CASE WHEN strpos(o.venue, chr(10)) > 1 THEN substr(o.venue, 1, strpos(o.venue, chr(10)) - 1) END
                    AS venue_broker
            FROM order_events e JOIN orders o ON o.id = e.order_id
            WHERE \(condition)
            ORDER BY e.feed_id LIMIT ?
            """,
            arguments + [limit]
        ).map { row in
            let orderId = try row.string("order_id")
            return OrderFeedEvent(
                cursor: try row.int64("cursor"),
                tenantId: try row.string("tenant_id"),
                userId: try row.optionalString("user_id"),
                orderId: orderId,
                connectionId: try row.string("connection_id"),
                broker: try row.optionalString("venue_broker").map { BrokerKind($0) },
                event: try OrderEvent(row: row, orderId: orderId),
                order: try row.optionalString("order").flatMap {
                    try? JournalJSON.decode(Order.self, $0, column: "order", orderId: orderId)
                }
            )
        }
    }
}
