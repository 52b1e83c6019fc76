public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging
import Synchronization

/// How a connection or a broker is doing, as the ops dashboard colours it.
///
/// The rule (one place, `HealthState.of(_:at:link:)` and `HealthState.ofBroker(_:)`), over the pipeline's measurement
/// and the broker's verdict on the link:
/// - a connection is `failing` when the broker refused its login (`relink_required`: nothing works until the user
///   links again), when its breaker is open, or when every one of its calls in the last
///   ``Gateway/recentWindow`` failed (at least ``Gateway/recentMinimumCalls`` of them);
/// - `degraded` when it waits for the user (`challenge_required`, `pending_link`), when its breaker is half open
///   (probing after a failure), or when at least
///   ``Gateway/degradedErrorRate`` of its recent calls failed;
/// - `healthy` otherwise, including a connection with no recent calls (nothing says it is not).
/// A broker is `failing` when every one of the tenant's connections to it is failing, `degraded` when any is
/// degraded or failing, `healthy` otherwise. "Recent" is the last 30 s, not the pipeline's five-minute window, so a
/// broker that recovered shows healthy again within about half a minute, while the five-minute numbers (error rate,
/// p50, p99) keep the history.
public enum HealthState: String, WireEnum {
    case healthy
    case degraded
    case failing

    /// - Parameter sliceLength: the length of the health record's slices (`PipelineSettings.healthSlice`).
    public static func of(
        _ health: ConnectionHealth,
        at now: Date,
        sliceLength: TimeInterval = 10,
        link: ConnectionStatus = .active
    ) -> HealthState {
        if link == .relinkRequired { return .failing }
        switch health.breaker {
        case .open: return .failing
        case .halfOpen: return .degraded
        case .closed: break
        }
        // Slices that end within the recent window (the current one included).
        let recent = health.slices.filter { $0.start.addingTimeInterval(sliceLength) > now.addingTimeInterval(-StatusService.recentWindow) }
        let calls = recent.reduce(0) { $0 + $1.calls }
        let errors = recent.reduce(0) { $0 + $1.errors }
        if calls >= StatusService.recentMinimumCalls, errors == calls { return .failing }
        if calls > 0, errors > 0, Double(errors) / Double(calls) >= StatusService.degradedErrorRate { return .degraded }
        return link == .active ? .healthy : .degraded
    }

    /// A broker's state from its connections' states: failing when all fail, degraded when any is not healthy.
    public static func ofBroker(_ connections: [HealthState]) -> HealthState {
        if !connections.isEmpty, connections.allSatisfy({ $0 == .failing }) { return .failing }
        if connections.contains(where: { $0 != .healthy }) { return .degraded }
        return .healthy
    }
}

/// `GET /v1/status`: one tenant's view of its brokers' health and of what awaits reconciliation.
public struct GatewayStatus: Codable, Sendable, Hashable {
    /// One broker, summarised over the tenant's connections to it.
    public struct BrokerSummary: Codable, Sendable, Hashable {
        /// The broker kind.
        public var broker: BrokerKind
        /// The broker's state over its connections (`ofBroker`).
        public var state: HealthState
        /// How many of the tenant's connections go to it.
        public var connections: Int
        /// Of those, how many are failing.
        public var failing: Int
        /// Of those, how many are degraded.
        public var degraded: Int
    }

    /// One connection: what the store says of it (its link) and what the pipeline measured.
    public struct ConnectionReport: Codable, Sendable, Hashable {
        /// The connection's id.
        public var connectionId: String
        /// The connection's broker kind.
        public var broker: BrokerKind
        /// The connection's display name.
        public var label: String
        /// The stored link state (`active`, `relink_required`, …).
        public var link: ConnectionStatus
        /// The connection's state, from its link and its recent calls.
        public var state: HealthState
        /// What the pipeline measured: the breaker, recent calls and errors, latency.
        public var health: ConnectionHealth
    }

    /// An order whose outcome is not known yet: the reconciler is asking the broker.
    public struct PendingOrder: Codable, Sendable, Hashable {
        /// The journal's id of the order.
        public var orderId: String
        /// The connection the order was sent through.
        public var connectionId: String
        /// The connection's broker kind, when the journal recorded it.
        public var broker: BrokerKind?
        /// The account the order is for.
        public var accountId: String
        /// The order's symbol.
        public var symbol: String
        /// Buy or sell.
        public var side: OrderSide
        /// A decimal string; absent for an order sized in money.
        public var quantity: String?
        /// A decimal string: the money ordered, for an order sized in money (`notional`).
        public var notional: String?
        /// `unknown`, or `submitting` for an intent whose call has not come back.
        public var state: JournalState
        /// When the order was placed.
        public var createdAt: Date
        /// When it last changed state: how long it has waited for its outcome.
        public var since: Date
        /// Reconciliation attempts by this gateway process (the count starts again on restart).
        public var attempts: Int
        /// When this process last asked the broker about it; `nil` before the first attempt.
        public var lastAttemptAt: Date?
    }

    /// A pending order whose journal row cannot be read: the reconciler has set it aside (``JournalQuarantine``) and
    /// an operator must look at the row. `reason` names the order and the column, never its value.
    public struct UnreadableOrder: Codable, Sendable, Hashable {
        /// The journal's id of the order.
        public var orderId: String
        /// The connection the order was sent through.
        public var connectionId: String
        /// The connection's broker kind, when the journal recorded it.
        public var broker: BrokerKind?
        /// The row's stored state (`unknown` or `submitting`): it stays so until the row is repaired.
        public var state: JournalState
        /// What cannot be read: the order and the column, never the value.
        public var reason: String
        /// When this process found it unreadable.
        public var since: Date
    }

    /// When this status was put together.
    public var asOf: Date
    /// One summary per broker the tenant links.
    public var brokers: [BrokerSummary]
    /// One report per connection of the tenant.
    public var connections: [ConnectionReport]
    /// Orders whose outcome is not known yet, oldest first.
    public var unknownOrders: [PendingOrder]
    /// Pending orders set aside because their journal rows cannot be read.
    public var unreadableOrders: [UnreadableOrder]
}

/// Reconciliation attempts per order, in this process: how long the reconciler has been asking.
final class ReconciliationAttempts: Sendable {
    private let counts = Mutex<[String: (count: Int, last: Date)]>([:])

    func record(_ orderId: String) {
        counts.withLock { counts in
            let count = (counts[orderId]?.count ?? 0) + 1
            counts[orderId] = (count, Date())
        }
    }

    func attempts(_ orderId: String) -> (count: Int, last: Date?) {
        counts.withLock { counts in (counts[orderId]?.count ?? 0, counts[orderId]?.last) }
    }

    /// Forgets orders that are no longer pending, so the table stays as small as the backlog.
    func keep(only pending: Set<String>) {
        counts.withLock { counts in counts = counts.filter { pending.contains($0.key) } }
    }
}

extension StatusService {
    /// How far back "recent" reaches in the health rule (see ``HealthState``).
    static let recentWindow: TimeInterval = 30
    /// A connection is failing on its error rate alone only when it made at least this many recent calls.
    static let recentMinimumCalls = 3
    static let degradedErrorRate = 0.2
    /// The most pending orders listed (the oldest first).
    public static let statusOrderLimit = 100

    /// The tenant's brokers, connections and unknown orders, as the ops dashboard shows them.
    public func status(tenant: Tenant) async throws -> GatewayStatus {
        let now = Date()
        let connections = try await store.connections(tenantId: tenant.id)
        let sliceLength = registry.pipeline.settings.healthSlice.milliseconds / 1000
        let reports = connections.map { connection in
            let health = registry.pipeline.health(connectionId: connection.id, broker: connection.broker)
            return GatewayStatus.ConnectionReport(
                connectionId: connection.id,
                broker: connection.broker,
                label: connection.displayName,
                link: connection.status,
                state: HealthState.of(health, at: now, sliceLength: sliceLength, link: connection.status),
                health: health
            )
        }
        let brokers = Dictionary(grouping: reports, by: \.broker).keys.sorted().map { broker in
            let states = reports.filter { $0.broker == broker }.map(\.state)
            return GatewayStatus.BrokerSummary(
                broker: broker,
                state: HealthState.ofBroker(states),
                connections: states.count,
                failing: states.filter { $0 == .failing }.count,
                degraded: states.filter { $0 == .degraded }.count
            )
        }
        let brokerOf = Dictionary(connections.map { ($0.id, $0.broker) }, uniquingKeysWith: { first, _ in first })
        let references = try await journal.journaledOrderReferences(
            tenantId: tenant.id,
            in: [.unknown, .submitting],
            limit: Self.statusOrderLimit
        )
        // An intent still `submitting` is a call in flight, unless it was sent longer ago than any call may take (a
        // gateway stopped while asking): then the reconciler resolves it like an unknown one (`reconcilePending`).
        let staleSubmitting = now.addingTimeInterval(-(orderSettings.brokerTimeout.milliseconds / 1000) - 5)
        var pending: [JournaledOrder] = []
        for reference in references
        where (reference.state == .unknown || reference.sentAt <= staleSubmitting) && !journalQuarantine.contains(reference.id) {
            // A row that cannot be read is quarantined (logged this once) and listed in `unreadableOrders`; a database
            // that fails on one row is logged, and the others still show.
            do {
                if let journaled = try await journal.journaledOrder(tenantId: tenant.id, id: reference.id) { pending.append(journaled) }
            } catch  where JournalQuarantine.isUnreadableRow(error, orderId: reference.id) {
                if journalQuarantine.quarantine(reference, reason: (error as? GatewayError)?.message ?? "\(error)") {
                    logger.error(
                        "status set aside a journal row it cannot read",
                        metadata: ["order": .string(reference.id), "error": .string("\(error)")]
                    )
                }
            } catch {
                logger.error(
                    "status left out a pending order it could not read",
                    metadata: ["order": .string(reference.id), "error": .string("\(error)")]
                )
            }
        }
        let orders = pending.map { journaled in
            let attempts = reconciliationAttempts.attempts(journaled.id)
            return GatewayStatus.PendingOrder(
                orderId: journaled.id,
                connectionId: journaled.connectionId,
                broker: brokerOf[journaled.connectionId],
                accountId: journaled.accountId,
                symbol: journaled.request.instrument.symbol,
                side: journaled.request.side,
                quantity: journaled.request.quantity.map(DecimalText.format),
                notional: journaled.request.notional.map(DecimalText.format),
                state: journaled.state,
                createdAt: journaled.createdAt,
                since: journaled.updatedAt,
                attempts: attempts.count,
                lastAttemptAt: attempts.last
            )
        }
        let unreadable = journalQuarantine.entries(tenantId: tenant.id).map { item in
            GatewayStatus.UnreadableOrder(
                orderId: item.orderId,
                connectionId: item.entry.connectionId,
                broker: brokerOf[item.entry.connectionId],
                state: item.entry.state,
                reason: item.entry.reason,
                since: item.entry.since
            )
        }
        return GatewayStatus(
            asOf: now,
            brokers: brokers,
            connections: reports,
            unknownOrders: orders,
            unreadableOrders: unreadable
        )
    }
}
