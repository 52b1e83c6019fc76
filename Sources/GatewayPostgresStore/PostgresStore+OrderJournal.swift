public import Foundation
import GatewayCore
import GatewayModel
public import GatewayStore
import PostgresNIO

/// The order journal on PostgreSQL (as `SQLiteStore+OrderJournal.swift`, whose doc comments hold for every method).
///
/// How each step stays atomic when several instances write at once:
/// - an idempotency key is claimed by one `INSERT … ON CONFLICT DO UPDATE … WHERE expired RETURNING`: a concurrent
///   claim of the same key waits on the first one's row and then sees it, so exactly one claimer gets `claimed`;
/// - an order's update reads it `FOR UPDATE`, so its events get consecutive sequences and its `updatedAt` moves on;
/// - a released order is reclaimed by one conditional `UPDATE … WHERE state = 'released' RETURNING`;
/// - a broker order id is recorded under a transaction-scoped advisory lock on that id, so the look-up for another
///   owner (on this connection or at the venue) and the insert are one step; the primary key and a unique index on
///   (venue, broker order id) are the backstop.
extension PostgresStore: OrderJournalStore {
    // MARK: Idempotency keys

    /// Implements `OrderJournalStore.claimIdempotencyKey(tenantId:key:requestHash:proposedOrderId:retention:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func claimIdempotencyKey(
        tenantId: String,
        key: String,
        requestHash: String,
        proposedOrderId: String,
        retention: TimeInterval
    ) async throws -> IdempotencyClaim {
        guard retention > 0, retention <= StoreRules.maximumIdempotencyRetention else {
            throw GatewayError(.internalError, "an idempotency key's retention must be positive and at most 10 years")
        }
        let retentionMillis = Int64((retention * 1000).rounded(.up))
        return try await write("claimIdempotencyKey") { db in
            try await Self.requireTenant(db, tenantId)
            let now = StoreClock.nowMillis()
            let claimed = try await db.count(
                """
                INSERT INTO idempotency_keys (tenant_id, key, request_hash, order_id, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (tenant_id, key) DO UPDATE SET
                    request_hash = excluded.request_hash, order_id = excluded.order_id,
                    created_at = excluded.created_at, expires_at = excluded.expires_at
                WHERE idempotency_keys.expires_at < excluded.created_at
                RETURNING order_id
                """,
                [tenantId, key, requestHash, proposedOrderId, now, now + retentionMillis]
            )
            if claimed > 0 { return .claimed(orderId: proposedOrderId) }
            // The key is live and someone else's: this statement's snapshot sees the row that stopped the insert.
            guard
                let held = try await db.row(
                    "SELECT request_hash, order_id FROM idempotency_keys WHERE tenant_id = ? AND key = ?",
                    [tenantId, key]
                )
            else { throw GatewayError(.internalError, "an idempotency key vanished while it was claimed") }
            let orderId = try held.string("order_id")
            return try held.string("request_hash") == requestHash
                ? .existing(orderId: orderId) : .mismatch(orderId: orderId)
        }
    }

    /// Implements `OrderJournalStore.heldIdempotencyKey(tenantId:key:requestHash:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func heldIdempotencyKey(tenantId: String, key: String, requestHash: String) async throws -> IdempotencyClaim? {
        try await read("heldIdempotencyKey") { db in
            guard
                let held = try await db.row(
                    "SELECT request_hash, order_id FROM idempotency_keys WHERE tenant_id = ? AND key = ? AND expires_at >= ?",
                    [tenantId, key, StoreClock.nowMillis()]
                )
            else { return nil }
            let orderId = try held.string("order_id")
            return try held.string("request_hash") == requestHash
                ? .existing(orderId: orderId) : .mismatch(orderId: orderId)
        }
    }

    // MARK: Writing the journal

    /// Implements `OrderJournalStore.createOrderIntent(_:event:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func createOrderIntent(_ order: JournaledOrder, event: OrderEvent) async throws {
        let row = try JournalRow(order)
        let event = try JournalEventRow(event)
        try await write("createOrderIntent", conflict: "order \(order.id) is already journaled") { db in
            try await Self.requireTenant(db, row.tenantId)
            if try await db.row("SELECT 1 FROM orders WHERE id = ?", [row.id]) != nil {
                throw GatewayError(.conflict, "order \(row.id) is already journaled")
            }
            if let holder = try await db.row(
                "SELECT id FROM orders WHERE tenant_id = ? AND connection_id = ? AND client_order_id = ?",
                [row.tenantId, row.connectionId, row.clientOrderId]
            )?.string("id") {
                throw GatewayError(
                    .conflict,
                    "client order id '\(row.clientOrderId)' is already used by order \(holder) on connection "
                        + row.connectionId
                )
            }
            try await db.execute(
                """
                INSERT INTO orders (\(Self.journaledOrderInsertColumns), venue, user_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                    (SELECT \(Self.venueOfConnection("c", account: "?")) FROM connections c
                     WHERE c.tenant_id = ? AND c.id = ?),
                    (SELECT c.user_id FROM connections c WHERE c.tenant_id = ? AND c.id = ?))
                """,
                [
                    row.id, row.tenantId, row.connectionId, row.accountId, row.clientOrderId, row.request, row.state,
                    row.brokerOrderId, row.order, row.errorCode, row.errorMessage, row.createdAt,
                    max(row.updatedAt, row.createdAt), max(row.sentAt, row.createdAt), row.accountId, row.tenantId,
                    row.connectionId, row.tenantId, row.connectionId,
                ]
            )
            if let brokerOrderId = row.brokerOrderId {
                try await Self.recordBrokerOrderId(
                    db,
                    brokerOrderId,
                    orderId: row.id,
                    tenantId: row.tenantId,
                    connectionId: row.connectionId
                )
            }
            try await Self.append(db, event, orderId: row.id, tenantId: row.tenantId, sequence: 1)
        }
    }

    /// Implements `OrderJournalStore.updateJournaledOrder(_:event:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func updateJournaledOrder(_ order: JournaledOrder, event: OrderEvent) async throws {
        // A placement's own answer is the broker's word that this intent holds the id now: an older binding of the
        // same id is a reuse by a broker that started over, and is retired rather than refusing the new order.
        let supersedes = event.kind == .accepted
        let row = try JournalRow(order)
        let event = try JournalEventRow(event)
        try await write("updateJournaledOrder") { db in
            guard
                let stored = try await db.row(
                    "SELECT connection_id, updated_at FROM orders WHERE tenant_id = ? AND id = ? FOR UPDATE",
                    [row.tenantId, row.id]
                )
            else { throw StoreRules.journaledOrderNotFound(row.id) }
            let connectionId = try stored.string("connection_id")
            let updatedAt = max(row.updatedAt, try stored.int64("updated_at") + 1)
            if let brokerOrderId = row.brokerOrderId {
                try await Self.recordBrokerOrderId(
                    db,
                    brokerOrderId,
                    orderId: row.id,
                    tenantId: row.tenantId,
                    connectionId: connectionId,
                    supersedes: supersedes
                )
            }
            try await db.execute(
                """
                UPDATE orders
                SET state = ?, broker_order_id = ?, "order" = ?, broker_status = ?, error_code = ?, error_message = ?,
                    updated_at = ?
                WHERE tenant_id = ? AND id = ?
                """,
                [
                    row.state, row.brokerOrderId, row.order, order.order?.status.rawValue, row.errorCode,
                    row.errorMessage, updatedAt, row.tenantId, row.id,
                ]
            )
            try await Self.append(
                db,
                event,
                orderId: row.id,
                tenantId: row.tenantId,
                sequence: try await Self.nextSequence(db, orderId: row.id)
            )
        }
    }

    // MARK: Reading the journal

    /// Implements `OrderJournalStore.journaledOrder(tenantId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func journaledOrder(tenantId: String, id: String) async throws -> JournaledOrder? {
        try await read("journaledOrder") { db in
            try await db.row("SELECT \(Self.journaledOrderColumns) FROM orders WHERE tenant_id = ? AND id = ?", [tenantId, id])
                .map(JournaledOrder.init(row:))
        }
    }

    /// Implements `OrderJournalStore.journaledOrder(tenantId:connectionId:brokerOrderId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func journaledOrder(
        tenantId: String,
        connectionId: String,
        brokerOrderId: String
    ) async throws -> JournaledOrder? {
        try await read("journaledOrderByBrokerId") { db in
            try await db.row(
                """
                SELECT \(Self.journaledOrderColumns) FROM orders
                WHERE tenant_id = ? AND id = (
                    SELECT order_id FROM order_broker_ids
                    WHERE tenant_id = ? AND connection_id = ? AND broker_order_id = ?
                    ORDER BY retired_at IS NOT NULL, created_at DESC LIMIT 1)
                """,
                [tenantId, tenantId, connectionId, brokerOrderId]
            ).map(JournaledOrder.init(row:))
        }
    }

    /// Implements `OrderJournalStore.orderEvents(tenantId:orderId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func orderEvents(tenantId: String, orderId: String) async throws -> [OrderEvent] {
        try await read("orderEvents") { db in
            try await db.rows(
                """
                SELECT sequence, kind, state, status, broker_order_id, detail, at FROM order_events
                WHERE order_id = ? AND tenant_id = ? ORDER BY sequence
                """,
                [orderId, tenantId]
            ).map { try OrderEvent(row: $0, orderId: orderId) }
        }
    }

    /// Implements `OrderJournalStore.journaledOrders(tenantId:in:limit:)` on PostgreSQL: oldest `createdAt` first, then by id.
    public func journaledOrders(tenantId: String?, in states: [JournalState], limit: Int) async throws -> [JournaledOrder] {
        let operation = tenantId == nil ? "journaledOrders" : "journaledOrdersOfTenant"
        return try await orders(operation, Self.journaledOrderColumns, tenantId: tenantId, states, limit, JournaledOrder.init(row:))
    }

    /// Implements `OrderJournalStore.journaledOrderReferences(tenantId:in:limit:)` on PostgreSQL: only columns that always read.
    public func journaledOrderReferences(
        tenantId: String?,
        in states: [JournalState],
        limit: Int
    ) async throws -> [JournaledOrderReference] {
        let operation = tenantId == nil ? "journaledOrderReferences" : "journaledOrderReferencesOfTenant"
        return try await orders(operation, Self.referenceColumns, tenantId: tenantId, states, limit, JournaledOrderReference.init(row:))
    }

    private func orders<Item: Sendable>(
        _ operation: String,
        _ columns: String,
        tenantId: String?,
        _ states: [JournalState],
        _ limit: Int,
        _ decode: (PostgresRandomAccessRow) throws -> Item
    ) async throws -> [Item] {
        guard let listing = JournalListing(tenantId: tenantId, states, limit: limit) else { return [] }
        var arguments: [any SQLArgument] = listing.tenantId.map { [$0] } ?? []
        arguments += listing.states as [any SQLArgument]
        arguments.append(listing.limit)
        return try await read(operation) { db in
            try await db.rows(
                """
                SELECT \(columns) FROM orders
                WHERE \(listing.tenantCondition)state IN (\(PostgresSQL.placeholders(listing.states.count)))
                ORDER BY created_at, id LIMIT ?
                """,
                arguments
            ).map(decode)
        }
    }

    /// Implements `OrderJournalStore.claimedBrokerOrderIds(tenantId:connectionId:accountId:since:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func claimedBrokerOrderIds(
        tenantId: String,
        connectionId: String,
        accountId: String,
        since: Date
    ) async throws -> Set<String> {
        let since = StoreClock.millis(since, rounding: .down)
        return try await read("claimedBrokerOrderIds") { db in
            Set(
                try await db.rows(
                    """
                    SELECT broker_order_id FROM order_broker_ids
                    WHERE tenant_id = ? AND connection_id = ? AND created_at >= ?
                    UNION
                    SELECT broker_order_id FROM order_broker_ids
                    WHERE venue = (
                        SELECT \(Self.venueOfConnection("c", account: "?")) FROM connections c
                        WHERE c.tenant_id = ? AND c.id = ?)
                    AND created_at >= ?
                    """,
                    [tenantId, connectionId, since, accountId, tenantId, connectionId, since]
                ).map { try $0.string("broker_order_id") }
            )
        }
    }

    /// Implements `OrderJournalStore.reclaimReleasedOrder(tenantId:id:event:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func reclaimReleasedOrder(tenantId: String, id: String, event: OrderEvent) async throws -> JournaledOrder? {
        let event = try JournalEventRow(event)
        return try await write("reclaimReleasedOrder") { db in
            let changed = try await db.count(
                """
                UPDATE orders
                SET state = ?, error_code = NULL, error_message = NULL, sent_at = ?,
                    updated_at = GREATEST(updated_at + 1, ?)
                WHERE tenant_id = ? AND id = ? AND state = ?
                RETURNING id
                """,
                [
                    JournalState.submitting.rawValue, event.at, event.at, tenantId, id, JournalState.released.rawValue,
                ]
            )
            guard changed == 1 else { return nil }
            try await Self.append(
                db,
                event,
                orderId: id,
                tenantId: tenantId,
                sequence: try await Self.nextSequence(db, orderId: id)
            )
            return try await db.row(
                "SELECT \(Self.journaledOrderColumns) FROM orders WHERE tenant_id = ? AND id = ?",
                [tenantId, id]
            ).map(JournaledOrder.init(row:))
        }
    }

    // MARK: Helpers

    static let journaledOrderColumns = """
        id, tenant_id, connection_id, account_id, client_order_id, request, state, broker_order_id, "order", \
        error_code, error_message, created_at, updated_at, COALESCE(sent_at, created_at) AS sent_at, user_id, \
        CASE WHEN strpos(venue, chr(10)) > 1 THEN substr(venue, 1, strpos(venue, chr(10)) - 1) END AS venue_broker
        """

    static let journaledOrderInsertColumns = """
        id, tenant_id, connection_id, account_id, client_order_id, request, state, broker_order_id, "order", \
        error_code, error_message, created_at, updated_at, sent_at
        """

    static let referenceColumns = "id, tenant_id, connection_id, state, created_at, COALESCE(sent_at, created_at) AS sent_at"

    /// As `SQLiteStore.venueOfConnection`: broker, base URL (lower case, without a trailing slash) and account id,
    /// one per line. The account is cast to text so that a bound parameter has a type.
    static func venueOfConnection(_ table: String, account: String) -> String {
        "\(table).broker || chr(10) || rtrim(lower(\(table).base_url), '/') || chr(10) || (\(account))::text"
    }

    /// The next event sequence of an order whose row the transaction holds.
    static func nextSequence(_ db: PostgresSQL, orderId: String) async throws -> Int {
        let last = try await db.row("SELECT MAX(sequence) AS last FROM order_events WHERE order_id = ?", [orderId])?
            .optionalInt64("last")
        return Int(last ?? 0) + 1
    }

    /// Records that `brokerOrderId` is the order's; nothing when it already is. Another live binding of the id, on
    /// this connection or at the order's venue through any tenant's connection, refuses it, unless `supersedes`
    /// (the broker's placement answer for this order: the older binding is a reuse, and is retired).
    static func recordBrokerOrderId(
        _ db: PostgresSQL,
        _ brokerOrderId: String,
        orderId: String,
        tenantId: String,
        connectionId: String,
        supersedes: Bool = false
    ) async throws {
        // Held to the end of the transaction: every instance recording this broker order id goes one at a time.
        try await db.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('brokergateway.broker-order-id.' || ?, 0))",
            [brokerOrderId]
        )
        let owner = try await db.row(
            """
            SELECT order_id, created_at FROM order_broker_ids
            WHERE tenant_id = ? AND connection_id = ? AND broker_order_id = ? AND retired_at IS NULL
            """,
            [tenantId, connectionId, brokerOrderId]
        )
        let now = StoreClock.nowMillis()
        // Only a binding recorded before this order was sent can be a reuse: the broker's answer to this send cannot
        // have been recorded before it.
        let sentAt =
            try await db.row("SELECT COALESCE(sent_at, created_at) AS sent_at FROM orders WHERE id = ?", [orderId])?
            .int64("sent_at") ?? now
        let boundAt = try owner?.int64("created_at")
        let reused = supersedes && boundAt.map { $0 < sentAt } == true
        switch try owner?.string("order_id") {
        case orderId?:
            return
        case let other?:
            guard reused else {
                throw GatewayError(
                    .conflict,
                    "broker order \(brokerOrderId) already belongs to order \(other) on connection \(connectionId)"
                )
            }
            try await db.execute(
                """
                UPDATE order_broker_ids SET retired_at = ?
                WHERE tenant_id = ? AND connection_id = ? AND broker_order_id = ? AND retired_at IS NULL
                """,
                [now, tenantId, connectionId, brokerOrderId]
            )
        case nil:
            break
        }
        let venue = try await db.row("SELECT venue FROM orders WHERE id = ?", [orderId])?.optionalString("venue")
        if let venue,
            try await db.row(
                "SELECT 1 FROM order_broker_ids WHERE venue = ? AND broker_order_id = ? AND order_id != ? AND retired_at IS NULL",
                [venue, brokerOrderId, orderId]
            ) != nil
        {
            let recent =
                try await db.row(
                    "SELECT 1 FROM order_broker_ids WHERE venue = ? AND broker_order_id = ? AND order_id != ? AND retired_at IS NULL AND created_at >= ?",
                    [venue, brokerOrderId, orderId, sentAt]
                ) != nil
            guard supersedes, !recent else {
                throw GatewayError(
                    .conflict,
                    "broker order \(brokerOrderId) already belongs to another order placed at this broker account"
                )
            }
            try await db.execute(
                "UPDATE order_broker_ids SET retired_at = ? WHERE venue = ? AND broker_order_id = ? AND order_id != ? AND retired_at IS NULL",
                [now, venue, brokerOrderId, orderId]
            )
        }
        try await db.execute(
            """
            INSERT INTO order_broker_ids (order_id, tenant_id, connection_id, broker_order_id, created_at, venue)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """,
            [orderId, tenantId, connectionId, brokerOrderId, now, venue]
        )
    }

    static func append(
        _ db: PostgresSQL,
        _ event: JournalEventRow,
        orderId: String,
        tenantId: String,
        sequence: Int
    ) async throws {
        // Held to the end of the transaction: events take their feed id (`feed_id`, the stream's cursor) one
        // transaction at a time, so they commit in feed order and a reader past id n never finds n - 1 later.
        try await db.execute("SELECT pg_advisory_xact_lock(hashtextextended('brokergateway.order-feed', 0))", [])
        try await db.execute(
            """
            INSERT INTO order_events (order_id, tenant_id, sequence, kind, state, status, broker_order_id, detail, at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                orderId, tenantId, sequence, event.kind, event.state, event.status, event.brokerOrderId, event.detail,
                event.at,
            ]
        )
    }
}
