public import Foundation
import GRDB
import GatewayCore
import GatewayModel
public import GatewayStore

/// The order journal in the store's SQLite file (tables from migration `v2-order-journal`).
///
/// Every write below is one GRDB write transaction, which GRDB begins `IMMEDIATE`: the write lock is held from the
/// first read, so a look-up followed by an insert is a single step for every other writer, in this process
/// (GRDB serializes them) or another one (SQLite's lock, waited for up to the busy timeout).
///
/// Timestamps are stored to the millisecond, so a date read back is the caller's date rounded to the nearest
/// millisecond. Nothing here deletes a journal row; triggers refuse deletes and history rewrites.
extension SQLiteStore: OrderJournalStore {

    // MARK: Idempotency keys

    /// Claims `key` for the tenant, or reports who holds it. A key is live until `retention` after its claim
    /// (the caller decides the retention and passes 24 h or more, the promise made to API clients); once expired, the
    /// next claim takes it over, whatever its request.
    ///
    /// `.existing` can name an order whose intent is not journaled yet: the claimer writes the intent right after
    /// claiming, and may still be doing so (or may have stopped in between).
    ///
    /// - Throws: `GatewayError(.notFound)` for an unknown tenant; `.internalError` for a retention that is not
    ///   positive or longer than 10 years (a programming error).
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
            // Taken under the write lock, so the claims of one key see increasing times.
            let now = StoreClock.nowMillis()
            if let held = try Row.fetchOne(
                db,
                sql: "SELECT request_hash, order_id, expires_at FROM idempotency_keys WHERE tenant_id = ? AND key = ?",
                arguments: [tenantId, key]
            ) {
                if try held.decode(Int64.self, forColumn: "expires_at") >= now {
                    let orderId = try held.decode(String.self, forColumn: "order_id")
                    let sameRequest = try held.decode(String.self, forColumn: "request_hash") == requestHash
                    return sameRequest ? .existing(orderId: orderId) : .mismatch(orderId: orderId)
                }
            } else {
                try Self.requireTenant(db, tenantId)
            }
            try db.execute(
                sql: """
                    INSERT INTO idempotency_keys (tenant_id, key, request_hash, order_id, created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (tenant_id, key) DO UPDATE SET
                        request_hash = excluded.request_hash, order_id = excluded.order_id,
                        created_at = excluded.created_at, expires_at = excluded.expires_at
                    """,
                arguments: [tenantId, key, requestHash, proposedOrderId, now, now + retentionMillis]
            )
            return .claimed(orderId: proposedOrderId)
        }
    }

    /// Implements `OrderJournalStore.heldIdempotencyKey(tenantId:key:requestHash:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func heldIdempotencyKey(tenantId: String, key: String, requestHash: String) async throws -> IdempotencyClaim? {
        try await read("heldIdempotencyKey") { db in
            guard
                let held = try Row.fetchOne(
                    db,
                    sql: "SELECT request_hash, order_id FROM idempotency_keys WHERE tenant_id = ? AND key = ? AND expires_at >= ?",
                    arguments: [tenantId, key, StoreClock.nowMillis()]
                )
            else { return nil }
            let orderId = try held.decode(String.self, forColumn: "order_id")
            return try held.decode(String.self, forColumn: "request_hash") == requestHash
                ? .existing(orderId: orderId) : .mismatch(orderId: orderId)
        }
    }

    // MARK: Writing the journal

    /// Journals a new order with `event` as its first event (sequence 1, whatever `event.sequence` says) and, when
    /// the order already has one, its broker order id. The order's `createdAt` and `updatedAt` are stored as given.
    ///
    /// - Throws: `GatewayError(.conflict)` when the order id is taken, when the connection already has an order with
    ///   this client order id, or when the broker order id belongs to another order; `.notFound` for an unknown
    ///   tenant.
    public func createOrderIntent(_ order: JournaledOrder, event: OrderEvent) async throws {
        let row = try JournalRow(order)
        let event = try JournalEventRow(event)
        try await write("createOrderIntent", conflict: "order \(order.id) is already journaled") { db in
            try Self.requireTenant(db, row.tenantId)
            // Checked first for a clear message; the primary key and the unique index are the backstop.
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM orders WHERE id = ?", arguments: [row.id]) != nil {
                throw GatewayError(.conflict, "order \(row.id) is already journaled")
            }
            if let holder = try String.fetchOne(
                db,
                sql: "SELECT id FROM orders WHERE tenant_id = ? AND connection_id = ? AND client_order_id = ?",
                arguments: [row.tenantId, row.connectionId, row.clientOrderId]
            ) {
                throw GatewayError(
                    .conflict,
                    "client order id '\(row.clientOrderId)' is already used by order \(holder) on connection "
                        + row.connectionId
                )
            }
            // The venue comes from the connection as it is now (NULL if it is gone): where this order is sent.
            try db.execute(
                sql: """
                    INSERT INTO orders (\(Self.journaledOrderInsertColumns), venue, user_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                        (SELECT \(Self.venueOfConnection("c", account: "?")) FROM connections c
                         WHERE c.tenant_id = ? AND c.id = ?),
                        (SELECT c.user_id FROM connections c WHERE c.tenant_id = ? AND c.id = ?))
                    """,
                arguments: [
                    row.id, row.tenantId, row.connectionId, row.accountId, row.clientOrderId, row.request, row.state,
                    row.brokerOrderId, row.order, row.errorCode, row.errorMessage, row.createdAt,
                    max(row.updatedAt, row.createdAt), max(row.sentAt, row.createdAt), row.accountId, row.tenantId,
                    row.connectionId, row.tenantId, row.connectionId,
                ]
            )
            if let brokerOrderId = row.brokerOrderId {
                try Self.recordBrokerOrderId(
                    db,
                    brokerOrderId,
                    orderId: row.id,
                    tenantId: row.tenantId,
                    connectionId: row.connectionId
                )
            }
            try Self.append(db, event, orderId: row.id, tenantId: row.tenantId, sequence: 1)
        }
    }

    /// Stores the order's new state, broker order id, broker view and error, and appends `event` with the next
    /// sequence. The order's identity (tenant, connection, account, client order id, request, `createdAt`) never
    /// changes; `updatedAt` is the order's, moved strictly past the stored one when it is not later.
    /// A broker order id the order has not had before is recorded, so it keeps finding the order after a replace.
    ///
    /// - Throws: `GatewayError(.notFound)` when the tenant has no such order; `.conflict` when the broker order id
    ///   already belongs to another order (one broker order never belongs to two intents). Nothing is written then.
    public func updateJournaledOrder(_ order: JournaledOrder, event: OrderEvent) async throws {
        // A placement's own answer is the broker's word that this intent holds the id now: an older binding of the
        // same id is a reuse by a broker that started over, and is retired rather than refusing the new order.
        let supersedes = event.kind == .accepted
        let row = try JournalRow(order)
        let event = try JournalEventRow(event)
        try await write("updateJournaledOrder") { db in
            guard
                let stored = try Row.fetchOne(
                    db,
                    sql: "SELECT connection_id, updated_at FROM orders WHERE tenant_id = ? AND id = ?",
                    arguments: [row.tenantId, row.id]
                )
            else { throw StoreRules.journaledOrderNotFound(row.id) }
            let connectionId = try stored.decode(String.self, forColumn: "connection_id")
            let updatedAt = max(row.updatedAt, try stored.decode(Int64.self, forColumn: "updated_at") + 1)
            if let brokerOrderId = row.brokerOrderId {
                try Self.recordBrokerOrderId(
                    db,
                    brokerOrderId,
                    orderId: row.id,
                    tenantId: row.tenantId,
                    connectionId: connectionId,
                    supersedes: supersedes
                )
            }
            try db.execute(
                sql: """
                    UPDATE orders
                    SET state = ?, broker_order_id = ?, "order" = ?, broker_status = ?, error_code = ?,
                        error_message = ?, updated_at = ?
                    WHERE tenant_id = ? AND id = ?
                    """,
                arguments: [
                    row.state, row.brokerOrderId, row.order, order.order?.status.rawValue, row.errorCode,
                    row.errorMessage, updatedAt, row.tenantId, row.id,
                ]
            )
            let last = try Int.fetchOne(
                db,
                sql: "SELECT MAX(sequence) FROM order_events WHERE order_id = ?",
                arguments: [row.id]
            )
            try Self.append(db, event, orderId: row.id, tenantId: row.tenantId, sequence: (last ?? 0) + 1)
        }
    }

    // MARK: Reading the journal

    /// Implements `OrderJournalStore.journaledOrder(tenantId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func journaledOrder(tenantId: String, id: String) async throws -> JournaledOrder? {
        try await read("journaledOrder") { db in
            try Row.fetchOne(
                db,
                sql: "SELECT \(Self.journaledOrderColumns) FROM orders WHERE tenant_id = ? AND id = ?",
                arguments: [tenantId, id]
            ).map(JournaledOrder.init(row:))
        }
    }

    /// Finds the order by any broker order id it has had, the current one or an earlier one of a replace chain.
    public func journaledOrder(
        tenantId: String,
        connectionId: String,
        brokerOrderId: String
    ) async throws -> JournaledOrder? {
        try await read("journaledOrderByBrokerId") { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT \(Self.journaledOrderColumns) FROM orders
                    WHERE tenant_id = ? AND id = (
                        SELECT order_id FROM order_broker_ids
                        WHERE tenant_id = ? AND connection_id = ? AND broker_order_id = ?
                        ORDER BY retired_at IS NOT NULL, created_at DESC LIMIT 1)
                    """,
                arguments: [tenantId, tenantId, connectionId, brokerOrderId]
            ).map(JournaledOrder.init(row:))
        }
    }

    /// The order's events by sequence; empty when the tenant has no such order.
    public func orderEvents(tenantId: String, orderId: String) async throws -> [OrderEvent] {
        try await read("orderEvents") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT sequence, kind, state, status, broker_order_id, detail, at FROM order_events
                    WHERE order_id = ? AND tenant_id = ? ORDER BY sequence
                    """,
                arguments: [orderId, tenantId]
            ).map { try OrderEvent(row: $0, orderId: orderId) }
        }
    }

    /// Implements `OrderJournalStore.journaledOrders(tenantId:in:limit:)` on SQLite: oldest `createdAt` first, then by id.
    public func journaledOrders(tenantId: String?, in states: [JournalState], limit: Int) async throws -> [JournaledOrder] {
        let operation = tenantId == nil ? "journaledOrders" : "journaledOrdersOfTenant"
        return try await orders(operation, Self.journaledOrderColumns, tenantId: tenantId, states, limit, JournaledOrder.init(row:))
    }

    /// Implements `OrderJournalStore.journaledOrderReferences(tenantId:in:limit:)` on SQLite: only columns that always read.
    public func journaledOrderReferences(
        tenantId: String?,
        in states: [JournalState],
        limit: Int
    ) async throws -> [JournaledOrderReference] {
        let operation = tenantId == nil ? "journaledOrderReferences" : "journaledOrderReferencesOfTenant"
        return try await orders(operation, Self.referenceColumns, tenantId: tenantId, states, limit, JournaledOrderReference.init(row:))
    }

    /// The orders in `states` (of one tenant, or of all), oldest `createdAt` first, then by id, read as `columns`.
    private func orders<Item: Sendable>(
        _ operation: String,
        _ columns: String,
        tenantId: String?,
        _ states: [JournalState],
        _ limit: Int,
        _ decode: @escaping @Sendable (Row) throws -> Item
    ) async throws -> [Item] {
        guard let listing = JournalListing(tenantId: tenantId, states, limit: limit) else { return [] }
        return try await read(operation) { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(columns) FROM orders
                    WHERE \(listing.tenantCondition)state IN (\(databaseQuestionMarks(count: listing.states.count)))
                    ORDER BY created_at, id LIMIT ?
                    """,
                arguments: StatementArguments(listing.tenantId.map { [$0] } ?? []) + StatementArguments(listing.states)
                    + [listing.limit]
            ).map(decode)
        }
    }

    /// Every broker order id recorded at or after `since` (the time the id was recorded, so an old order that got
    /// its id late is included), replaced ones included: for the connection's own orders, and for every order of any
    /// tenant sent to the same venue (broker, base URL, account) as an order for `accountId` through this connection.
    public func claimedBrokerOrderIds(
        tenantId: String,
        connectionId: String,
        accountId: String,
        since: Date
    ) async throws -> Set<String> {
        // Rounded down: a bound that is never narrower than asked.
        let since = StoreClock.millis(since, rounding: .down)
        return try await read("claimedBrokerOrderIds") { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT broker_order_id FROM order_broker_ids
                        WHERE tenant_id = ? AND connection_id = ? AND created_at >= ?
                        UNION
                        SELECT broker_order_id FROM order_broker_ids
                        WHERE venue = (
                            SELECT \(Self.venueOfConnection("c", account: "?")) FROM connections c
                            WHERE c.tenant_id = ? AND c.id = ?)
                        AND created_at >= ?
                        """,
                    arguments: [tenantId, connectionId, since, accountId, tenantId, connectionId, since]
                )
            )
        }
    }

    /// The compare-and-set of a released order: `UPDATE … WHERE state = 'released'` changes the row for exactly one
    /// caller, under the write lock, whatever the number of processes.
    public func reclaimReleasedOrder(tenantId: String, id: String, event: OrderEvent) async throws -> JournaledOrder? {
        let event = try JournalEventRow(event)
        return try await write("reclaimReleasedOrder") { db in
            try db.execute(
                sql: """
                    UPDATE orders
                    SET state = ?, error_code = NULL, error_message = NULL, sent_at = ?, updated_at = MAX(updated_at + 1, ?)
                    WHERE tenant_id = ? AND id = ? AND state = ?
                    """,
                arguments: [
                    JournalState.submitting.rawValue, event.at, event.at, tenantId, id, JournalState.released.rawValue,
                ]
            )
            guard db.changesCount == 1 else { return nil }
            let last = try Int.fetchOne(
                db,
                sql: "SELECT MAX(sequence) FROM order_events WHERE order_id = ?",
                arguments: [id]
            )
            try Self.append(db, event, orderId: id, tenantId: tenantId, sequence: (last ?? 0) + 1)
            return try Row.fetchOne(
                db,
                sql: "SELECT \(Self.journaledOrderColumns) FROM orders WHERE tenant_id = ? AND id = ?",
                arguments: [tenantId, id]
            ).map(JournaledOrder.init(row:))
        }
    }

    // MARK: Helpers

    /// The columns a `JournaledOrder` is read from (`sent_at` is NULL in rows from before it existed).
    static let journaledOrderColumns = """
        id, tenant_id, connection_id, account_id, client_order_id, request, state, broker_order_id, "order", \
        error_code, error_message, created_at, updated_at, COALESCE(sent_at, created_at) AS sent_at, user_id, \
        CASE WHEN instr(venue, char(10)) > 1 THEN substr(venue, 1, instr(venue, char(10)) - 1) END AS venue_broker
        """

    static let journaledOrderInsertColumns = """
        id, tenant_id, connection_id, account_id, client_order_id, request, state, broker_order_id, "order", \
        error_code, error_message, created_at, updated_at, sent_at
        """

    static let referenceColumns = "id, tenant_id, connection_id, state, created_at, COALESCE(sent_at, created_at) AS sent_at"

    /// Records that `brokerOrderId` is the order's; nothing when it already is. Another live binding of the id, on
    /// this connection or at the order's venue through any tenant's connection, refuses it, unless `supersedes`
    /// (the broker's placement answer for this order: the older binding is a reuse by a broker that started over, and
    /// is retired; the older order keeps its history and its last view).
    static func recordBrokerOrderId(
        _ db: Database,
        _ brokerOrderId: String,
        orderId: String,
        tenantId: String,
        connectionId: String,
        supersedes: Bool = false
    ) throws {
        let owner = try Row.fetchOne(
            db,
            sql: """
                SELECT order_id, created_at FROM order_broker_ids
                WHERE tenant_id = ? AND connection_id = ? AND broker_order_id = ? AND retired_at IS NULL
                """,
            arguments: [tenantId, connectionId, brokerOrderId]
        )
        let now = StoreClock.nowMillis()
        // Only a binding recorded before this order was sent can be a reuse: the broker's answer to this send cannot
        // have been recorded before it.
        let sentAt =
            try Int64.fetchOne(
                db,
                sql: "SELECT COALESCE(sent_at, created_at) FROM orders WHERE id = ?",
                arguments: [orderId]
            ) ?? now
        let boundAt = try owner?.decode(Int64.self, forColumn: "created_at")
        let reused = supersedes && boundAt.map { $0 < sentAt } == true
        switch try owner?.decode(String.self, forColumn: "order_id") {
        case orderId?:
            return
        case let other?:
            guard reused else {
                throw GatewayError(
                    .conflict,
                    "broker order \(brokerOrderId) already belongs to order \(other) on connection \(connectionId)"
                )
            }
            try db.execute(
                sql: """
                    UPDATE order_broker_ids SET retired_at = ?
                    WHERE tenant_id = ? AND connection_id = ? AND broker_order_id = ? AND retired_at IS NULL
                    """,
                arguments: [now, tenantId, connectionId, brokerOrderId]
            )
        case nil:
            break
        }
        let venue = try String.fetchOne(db, sql: "SELECT venue FROM orders WHERE id = ?", arguments: [orderId])
        if let venue,
            try Bool.fetchOne(
                db,
                sql: "SELECT 1 FROM order_broker_ids WHERE venue = ? AND broker_order_id = ? AND order_id != ? AND retired_at IS NULL",
                arguments: [venue, brokerOrderId, orderId]
            ) != nil
        {
            // Held through another connection, perhaps another tenant's: its order id is not this tenant's to see.
            let recent =
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT 1 FROM order_broker_ids
                        WHERE venue = ? AND broker_order_id = ? AND order_id != ? AND retired_at IS NULL AND created_at >= ?
                        """,
                    arguments: [venue, brokerOrderId, orderId, sentAt]
                ) != nil
            guard supersedes, !recent else {
                throw GatewayError(
                    .conflict,
                    "broker order \(brokerOrderId) already belongs to another order placed at this broker account"
                )
            }
            try db.execute(
                sql: """
                    UPDATE order_broker_ids SET retired_at = ?
                    WHERE venue = ? AND broker_order_id = ? AND order_id != ? AND retired_at IS NULL
                    """,
                arguments: [now, venue, brokerOrderId, orderId]
            )
        }
        try db.execute(
            sql: """
                INSERT INTO order_broker_ids (order_id, tenant_id, connection_id, broker_order_id, created_at, venue)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """,
            arguments: [orderId, tenantId, connectionId, brokerOrderId, now, venue]
        )
    }

    static func append(_ db: Database, _ event: JournalEventRow, orderId: String, tenantId: String, sequence: Int) throws {
        try db.execute(
            sql: """
                INSERT INTO order_events (order_id, tenant_id, sequence, kind, state, status, broker_order_id, detail, at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                orderId, tenantId, sequence, event.kind, event.state, event.status, event.brokerOrderId, event.detail,
                event.at,
            ]
        )
    }

}
