public import Foundation

/// Named, timed leases in the store: how several gateway instances on one database agree that one of them (the
/// leader) does a piece of work, such as reconciling `unknown` orders, and how another takes over when it dies.
///
/// A lease is held by one `holder` (an instance's own random id) until its expiry. The holder renews it well before
/// then (every `ttl / 3`, say); an instance that stops renewing, killed or cut off, loses it at most `ttl` after its
/// last renewal, and the next `tryAcquireLease` of any instance takes it. Expiry is compared with the `now` each
/// caller passes, so instances' clocks must agree to well within `ttl` (NTP does).
///
/// In one process on SQLite the one holder simply always gets it; the same table serves several processes on one
/// SQLite file. On PostgreSQL the lease is a row claimed by one conditional upsert (see `PostgresStore+Leases`).
public protocol LeaderLeaseStore: Sendable {
    /// Takes the lease for `holder` until `now + ttl` when it is free, expired, or already `holder`'s (then this
    /// renews it). `true` when `holder` holds it afterwards; of any number of concurrent callers for a free lease,
    /// exactly one gets `true`.
    func tryAcquireLease(name: String, holder: String, ttl: Duration, now: Date) async throws -> Bool
    /// Moves the expiry of `holder`'s lease to `now + ttl`; `false` (and nothing changes) when `holder` does not
    /// hold it any more, or it expired: the caller has lost leadership and must stop the work.
    func renewLease(name: String, holder: String, ttl: Duration, now: Date) async throws -> Bool
    /// Gives the lease up at once (a clean shutdown), so another instance need not wait for it to expire. Nothing
    /// happens when `holder` does not hold it.
    func releaseLease(name: String, holder: String) async throws
    /// Deletes the expired leases whose names start with `prefix`, then counts those left: the live members of a
    /// group that each hold a lease of their own (every instance holds `instance/<holder>`; see `ClusterMembership`).
    /// A member that stops renewing drops out `ttl` after its last renewal; its next acquisition brings it back.
    func pruneAndCountLeases(prefix: String, now: Date) async throws -> Int
}

extension Duration {
    /// Whole milliseconds, rounded up, at least 1: a lease never expires before its ttl.
    package var leaseMillis: Int64 {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(1, millis)
    }
}
