public import Foundation
public import GatewayCore
public import GatewayModel

/// Where an order stands in the gateway's own bookkeeping, which is wider than the broker's order status:
/// it also knows about intents not yet sent and outcomes not yet known.
public enum JournalState: String, WireEnum {
    /// The intent is written; the broker has not answered yet (or the gateway stopped while it was asking).
    case submitting
    /// The broker has the order (`brokerOrderId` is set); its status is in `order.status`.
    case accepted
    /// The broker refused the order, or reconciliation proved it never arrived. Final.
    case rejected
    /// The broker may or may not have the order (timeout, dropped connection, 5xx): reconciliation will tell.
    case unknown
    /// Nothing reached the broker, or the broker refused before acting on it (rate limited, authentication refused):
    /// the order is not at the broker, and its idempotency key is released. The same key with the same request sends
    /// it again, under this journal entry and its client order id (``OrderJournalStore/reclaimReleasedOrder(tenantId:id:event:)``).
    case released
}

/// One order as the journal knows it: the intent, the broker's ids, and its latest known state.
public struct JournaledOrder: Codable, Sendable, Hashable {
    /// The gateway order id (`ord_…`): stable for the order's whole life, across broker-side replaces.
    public var id: String
    /// The tenant whose order it is.
    public var tenantId: String
    /// The connection it was placed through.
    public var connectionId: String
    /// The broker account it was placed in.
    public var accountId: String
    /// The id sent to the broker with the order, so a lost answer can be found again (unique per connection).
    public var clientOrderId: String
    /// The canonical request, as validated (with `clientOrderId` set).
    public var request: OrderRequest
    /// Where the order stands in the journal (intent, accepted, unknown, rejected, released).
    public var state: JournalState
    /// The broker's current id for the order, once it has one (changes when the broker replaces the order).
    public var brokerOrderId: String?
    /// The latest known order, once the broker has it.
    public var order: Order?
    /// Why the order was rejected, or what is unknown.
    public var error: GatewayError.Code?
    /// The error's message, as answered to the client.
    public var errorMessage: String?
    /// When the intent was journaled.
    public var createdAt: Date
    /// When the entry last changed.
    public var updatedAt: Date
    /// When the intent was last sent to the broker: `createdAt`, or later when a released intent was sent again.
    /// Reconciliation looks for the order from then on.
    public var sentAt: Date
    /// The user whose connection placed it, as the journal records it from the connection when the intent is
    /// written (never from the caller). Kept when the user is deleted: then only a tenant admin reads the order.
    public var userId: String?
    /// The broker of the connection that placed it, as the journal recorded it then (it outlives the connection).
    public var broker: BrokerKind?

    /// Builds a journal entry; the order service builds the intent, the store reads the rest from rows.
    public init(
        id: String,
        tenantId: String,
        connectionId: String,
        accountId: String,
        clientOrderId: String,
        request: OrderRequest,
        state: JournalState,
        brokerOrderId: String? = nil,
        order: Order? = nil,
        error: GatewayError.Code? = nil,
        errorMessage: String? = nil,
        createdAt: Date,
        updatedAt: Date,
        sentAt: Date? = nil,
        userId: String? = nil,
        broker: BrokerKind? = nil
    ) {
        self.id = id
        self.tenantId = tenantId
        self.connectionId = connectionId
        self.accountId = accountId
        self.clientOrderId = clientOrderId
        self.request = request
        self.state = state
        self.brokerOrderId = brokerOrderId
        self.order = order
        self.error = error
        self.errorMessage = errorMessage
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.sentAt = sentAt ?? createdAt
        self.userId = userId
        self.broker = broker
    }
}

/// Where a journaled order stands, without its request or broker view: what a scan of the journal reads, so that one
/// row whose JSON cannot be read never hides the others (the reconciler then reads each order on its own).
public struct JournaledOrderReference: Sendable, Hashable {
    /// The gateway order id (`ord_…`).
    public var id: String
    /// The tenant whose order it is.
    public var tenantId: String
    /// The connection it was placed through: what the reconciler asks.
    public var connectionId: String
    /// Where the order stands in the journal.
    public var state: JournalState
    /// When the intent was journaled.
    public var createdAt: Date
    /// When it was last sent: reconciliation looks for the order from then on.
    public var sentAt: Date
    /// The user whose connection placed it, as the journal records it from the connection when the intent is
    /// written (never from the caller). Kept when the user is deleted: then only a tenant admin reads the order.
    public var userId: String?

    /// Builds a reference; the store reads it from the columns that always decode.
    public init(id: String, tenantId: String, connectionId: String, state: JournalState, createdAt: Date, sentAt: Date) {
        self.id = id
        self.tenantId = tenantId
        self.connectionId = connectionId
        self.state = state
        self.createdAt = createdAt
        self.sentAt = sentAt
    }
}

/// One line of an order's history. Events are only ever appended.
public struct OrderEvent: Codable, Sendable, Hashable {
    /// What happened to the order.
    public enum Kind: String, WireEnum {
        /// Journaled before the broker is called: the gateway's promise that it will find out what happened.
        case intent
        case accepted
        /// The broker's answer was lost; reconciliation will find out.
        case unknown
        case rejected
        /// An unknown outcome was resolved at the broker.
        case reconciled
        /// Reconciliation proved that the broker never received the order.
        case notFoundAtBroker = "not_found_at_broker"
        /// Nothing reached the broker, or it refused before acting: the idempotency key is released.
        case released
        case statusChanged = "status_changed"
        case modified
        case modifyFailed = "modify_failed"
        case canceled
        /// A cancel came too late: the order had ended meanwhile.
        case cancelRefused = "cancel_refused"
    }

    /// What happened.
    public var kind: Kind
    /// The journal state after the event.
    public var state: JournalState
    /// The broker order status after the event, where known.
    public var status: OrderStatus?
    /// The broker's order id after the event, where it has one.
    public var brokerOrderId: String?
    /// Human-readable detail (never a secret).
    public var detail: String?
    /// When it happened.
    public var at: Date
    /// Position in the order's history, from 1.
    public var sequence: Int

    /// An event to append; the store assigns its `sequence`.
    public init(
        kind: Kind,
        state: JournalState,
        status: OrderStatus? = nil,
        brokerOrderId: String? = nil,
        detail: String? = nil,
        at: Date,
        sequence: Int = 0
    ) {
        self.kind = kind
        self.state = state
        self.status = status
        self.brokerOrderId = brokerOrderId
        self.detail = detail
        self.at = at
        self.sequence = sequence
    }
}

/// What claiming an idempotency key found.
public enum IdempotencyClaim: Sendable, Hashable {
    /// The key was new: the caller owns it and must journal `orderId`.
    case claimed(orderId: String)
    /// The key was used before with the same request: answer with that order.
    case existing(orderId: String)
    /// The key was used before with a different request.
    case mismatch(orderId: String)
}

/// The order journal and idempotency keys: how orders are never lost and never doubled.
/// Scoped by tenant like everything else; nothing here is deleted by normal operation (idempotency keys expire
/// after their retention, never journal rows).
public protocol OrderJournalStore: Sendable {
    /// Atomically claims `key` for `requestHash` (a digest of the canonical request), proposing `orderId`.
    /// Keys are kept at least `retention` (24 h or more); an expired key can be claimed again.
    func claimIdempotencyKey(
        tenantId: String,
        key: String,
        requestHash: String,
        proposedOrderId: String,
        retention: TimeInterval
    ) async throws -> IdempotencyClaim

    /// What a live `key` holds, without claiming it: `.existing` for the same request, `.mismatch` for another,
    /// `nil` when the key is free or expired. A repeat answered from here costs the broker nothing.
    func heldIdempotencyKey(tenantId: String, key: String, requestHash: String) async throws -> IdempotencyClaim?

    /// Writes a new order intent (state `submitting`) and its first event, in one transaction.
    func createOrderIntent(_ order: JournaledOrder, event: OrderEvent) async throws

    /// Replaces the order's current state and appends `event` (its sequence is assigned), in one transaction.
    func updateJournaledOrder(_ order: JournaledOrder, event: OrderEvent) async throws

    func journaledOrder(tenantId: String, id: String) async throws -> JournaledOrder?
    /// The order journaled for a broker order id (current or any earlier one in a replace chain).
    func journaledOrder(tenantId: String, connectionId: String, brokerOrderId: String) async throws -> JournaledOrder?
    /// Every event of an order, oldest first.
    func orderEvents(tenantId: String, orderId: String) async throws -> [OrderEvent]
    /// Orders in the given states, oldest first, at most `limit`: one tenant's, or every tenant's when `tenantId` is
    /// `nil`. Throws when any of them cannot be read; scans that must go on past such a row use
    /// ``journaledOrderReferences(tenantId:in:limit:)``. The spellings without `tenantId` and with a non-optional one
    /// are in an extension below.
    func journaledOrders(tenantId: String?, in states: [JournalState], limit: Int) async throws -> [JournaledOrder]
    /// The orders in the given states (one tenant's, or every tenant's for the reconciler when `tenantId` is `nil`),
    /// oldest first, at most `limit`, without their JSON: a row whose request cannot be read is listed like any other,
    /// and fails only when it is read. One tenant's answer `GET /v1/status` (what awaits reconciliation).
    func journaledOrderReferences(
        tenantId: String?,
        in states: [JournalState],
        limit: Int
    ) async throws
        -> [JournaledOrderReference]
    /// Broker order ids already claimed since `since` by journaled orders at the broker account of `accountId`
    /// through the connection, whatever tenant or connection placed them (two tenants may link one account), and by
    /// the connection's own orders: reconciliation by matching never gives one broker order to two intents.
    func claimedBrokerOrderIds(
        tenantId: String,
        connectionId: String,
        accountId: String,
        since: Date
    ) async throws
        -> Set<String>
    /// Takes a released order back to send it again: only while it is still `released` does it become `submitting`,
    /// sent at `event.at`, with `event` appended, in one transaction. Returns the order as stored then, or `nil` when
    /// it was not released (another request took it first, or the tenant has no such order). This is the
    /// compare-and-set that lets exactly one of several concurrent requests with a released key send the order.
    func reclaimReleasedOrder(tenantId: String, id: String, event: OrderEvent) async throws -> JournaledOrder?

    // MARK: The order feed (the stream's order updates)

    /// Journal events after `cursor` across all tenants, in the order they were committed, at most `limit`: what the
    /// stream tails. A cursor is never reused and a later commit never gets a lower one.
    func orderFeed(after cursor: Int64, limit: Int) async throws -> [OrderFeedEvent]
    /// One user's journal events after `cursor`, in commit order, at most `limit`: what a reconnecting stream replays.
    func orderFeed(tenantId: String, userId: String, after cursor: Int64, limit: Int) async throws -> [OrderFeedEvent]
    /// The cursor of the newest journal event (0 when there is none): where a new tail starts.
    func orderFeedEnd() async throws -> Int64
    /// Orders the broker has whose last known status is not final (open, partially filled, pending…), across all
    /// tenants, least recently updated first, at most `limit`: what the order watcher brings up to date.
    func openOrderReferences(limit: Int) async throws -> [JournaledOrderReference]
}

/// One journal event in the store-wide order feed, with the order it belongs to.
public struct OrderFeedEvent: Sendable, Hashable {
    /// Its place in the feed: increasing in commit order, never reused.
    public var cursor: Int64
    /// The tenant whose order it is: a subscriber only sees its own tenant's events.
    public var tenantId: String
    /// The user whose connection placed the order (`nil` for an order journaled before users existed).
    public var userId: String?
    /// The gateway order id the event belongs to.
    public var orderId: String
    /// The connection the order was placed through.
    public var connectionId: String
    /// The connection's broker as the journal recorded it.
    public var broker: BrokerKind?
    /// The event itself.
    public var event: OrderEvent
    /// The order as the journal holds it now (not as of the event), when the broker has it and it reads.
    public var order: Order?

    /// Builds a feed entry; the store reads it from a join of the event and its order.
    public init(
        cursor: Int64,
        tenantId: String,
        userId: String?,
        orderId: String,
        connectionId: String,
        broker: BrokerKind?,
        event: OrderEvent,
        order: Order?
    ) {
        self.cursor = cursor
        self.tenantId = tenantId
        self.userId = userId
        self.orderId = orderId
        self.connectionId = connectionId
        self.broker = broker
        self.event = event
        self.order = order
    }
}

extension OrderJournalStore {
    /// Orders in the given states across all tenants, oldest first, at most `limit` (the reconciler's scans).
    public func journaledOrders(in states: [JournalState], limit: Int) async throws -> [JournaledOrder] {
        try await journaledOrders(tenantId: nil, in: states, limit: limit)
    }

    /// One tenant's orders in the given states, oldest first, at most `limit`.
    public func journaledOrders(tenantId: String, in states: [JournalState], limit: Int) async throws -> [JournaledOrder] {
        try await journaledOrders(tenantId: Optional(tenantId), in: states, limit: limit)
    }

    /// The orders in the given states across all tenants, as references (for the reconciler).
    public func journaledOrderReferences(in states: [JournalState], limit: Int) async throws -> [JournaledOrderReference] {
        try await journaledOrderReferences(tenantId: nil, in: states, limit: limit)
    }

    /// One tenant's orders in the given states, as references (`GET /v1/status`: what awaits reconciliation).
    public func journaledOrderReferences(
        tenantId: String,
        in states: [JournalState],
        limit: Int
    ) async throws -> [JournaledOrderReference] {
        try await journaledOrderReferences(tenantId: Optional(tenantId), in: states, limit: limit)
    }
}
