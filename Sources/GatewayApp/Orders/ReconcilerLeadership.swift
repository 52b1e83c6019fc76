public import Foundation
import GatewayCore
public import GatewayStore
public import Logging

/// Which of several gateway instances on one database runs the background reconciler: the holder of the store's
/// lease ``leaseName``. The leader renews it on every pass; an instance that dies (or loses the database) stops
/// renewing, and `ttl` after its last renewal the next pass of another instance takes the lease and reconciles.
///
/// A pass that outlasts `ttl` lets a second instance start reconciling meanwhile: that costs duplicate broker reads,
/// never a wrong outcome (reconciliation reads the broker and records under the journal's row locks; it never
/// resends an order), so `ttl` is a matter of cost, chosen well above a pass's usual length.
public struct ReconcilerLeadership: Sendable {
    /// The lease's name in the store, one for every instance of a deployment.
    public static let leaseName = "order-reconciler"

    let leases: any LeaderLeaseStore
    /// This instance's own id in the lease (random per process unless given).
    public let holder: String
    /// How long the lease lasts without renewal: how soon another instance takes over from one that died.
    public let ttl: Duration
    let logger: Logger

    /// A contender for the reconciler's lease in `leases`.
    public init(
        leases: any LeaderLeaseStore,
        ttl: Duration,
        holder: String? = nil,
        logger: Logger
    ) {
        self.leases = leases
        self.ttl = ttl
        self.holder = holder ?? "gw_" + RandomIdentifier.base32(count: 16)
        self.logger = logger
    }

    /// Takes or renews the lease: whether this instance leads now. `false` too when the store cannot say: an instance
    /// that cannot reach the database must not reconcile as if it led.
    public func lead(now: Date = Date()) async -> Bool {
        do {
            return try await leases.tryAcquireLease(name: Self.leaseName, holder: holder, ttl: ttl, now: now)
        } catch {
            logger.warning(
                "the reconciler cannot tell whether it leads; it skips this pass",
                metadata: ["error": .string("\(error)")]
            )
            return false
        }
    }

    /// Gives the lease up (a clean shutdown), so another instance takes over at its next pass.
    public func release() async {
        do {
            try await leases.releaseLease(name: Self.leaseName, holder: holder)
        } catch {
            logger.warning(
                "the reconciler could not release its lease; it lapses by itself",
                metadata: ["error": .string("\(error)")]
            )
        }
    }
}
