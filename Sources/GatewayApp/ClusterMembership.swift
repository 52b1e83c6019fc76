public import Foundation
public import GatewayCore
public import GatewayStore
public import Logging
public import ServiceLifecycle

/// This instance's membership of the gateways on one database: a lease of its own (`instance/<holder>`), renewed
/// every `ttl / 3`, and the count of live members' leases, which sets the ``InstanceShare`` the broker-call pipeline
/// paces every connection's rate limits by. Two instances each call a broker at half the budget, so a cluster keeps
/// within each broker's limit instead of multiplying it.
///
/// An instance that dies drops out `ttl` after its last beat (the others' next beat after that counts one fewer); a
/// new one is counted by the others' next beat, within `ttl / 3`. While the store cannot be reached the last count is
/// kept: it is the best guess, and the broker's own rate-limit headers keep correcting the pacing meanwhile.
public struct ClusterMembership: Service {
    /// The prefix of the membership leases in the store; each instance's lease is this followed by its id.
    public static let leasePrefix = "instance/"

    let leases: any LeaderLeaseStore
    let share: InstanceShare
    /// This instance's id in its lease.
    public let holder: String
    /// How long a lease lives without a beat: how soon a dead instance stops being counted.
    public let ttl: Duration
    let logger: Logger

    /// A member whose beats set `share`, the pipeline's fraction of each broker's rate limit.
    public init(
        leases: any LeaderLeaseStore,
        share: InstanceShare,
        ttl: Duration = .seconds(15),
        holder: String? = nil,
        logger: Logger
    ) {
        self.leases = leases
        self.share = share
        self.ttl = max(ttl, .seconds(1))
        self.holder = holder ?? "gw_" + RandomIdentifier.base32(count: 16)
        self.logger = logger
    }

    /// Renews this instance's lease and counts the live instances into the share. Returns the count, `nil` when the
    /// store could not say (the share is left as it was).
    @discardableResult
    public func beat(now: Date = Date()) async -> Int? {
        do {
            _ = try await leases.tryAcquireLease(name: Self.leasePrefix + holder, holder: holder, ttl: ttl, now: now)
            let live = max(1, try await leases.pruneAndCountLeases(prefix: Self.leasePrefix, now: now))
            if share.set(instances: live) {
                logger.notice(
                    "instances sharing the brokers' rate limits",
                    metadata: ["instances": .stringConvertible(live)]
                )
            }
            return live
        } catch {
            logger.warning(
                "cannot count the gateway's instances; rate limits stay shared as before",
                metadata: ["error": .string("\(error)"), "instances": .stringConvertible(share.instances)]
            )
            return nil
        }
    }

    /// Leaves the cluster at once (a clean shutdown): the others count one fewer at their next beat.
    public func leave() async {
        do {
            try await leases.releaseLease(name: Self.leasePrefix + holder, holder: holder)
        } catch {
            logger.warning(
                "could not release this instance's membership; it lapses by itself",
                metadata: ["error": .string("\(error)")]
            )
        }
    }

    /// Beats every `ttl / 3` until the service group shuts down, then leaves, so the others count one fewer at once.
    public func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            await beat()
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: ttl / 3) }
            } catch {
                break
            }
        }
        await leave()
    }
}
