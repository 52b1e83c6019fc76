import GatewayCore
import Synchronization

/// Token buckets per tenant and per API key: a request takes one token from its tenant's bucket and one from its
/// key's, or neither; an empty bucket answers 429 `rate_limited` with the seconds until a token is back.
///
/// Buckets refill continuously at the sustained rate up to the burst. They live in memory, per process: a bucket
/// left full is worth nothing, so idle buckets are dropped once there are many (memory stays bounded whatever the
/// number of keys).
final class RequestLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant

        mutating func refill(rate: Double, burst: Double, now: ContinuousClock.Instant) {
            let elapsed = max(0, seconds(updated.duration(to: now)))
            tokens = min(burst, tokens + elapsed * rate)
            updated = now
        }

        /// Seconds until one token is back.
        func wait(rate: Double) -> Double { max(0, (1 - tokens) / rate) }
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
    }

    /// Above this many buckets, the full (idle) ones are dropped.
    static let pruneThreshold = 10_000

    let limits: TenantLimits
    private let state = Mutex(State())

    init(limits: TenantLimits) {
        self.limits = limits
    }

    /// Buckets kept now.
    var bucketCount: Int { state.withLock { $0.buckets.count } }

    /// Takes a token for the tenant and the key, or returns how long to wait (seconds) when either is empty.
    func admit(tenantId: String, keyId: String?, now: ContinuousClock.Instant = .now) -> Double? {
        let tenantRate = Double(limits.tenantRequestsPerSecond)
        let tenantBurst = Double(limits.tenantBurst)
        let keyRate = Double(limits.keyRequestsPerSecond)
        let keyBurst = Double(limits.keyBurst)
        return state.withLock { state in
            if state.buckets.count > Self.pruneThreshold { Self.prune(&state, now: now, limits: limits) }
            var tenant = state.buckets["t:" + tenantId] ?? Bucket(tokens: tenantBurst, updated: now)
            tenant.refill(rate: tenantRate, burst: tenantBurst, now: now)
            var key = keyId.map { state.buckets["k:" + $0] ?? Bucket(tokens: keyBurst, updated: now) }
            key?.refill(rate: keyRate, burst: keyBurst, now: now)
            var wait: Double?
            if tenant.tokens < 1 { wait = tenant.wait(rate: tenantRate) }
            if let key, key.tokens < 1 { wait = max(wait ?? 0, key.wait(rate: keyRate)) }
            if wait == nil {
                tenant.tokens -= 1
                key?.tokens -= 1
            }
            state.buckets["t:" + tenantId] = tenant
            if let keyId, let key { state.buckets["k:" + keyId] = key }
            return wait
        }
    }

    private static func prune(_ state: inout State, now: ContinuousClock.Instant, limits: TenantLimits) {
        state.buckets = state.buckets.filter { name, bucket in
            let isTenant = name.hasPrefix("t:")
            var refilled = bucket
            refilled.refill(
                rate: Double(isTenant ? limits.tenantRequestsPerSecond : limits.keyRequestsPerSecond),
                burst: Double(isTenant ? limits.tenantBurst : limits.keyBurst),
                now: now
            )
            return refilled.tokens < Double(isTenant ? limits.tenantBurst : limits.keyBurst)
        }
    }
}

private func seconds(_ duration: Duration) -> Double {
    let (whole, fraction) = duration.components
    return Double(whole) + Double(fraction) / 1e18
}
