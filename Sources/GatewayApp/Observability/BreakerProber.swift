import Foundation
import GatewayCore
import Logging
public import ServiceLifecycle

/// Probes the connections whose circuit breaker's cool-down has ended, so that what the dashboard shows is the
/// breaker's current state: a broker that recovered closes its breaker (and shows healthy) without waiting for a
/// user's call to happen to probe it, and one still failing opens it again. Each probe is one cheap read (the
/// connection's accounts, or its clients) through the connection's pipeline, at most one per connection at a time
/// (a half-open breaker admits one probe); connections that are not active are left alone. A probe's failure is the
/// breaker's to record, never an error of the prober.
///
/// Breakers are per process, so every instance probes its own (no leadership).
public struct BreakerProber: Service {
    let status: StatusService
    let interval: Duration

    /// A prober of the gateway's status service.
    public init(gateway: Gateway, interval: Duration = .seconds(1)) {
        self.init(status: gateway.status, interval: interval)
    }

    /// A prober of one status service, every `interval`.
    public init(status: StatusService, interval: Duration = .seconds(1)) {
        self.status = status
        self.interval = interval
    }

    /// Probes the breakers whose cool-down ended, each interval, until the service group shuts down.
    public func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            await status.probeRecoveringBreakers()
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break
            }
        }
    }
}

extension StatusService {
    /// One pass of ``BreakerProber``: a probe read for each connection whose breaker awaits one, concurrently.
    public func probeRecoveringBreakers() async {
        let due = registry.pipeline.connectionsAwaitingProbe().compactMap { registry.cachedAdapter(connectionId: $0) }
        await withTaskGroup(of: Void.self) { group in
            for (connection, adapter) in due where connection.status == .active {
                let timeout = router.perSourceTimeout
                group.addTask {
                    do {
                        if adapter.capabilities.support(for: .accounts) != .unsupported {
                            _ = try await BrokerOperationScope.with(.accounts) {
                                try await withDeadline(timeout) { try await adapter.accounts() }
                            }
                        } else {
                            _ = try await BrokerOperationScope.with(.clients) {
                                try await withDeadline(timeout) { try await adapter.clients() }
                            }
                        }
                    } catch {
                        self.logger.debug(
                            "a breaker probe failed; the breaker stays open",
                            metadata: ["connection": .string(connection.id), "error": .string("\(error)")]
                        )
                    }
                }
            }
        }
    }
}
