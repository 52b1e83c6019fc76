import Logging
public import ServiceLifecycle

/// Resolves orders whose outcome is unknown, in the background, until the service group shuts down.
/// (Reads of such an order also reconcile it on demand.)
///
/// With `leadership` (several instances on one database), only the instance holding the reconciler's lease runs
/// passes; the others keep asking for it at each interval, so one takes over when the leader stops renewing.
public struct OrderReconciler: Service {
    let orders: OrderService
    let interval: Duration
    let leadership: ReconcilerLeadership?

    /// A reconciler of the gateway's orders.
    public init(gateway: Gateway, interval: Duration = .seconds(2), leadership: ReconcilerLeadership? = nil) {
        self.init(orders: gateway.orders, interval: interval, leadership: leadership)
    }

    /// A reconciler of one order service, every `interval`; with `leadership`, only while this instance leads.
    public init(orders: OrderService, interval: Duration = .seconds(2), leadership: ReconcilerLeadership? = nil) {
        self.orders = orders
        self.interval = interval
        self.leadership = leadership
    }

    /// Reconciles the pending orders each interval until the service group shuts down.
    public func run() async throws {
        var leading: Bool?
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            let leads = await leadership?.lead() ?? true
            if let leadership, leads != leading {
                orders.logger.notice(
                    leads ? "this instance runs the reconciler" : "another instance runs the reconciler",
                    metadata: ["holder": .string(leadership.holder)]
                )
                leading = leads
            }
            if leads {
                await orders.reconcilePending()
            } else {
                // A follower's loop is alive and ready to take over: that is what readiness asks of it.
                orders.reconcilerHeartbeat.beat()
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break
            }
        }
        await leadership?.release()
    }
}
