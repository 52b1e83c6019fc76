import Logging
public import ServiceLifecycle

/// Resolves orders whose outcome is unknown, in the background, until the service group shuts down.
/// (Reads of such an order also reconcile it on demand.)
public struct OrderReconciler: Service {
    let gateway: Gateway
    let interval: Duration

    public init(gateway: Gateway, interval: Duration = .seconds(2)) {
        self.gateway = gateway
        self.interval = interval
    }

    public func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            await gateway.reconcilePending()
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }
}
