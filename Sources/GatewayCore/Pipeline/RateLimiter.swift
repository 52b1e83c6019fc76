import Foundation
import HTTPTypes
import Synchronization

/// One budget of one connection: a fixed window with a count of calls left, paced so that the calls left spread
/// over the time left rather than going out in a burst and then blocking for the rest of the window.
///
/// A pure state machine over instants (no clock, no sleeping), so tests drive it with made-up times.
struct RateBucket: Sendable {
    var limit: Int
    let windowLength: Duration
    /// When the current window ends (as known: learned from headers or assumed from the first call).
    var windowEnd: ContinuousClock.Instant
    /// Calls left in the window, reservations already taken off.
    var remaining: Int
    /// The earliest instant the next call may leave.
    var nextSlot: ContinuousClock.Instant
    /// Kept back from every window (rounded-down share of the limit).
    let reserveShare: Double
    /// The broker reports other budgets on this bucket's requests but not this one: it does not apply here (a
    /// sandbox without an order limit; an account class without it), so calls are not paced by the prior.
    var unreported = false
    /// At most this many calls may go back to back while the budget is plentiful (a fan-out's few calls should not
    /// queue behind each other); fewer as it runs low, down to strict pacing.
    let burstLimit: Int

    init(limit: Int, window: Duration, reserveShare: Double, burstLimit: Int = 1, now: ContinuousClock.Instant) {
        self.limit = limit
        self.windowLength = window
        self.windowEnd = now + window
        self.remaining = limit
        self.nextSlot = now
        self.reserveShare = reserveShare
        self.burstLimit = max(1, burstLimit)
    }

    var reserve: Int { min(max(0, Int((Double(limit) * reserveShare).rounded(.down))), max(0, limit - 1)) }

    /// The share of the budget left, 0…1.
    var headroom: Double { min(1, max(0, Double(remaining) / Double(max(1, limit)))) }

    /// The share left at `now`: a window that has ended is whole again, though the bucket only rolls on its next call
    /// (Saxo's one order a second reads 100% a second after an order, not 0% until the next one).
    func headroom(at now: ContinuousClock.Instant) -> Double {
        now >= windowEnd ? 1 : headroom
    }

    /// The earliest instant a new call could leave, from `now`.
    func slot(after now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        var copy = self
        return copy.take(notBefore: now)
    }

    /// Reserves the first slot at or after `earliest` and returns it: the next slot moves on by the time left in
    /// the window divided by the calls left in it (the spacing), so concurrent callers each get their own slot. A
    /// call may go up to `burst - 1` spacings ahead of its slot while the budget is plentiful (a cell-rate
    /// algorithm's tolerance), where `burst` shrinks with the budget left, to strict pacing near the end.
    @discardableResult
    mutating func take(notBefore earliest: ContinuousClock.Instant) -> ContinuousClock.Instant {
        if unreported { return earliest }
        if earliest >= windowEnd { roll(at: earliest) }
        var at = max(earliest, nextSlot - tolerance(at: earliest))
        if at >= windowEnd { roll(at: at) }
        if remaining - reserve <= 0 {
            at = max(at, windowEnd)
            roll(at: at)
        }
        let spacing = at.duration(to: windowEnd) / max(1, remaining - reserve)
        remaining -= 1
        nextSlot = max(at, nextSlot) + spacing
        return at
    }

    /// How far ahead of its slot a call may go now.
    func tolerance(at instant: ContinuousClock.Instant) -> Duration {
        let usable = max(1, remaining - reserve)
        let burst = max(1, min(burstLimit, usable / 4))
        guard burst > 1, instant < windowEnd else { return .zero }
        return instant.duration(to: windowEnd) / usable * (burst - 1)
    }

    /// A new window starting at (or, aligned, before) `instant`, with the whole budget.
    mutating func roll(at instant: ContinuousClock.Instant) {
        while windowEnd <= instant { windowEnd = windowEnd + windowLength }
        if windowEnd > instant + windowLength { windowEnd = instant + windowLength }
        remaining = limit
    }

    /// What an answer said of this budget. A report about a different window than the one we count in replaces
    /// our count; one about the same window can only lower it (answers to calls sent before our latest
    /// reservations do not know about them).
    /// A report of a different limit than the one we assumed (the documented prior) also replaces our count.
    ///
    /// When the report replaces the count (a new limit, another window), the pacing the old count set is dropped
    /// too: slots taken at the documented prior's spacing (Alpaca's 200 a minute is one every 0.3 s) must not keep
    /// calls waiting once the broker says its budget is larger.
    mutating func observe(
        limit: Int?,
        remaining reported: Int?,
        windowEnd reportedEnd: ContinuousClock.Instant?,
        now: ContinuousClock.Instant? = nil
    ) {
        var replaced = false
        if let limit, limit > 0, limit != self.limit {
            // Without a count of its own, the new budget keeps what this window has spent (a broker reporting a
            // far larger limit must not leave the old count under the new, larger reserve, blocking every call).
            let spent = max(0, self.limit - remaining)
            self.limit = limit
            replaced = true
            if reported == nil {
                remaining = max(0, limit - spent)
                repace(now: now)
            }
        }
        guard let reported else { return }
        let left = max(0, reported)
        if replaced {
            remaining = left
            if let reportedEnd { windowEnd = reportedEnd }
            repace(now: now)
        } else if let reportedEnd, reportedEnd > windowEnd + .seconds(1) || reportedEnd < windowEnd - .seconds(1) {
            windowEnd = reportedEnd
            remaining = left
            repace(now: now)
        } else {
            remaining = min(remaining, left)
        }
    }

    /// The next slot is no later than one spacing of the budget as it now stands.
    mutating func repace(now: ContinuousClock.Instant?) {
        guard let now, now < windowEnd else { return }
        let spacing = now.duration(to: windowEnd) / max(1, remaining - reserve)
        nextSlot = min(nextSlot, now + spacing)
    }

    /// A 429: nothing left until `until`.
    mutating func exhaust(until: ContinuousClock.Instant) {
        remaining = 0
        windowEnd = max(until, nextSlot)
        nextSlot = max(nextSlot, until)
    }
}

/// Every rate-limit bucket of one connection, behind one lock: reservations across several buckets are taken
/// together, so a call waits for the latest of its slots and holds a slot in each.
///
/// Each bucket holds this instance's share of the budget (``InstanceShare``): with `n` instances, a limit of `L`
/// (the documented prior or what the broker reports) is `L / n` here, and a reported `remaining` of `R` (every
/// instance's calls counted) is `R / n`. When `n` changes, every bucket is re-scaled from the whole limit.
final class ConnectionRateLimiter: Sendable {
    struct State: Sendable {
        var buckets: [String: RateBucket] = [:]
        /// The whole (cluster-wide) limit of each bucket: the rule's prior, or the limit the broker last reported.
        var wholeLimits: [String: Int] = [:]
        /// The instance count the buckets are scaled for.
        var instances = 1
        /// After a 429 with `Retry-After` on a request no declared budget covers (a broker that documents none):
        /// every call of the connection waits until then.
        var pausedUntil: ContinuousClock.Instant?
    }

    enum Decision: Sendable, Equatable {
        /// Go at this instant (now or later).
        case go(at: ContinuousClock.Instant)
        /// The slot is beyond the deadline: fail now, and say when a slot would be free.
        case reject(retryAfter: Duration)
    }

    let rules: [RateLimitRule]
    let reserveShare: Double
    let burstLimit: Int
    let minimumCallTime: Duration
    let share: InstanceShare
    private let state = Mutex<State>(State())

    init(rules: [RateLimitRule], settings: PipelineSettings, share: InstanceShare = InstanceShare()) {
        self.rules = rules
        self.reserveShare = settings.rateLimitReserve
        self.burstLimit = settings.rateLimitBurst
        self.minimumCallTime = settings.minimumCallTime
        self.share = share
    }

    /// This instance's part of a whole count: at least 1 of a limit (a budget too small to split still lets each
    /// instance call, paced by the broker's answers), and a floor of a remaining count.
    static func part(of whole: Int, among instances: Int, isLimit: Bool) -> Int {
        let part = whole / max(1, instances)
        return isLimit ? max(1, part) : max(0, part)
    }

    /// The bucket for `key`, made from the rule's prior when new, in this instance's share.
    func bucket(
        _ key: String,
        _ rule: RateLimitRule,
        in state: inout State,
        now: ContinuousClock.Instant
    ) -> RateBucket {
        if let bucket = state.buckets[key] { return bucket }
        state.wholeLimits[key] = rule.limit
        return RateBucket(
            limit: Self.part(of: rule.limit, among: state.instances, isLimit: true),
            window: rule.window,
            reserveShare: reserveShare,
            burstLimit: burstLimit,
            now: now
        )
    }

    /// Re-scales every bucket when the number of instances changed since the last call: the limit from the whole
    /// limit, the count left in proportion.
    func rescale(_ state: inout State) {
        let instances = share.instances
        guard instances != state.instances else { return }
        let old = state.instances
        for (key, var bucket) in state.buckets {
            let whole = state.wholeLimits[key] ?? bucket.limit * old
            bucket.limit = Self.part(of: whole, among: instances, isLimit: true)
            bucket.remaining = min(bucket.limit, Self.part(of: bucket.remaining * old, among: instances, isLimit: false))
            state.buckets[key] = bucket
        }
        state.instances = instances
    }

    func keys(for request: BrokerRequest) -> [(key: String, rule: RateLimitRule)] {
        rules.compactMap { rule in rule.scope(request).map { (key: "\(rule.name)|\($0)", rule: rule) } }
    }

    /// Takes a slot in every bucket the request counts against, unless the latest of them leaves less than the
    /// minimum call time before `deadline`; then takes nothing.
    func reserve(
        _ request: BrokerRequest,
        now: ContinuousClock.Instant,
        deadline: ContinuousClock.Instant
    ) -> Decision {
        let keys = keys(for: request)
        return state.withLock { state in
            rescale(&state)
            var at = max(now, state.pausedUntil ?? now)
            for (key, rule) in keys {
                let bucket = bucket(key, rule, in: &state, now: now)
                state.buckets[key] = bucket
                at = max(at, bucket.slot(after: now))
            }
            if at > now, at + minimumCallTime > deadline {
                return .reject(retryAfter: now.duration(to: at))
            }
            for (key, _) in keys { state.buckets[key]?.take(notBefore: at) }
            return .go(at: at)
        }
    }

    /// Gives back the slot `reserve` took for a call that never left (its caller gave up while it waited), so a
    /// crowd of abandoned waiters cannot spend the budget of the calls that do go.
    func refund(_ request: BrokerRequest) {
        let keys = keys(for: request)
        state.withLock { state in
            for (key, _) in keys {
                guard var bucket = state.buckets[key] else { continue }
                bucket.remaining = min(bucket.limit, bucket.remaining + 1)
                state.buckets[key] = bucket
            }
        }
    }

    /// Learns from an answer's headers; a 429 empties the request's buckets until the reset or `Retry-After`.
    func observe(_ response: BrokerResponse, for request: BrokerRequest, now: ContinuousClock.Instant, wallClock: Date) {
        let keys = keys(for: request)
        let retryAfter = BrokerNumber.retryAfter(response.headers, now: wallClock)
        guard !keys.isEmpty else {
            if response.status == 429, let retryAfter {
                let until = now + .boundedSeconds(retryAfter)
                state.withLock { $0.pausedUntil = max($0.pausedUntil ?? until, until) }
            }
            return
        }
        let reported = keys.filter { key in key.rule.headers.map { Self.carries(response.headers, $0) } ?? false }
        state.withLock { state in
            rescale(&state)
            for (key, rule) in keys {
                var bucket = bucket(key, rule, in: &state, now: now)
                var reportedEnd: ContinuousClock.Instant?
                var reportedRemaining: Int?
                if let headers = rule.headers {
                    // Silence about this budget while the broker reports others on the same answer means the budget
                    // does not apply; a later report turns it back on.
                    bucket.unreported = !Self.carries(response.headers, headers) && !reported.isEmpty
                    // The broker counts every instance's calls: this instance paces within its share of both.
                    let wholeLimit = BrokerNumber.count(response.headers.value(headers.limit))
                    if let wholeLimit, wholeLimit > 0 { state.wholeLimits[key] = wholeLimit }
                    let limit = wholeLimit.map { Self.part(of: $0, among: state.instances, isLimit: true) }
                    reportedRemaining = BrokerNumber.count(response.headers.value(headers.remaining))
                    let remaining = reportedRemaining.map { Self.part(of: $0, among: state.instances, isLimit: false) }
                    if let seconds = BrokerNumber.resetSeconds(
                        response.headers.value(headers.reset),
                        kind: headers.resetKind,
                        now: wallClock
                    ) {
                        // A reset outside (0, two windows] is a clock we cannot trust (a sandbox's simulated
                        // market time): keep our own window.
                        if seconds > 0, seconds <= 2 * rule.window.seconds {
                            reportedEnd = now + .boundedSeconds(seconds)
                        }
                    }
                    bucket.observe(limit: limit, remaining: remaining, windowEnd: reportedEnd, now: now)
                }
                if response.status == 429 {
                    // Only the buckets the 429 is about when the broker says which (Remaining 0); every bucket of the
                    // request when it does not.
                    if rule.headers == nil || reportedRemaining == nil || reportedRemaining == 0 {
                        let wait = retryAfter.map { Duration.boundedSeconds($0) }
                        let until = reportedEnd ?? wait.map { now + $0 } ?? bucket.windowEnd
                        bucket.exhaust(until: max(until, now))
                    }
                }
                state.buckets[key] = bucket
            }
        }
    }

    /// The smallest share left across the buckets used so far; `nil` before any.
    var headroom: Double? {
        let now = ContinuousClock.now
        return state.withLock { state in state.buckets.values.filter { !$0.unreported }.map { $0.headroom(at: now) }.min() }
    }

    /// Whether an answer says anything about a budget.
    static func carries(_ fields: HTTPFields, _ headers: RateLimitRule.Headers) -> Bool {
        [headers.limit, headers.remaining, headers.reset].contains { fields.value($0) != nil }
    }
}

extension Duration {
    /// Seconds as a Double, for ratios and reporting.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A duration from seconds that may come from a broker: NaN and negatives are zero, huge values are a day.
    static func boundedSeconds(_ seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .milliseconds(Int64((min(seconds, GatewayError.maximumRetryAfter) * 1000).rounded(.up)))
    }
}
