import Foundation
import GatewayCore
import GatewayModel
import GatewayStore
import Logging
public import ServiceLifecycle
import Synchronization

/// Brings the journal's open orders up to date from their brokers in the background, so that a fill, a cancel at
/// the broker or an expiry becomes a journal event (and so an order update on the stream and an order alert) without
/// anyone reading the order. Each pass asks each connection about a few of its open orders (`perConnection`), taking
/// turns through them, so a connection with many open orders stays within its broker's rate limit.
///
/// With `leadership` (several instances on one database), only the instance holding the reconciler's lease watches.
public struct OrderWatcher: Service {
    let orders: OrderService
    let interval: Duration
    let leadership: ReconcilerLeadership?
    let perConnection: Int

    /// A watcher of the gateway's orders.
    public init(gateway: Gateway, interval: Duration, leadership: ReconcilerLeadership? = nil, perConnection: Int = 3) {
        self.init(orders: gateway.orders, interval: interval, leadership: leadership, perConnection: perConnection)
    }

    /// A watcher of one order service's open orders every `interval`, `perConnection` orders per connection a pass;
    /// with `leadership`, only while this instance leads.
    public init(orders: OrderService, interval: Duration, leadership: ReconcilerLeadership? = nil, perConnection: Int = 3) {
        self.orders = orders
        self.interval = interval
        self.leadership = leadership
        self.perConnection = max(1, perConnection)
    }

    /// Watches until the service group shuts down.
    public func run() async throws {
        let turns = WatchTurns()
        // Connections with open orders whose broker pushes order changes (Alpaca's trade updates): each has a
        // listener that brings a changed order up to date at once, between passes.
        var listeners: [WatchedConnection: Task<Void, Never>] = [:]
        defer { for listener in listeners.values { listener.cancel() } }
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            if await leadership?.lead() ?? true {
                let watched = await watchOpenOrders(perConnection: perConnection, turns: turns)
                for (connection, listener) in listeners where !watched.contains(connection) {
                    listener.cancel()
                    listeners.removeValue(forKey: connection)
                }
                for connection in watched where listeners[connection] == nil {
                    let orders = self.orders
                    listeners[connection] = Task { await listenForOrderChanges(connection) }
                }
            } else {
                for listener in listeners.values { listener.cancel() }
                listeners = [:]
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break
            }
        }
    }
}

/// A connection the order watcher watches (one with open orders).
struct WatchedConnection: Hashable, Sendable {
    var tenantId: String
    var connectionId: String
}

/// Where each connection's turn through its open orders stands.
final class WatchTurns: Sendable {
    private let next = Mutex<[String: Int]>([:])

    /// `count` of the connection's orders, from where the last pass stopped.
    func take<Item>(_ items: [Item], connectionId: String, count: Int) -> [Item] {
        guard items.count > count else { return items }
        let start = next.withLock { next in
            let start = next[connectionId, default: 0] % items.count
            next[connectionId] = start + count
            return start
        }
        return (0..<count).map { items[(start + $0) % items.count] }
    }
}

extension OrderWatcher {
    /// One pass of the order watcher: a few open orders of each connection, read from the broker and journaled when
    /// they changed. Failures are logged and end only that order's turn.
    @discardableResult
    func watchOpenOrders(perConnection: Int, turns: WatchTurns, limit: Int = 1000) async -> Set<WatchedConnection> {
        let open: [JournaledOrderReference]
        do {
            open = try await orders.journal.openOrderReferences(limit: limit)
        } catch {
            orders.logger.error("the order watcher cannot list open orders", metadata: ["error": .string("\(error)")])
            return []
        }
        let byConnection = Dictionary(grouping: open.filter { !orders.inFlight.isRunning($0.id) }) {
            WatchedConnection(tenantId: $0.tenantId, connectionId: $0.connectionId)
        }
        await withTaskGroup(of: Void.self) { group in
            for (connection, references) in byConnection {
                let chosen = turns.take(
                    references.sorted { $0.id < $1.id },
                    connectionId: "\(connection.tenantId)\n\(connection.connectionId)",
                    count: perConnection
                )
                group.addTask {
                    for reference in chosen { await self.watch(reference) }
                }
            }
        }
        return Set(byConnection.keys)
    }

    /// Listens to the connection's broker for order changes while the task runs (nothing when its broker has no such
    /// stream), and brings each changed journaled order up to date at once. Reconnects after a failure, after a pause.
    func listenForOrderChanges(_ watched: WatchedConnection) async {
        while !Task.isCancelled {
            do {
                guard let connection = try await orders.store.connection(tenantId: watched.tenantId, id: watched.connectionId),
                    connection.status == .active
                else { return }
                let adapter = try await orders.directory.adapter(for: connection)
                guard let streaming = adapter as? any BrokerStreaming, streaming.canStream else { return }
                try await streaming.streamOrderChanges { brokerOrderId in
                    await self.orderChanged(connection, adapter: adapter, brokerOrderId: brokerOrderId)
                }
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                orders.logger.notice(
                    "a broker's order update stream failed; the order watcher's passes go on, and it reconnects",
                    metadata: ["connection": .string(watched.connectionId), "error": .string("\(error)")]
                )
            }
            do { try await Task.sleep(for: .seconds(5)) } catch { return }
        }
    }

    /// The broker says one of its orders changed: the journaled order it is, if any, is brought up to date.
    private func orderChanged(_ connection: ConnectionDescriptor, adapter: any BrokerAdapter, brokerOrderId: String) async {
        do {
            guard
                let journaled = try await orders.journal.journaledOrder(
                    tenantId: connection.tenantId,
                    connectionId: connection.id,
                    brokerOrderId: brokerOrderId
                ),
                journaled.state == .accepted, !orders.inFlight.isRunning(journaled.id)
            else { return }
            try await orders.streams.refreshingOnce(journaled.id) {
                guard let current = try await orders.journal.journaledOrder(tenantId: connection.tenantId, id: journaled.id) else { return }
                _ = try await BrokerOperationScope.$current.withValue(BrokerOperation.orders.rawValue) {
                    try await orders.refresh(current, connection: connection, adapter: adapter)
                }
            }
        } catch {
            orders.logger.debug(
                "a pushed order change could not be recorded; the next pass will",
                metadata: ["connection": .string(connection.id), "error": .string("\(error)")]
            )
        }
    }

    private func watch(_ reference: JournaledOrderReference) async {
        do {
            guard let journaled = try await orders.journal.journaledOrder(tenantId: reference.tenantId, id: reference.id),
                let connection = try await orders.store.connection(tenantId: reference.tenantId, id: reference.connectionId),
                connection.status == .active
            else { return }
            let adapter = try await orders.directory.adapter(for: connection)
            try await orders.streams.refreshingOnce(journaled.id) {
                // Read again inside: a pushed change may have been recorded since the look-up.
                guard let current = try await orders.journal.journaledOrder(tenantId: reference.tenantId, id: reference.id) else { return }
                _ = try await BrokerOperationScope.$current.withValue(BrokerOperation.orders.rawValue) {
                    try await orders.refresh(current, connection: connection, adapter: adapter)
                }
            }
        } catch {
            orders.logger.debug(
                "the order watcher could not bring an order up to date",
                metadata: [
                    "order": .string(reference.id), "connection": .string(reference.connectionId),
                    "error": .string("\(error)"),
                ]
            )
        }
    }
}
