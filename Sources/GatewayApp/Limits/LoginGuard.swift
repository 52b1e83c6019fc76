import Foundation
import GatewayCore
import Synchronization

/// What a login must pass before any password is hashed: the lockout of its (client address, tenant, email), then a
/// token from its address's bucket and one from its (tenant, email)'s bucket (both or neither).
///
/// The lockout is keyed by the client address too, and counts failures whether the email exists or not: a locked
/// unknown email answers exactly like a locked real one (nothing to enumerate), and failures from an attacker's
/// address lock only that address out, never the real user at theirs.
///
/// Everything lives in memory, per process: a restart (or another instance) forgets the counts, so an attacker who
/// can restart the gateway gains a few more tries. Both tables stay bounded whatever the number of addresses and
/// emails: full buckets and stale failures are dropped first, then the stalest entries.
final class LoginGuard: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date

        mutating func refill(perMinute: Double, burst: Double, now: Date) {
            let elapsed = max(0, now.timeIntervalSince(updated))
            tokens = min(burst, tokens + elapsed * perMinute / 60)
            updated = now
        }

        /// Seconds until one token is back.
        func wait(perMinute: Double) -> Double { max(0, (1 - tokens) * 60 / perMinute) }
    }

    private struct Failures {
        var count: Int
        var lockedUntil: Date?
        var last: Date
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var failures: [String: Failures] = [:]
    }

    /// The address of a request whose client address is not known (in-process tests, a Unix socket).
    static let unknownAddress = "unknown"

    let limits: LoginLimits
    private let state = Mutex(State())

    init(limits: LoginLimits) {
        self.limits = limits
    }

    /// Entries kept now (for tests and diagnostics).
    var entryCount: (buckets: Int, failures: Int) { state.withLock { ($0.buckets.count, $0.failures.count) } }

    /// Admits a login, or throws 429 `rate_limited` with the seconds to wait: while the (address, tenant, email) is
    /// locked out, or when the address's or the email's bucket is empty. `email` is `nil` for a login with a code.
    func admit(address: String?, tenantId: String, email: String?, now: Date) throws {
        let address = address ?? Self.unknownAddress
        let limits = self.limits
        let refusal = state.withLock { state -> GatewayError? in
            if let email, let failures = state.failures[Self.lockoutKey(address, tenantId, email)],
                let lockedUntil = failures.lockedUntil, lockedUntil > now
            {
                return GatewayError(
                    .rateLimited,
                    "too many failed logins: try again later",
                    retryable: true,
                    retryAfter: max(1, lockedUntil.timeIntervalSince(now).rounded(.up))
                )
            }
            if state.buckets.count > limits.lockoutEntries { Self.pruneBuckets(&state, now: now, limits: limits) }
            let addressKey = "a:" + address
            var byAddress = state.buckets[addressKey] ?? Bucket(tokens: Double(limits.perAddressBurst), updated: now)
            byAddress.refill(perMinute: Double(limits.perAddressPerMinute), burst: Double(limits.perAddressBurst), now: now)
            let emailKey = email.map { "e:" + tenantId + "\n" + $0 }
            var byEmail = emailKey.map { state.buckets[$0] ?? Bucket(tokens: Double(limits.perEmailBurst), updated: now) }
            byEmail?.refill(perMinute: Double(limits.perEmailPerMinute), burst: Double(limits.perEmailBurst), now: now)
            var refusal: GatewayError?
            if byAddress.tokens < 1 {
                refusal = GatewayError(
                    .rateLimited,
                    "too many logins from this address: try again later",
                    retryable: true,
                    retryAfter: max(1, byAddress.wait(perMinute: Double(limits.perAddressPerMinute)).rounded(.up))
                )
            } else if let bucket = byEmail, bucket.tokens < 1 {
                refusal = GatewayError(
                    .rateLimited,
                    "too many logins for this email: try again later",
                    retryable: true,
                    retryAfter: max(1, bucket.wait(perMinute: Double(limits.perEmailPerMinute)).rounded(.up))
                )
            } else {
                byAddress.tokens -= 1
                byEmail?.tokens -= 1
            }
            state.buckets[addressKey] = byAddress
            if let emailKey, let byEmail { state.buckets[emailKey] = byEmail }
            return refusal
        }
        if let refusal { throw refusal }
    }

    /// A failed login (wrong password, unknown email or user without a password alike): after
    /// `failuresBeforeLockout` in a row, the (address, tenant, email) is locked out, twice as long at each further one.
    func recordFailure(address: String?, tenantId: String, email: String, now: Date) {
        let key = Self.lockoutKey(address ?? Self.unknownAddress, tenantId, email)
        let limits = self.limits
        state.withLock { state in
            if state.failures.count >= limits.lockoutEntries { Self.pruneFailures(&state, now: now, limits: limits) }
            var failures = state.failures[key] ?? Failures(count: 0, lockedUntil: nil, last: now)
            failures.count += 1
            failures.last = now
            let beyond = failures.count - limits.failuresBeforeLockout
            if beyond >= 0 {
                let seconds = Double(limits.lockoutBaseSeconds) * Double(1 << min(beyond, 20))
                failures.lockedUntil = now.addingTimeInterval(min(seconds, Double(limits.lockoutMaximumSeconds)))
            }
            state.failures[key] = failures
        }
    }

    /// A successful login forgets the failures from its address.
    func recordSuccess(address: String?, tenantId: String, email: String) {
        let key = Self.lockoutKey(address ?? Self.unknownAddress, tenantId, email)
        _ = state.withLock { $0.failures.removeValue(forKey: key) }
    }

    private static func lockoutKey(_ address: String, _ tenantId: String, _ email: String) -> String {
        address + "\n" + tenantId + "\n" + email
    }

    /// Full buckets are worth nothing; if that is not enough, the least recently used go.
    private static func pruneBuckets(_ state: inout State, now: Date, limits: LoginLimits) {
        state.buckets = state.buckets.filter { name, bucket in
            let isAddress = name.hasPrefix("a:")
            var refilled = bucket
            let burst = Double(isAddress ? limits.perAddressBurst : limits.perEmailBurst)
            refilled.refill(perMinute: Double(isAddress ? limits.perAddressPerMinute : limits.perEmailPerMinute), burst: burst, now: now)
            return refilled.tokens < burst
        }
        let keep = limits.lockoutEntries * 9 / 10
        if state.buckets.count > keep {
            let stalest = state.buckets.sorted { $0.value.updated < $1.value.updated }.prefix(state.buckets.count - keep)
            for (name, _) in stalest { state.buckets.removeValue(forKey: name) }
        }
    }

    /// Failures whose lockout is over and that are older than the longest lockout go first, then the stalest.
    private static func pruneFailures(_ state: inout State, now: Date, limits: LoginLimits) {
        let horizon = now.addingTimeInterval(-Double(limits.lockoutMaximumSeconds))
        state.failures = state.failures.filter { _, failures in
            (failures.lockedUntil.map { $0 > now } ?? false) || failures.last > horizon
        }
        let keep = limits.lockoutEntries * 9 / 10
        if state.failures.count > keep {
            let stalest = state.failures.sorted { $0.value.last < $1.value.last }.prefix(state.failures.count - keep)
            for (key, _) in stalest { state.failures.removeValue(forKey: key) }
        }
    }
}
