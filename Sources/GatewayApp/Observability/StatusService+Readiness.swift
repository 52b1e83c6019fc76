public import Foundation
import GatewayCore
import GatewayStore
import Synchronization

/// When a background loop last completed a pass: how readiness knows the order reconciler is alive.
final class Heartbeat: Sendable {
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    func beat() { last.withLock { $0 = ContinuousClock.now } }

    /// How long ago the last pass ended; `nil` before the first.
    var age: Duration? { last.withLock { $0.map { ContinuousClock.now - $0 } } }
}

/// Whether the gateway can serve, check by check.
public struct Readiness: Sendable, Hashable {
    /// One thing the gateway needs to serve, and whether it has it.
    public struct Check: Sendable, Hashable {
        /// What is checked: the store answers, its migrations are current, the reconciler runs.
        public enum Name: String, Sendable { case store, migrations, reconciler }
        /// Which check this is.
        public var name: Name
        /// Whether it passed.
        public var ok: Bool
        /// Why it failed (never a secret); `nil` when it passed.
        public var detail: String?
    }

    /// Every check, in a fixed order.
    public var checks: [Check]
    /// Whether every check passed: `/readyz` answers 200 only then.
    public var ready: Bool { checks.allSatisfy(\.ok) }
}

extension StatusService {
    /// Store reachable, migrations applied, reconciler running (a pass within `reconcilerGrace`).
    ///
    /// A check never throws and never takes longer than two seconds: a load balancer asks often.
    public func readiness(reconcilerGrace: Duration = .seconds(30)) async -> Readiness {
        var checks: [Readiness.Check] = []
        let store = self.store
        do {
            let applied = try await withDeadline(.seconds(2)) { try await store.migrationsApplied() }
            checks.append(.init(name: .store, ok: true))
            checks.append(.init(name: .migrations, ok: applied, detail: applied ? nil : "the database lacks migrations"))
        } catch {
            checks.append(.init(name: .store, ok: false, detail: "the store does not answer"))
            checks.append(.init(name: .migrations, ok: false, detail: "unknown while the store does not answer"))
        }
        switch reconcilerHeartbeat.age {
        case nil:
            checks.append(.init(name: .reconciler, ok: false, detail: "the order reconciler has not run yet"))
        case let age? where age > reconcilerGrace:
            checks.append(
                .init(
                    name: .reconciler,
                    ok: false,
                    detail: "the order reconciler's last pass ended \(Int(age.components.seconds)) s ago"
                )
            )
        default:
            checks.append(.init(name: .reconciler, ok: true))
        }
        return Readiness(checks: checks)
    }
}
