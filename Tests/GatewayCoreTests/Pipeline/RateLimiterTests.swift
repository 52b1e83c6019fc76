import Foundation
import GatewayModel
import GatewayTesting
import HTTPTypes
import Testing

@testable import GatewayCore

@Suite("Broker pipeline: rate limits")
struct RateLimiterTests {
    static let alpacaLike = RateLimitRule(name: "requests", limit: 200, per: .seconds(60), headers: .alpaca)
    static let saxoSession = RateLimitRule(name: "session", limit: 120, per: .seconds(60), headers: .saxo("Session")) {
        request in RateLimitRule.path(of: request).split(separator: "/").first.map(String.init)
    }

    @Test func pacingSpreadsTheBudgetLeftOverTheTimeLeft() {
        let t0 = ContinuousClock.now
        var bucket = RateBucket(limit: 120, window: .seconds(60), reserveShare: 0, now: t0)
        // The broker says: 2 calls left, and the window ends in one second.
        bucket.observe(limit: 120, remaining: 2, windowEnd: t0 + .seconds(1), now: t0)
        #expect(bucket.take(notBefore: t0) == t0)
        #expect(bucket.take(notBefore: t0) == t0 + .milliseconds(500))
        // The budget is spent: the next call waits for the new window, not into a 429.
        #expect(bucket.take(notBefore: t0) == t0 + .seconds(1))
        #expect(bucket.remaining == 119)
    }

    @Test func aPlentifulBudgetAllowsAShortBurstThenPaces() {
        let t0 = ContinuousClock.now
        var bucket = RateBucket(limit: 120, window: .seconds(60), reserveShare: 0, burstLimit: 5, now: t0)
        let slots = (0..<8).map { _ in bucket.take(notBefore: t0) }
        #expect(slots.prefix(5).allSatisfy { $0 == t0 })
        #expect(slots[5] > t0)
        #expect(slots[6] > slots[5] && slots[7] > slots[6])
    }

    @Test func aLearnedLargerLimitDropsThePacingOfThePrior() {
        let t0 = ContinuousClock.now
        // Eight calls at once before any answer: the documented prior (200 a minute) spaces them 0.3 s apart.
        var bucket = RateBucket(limit: 200, window: .seconds(60), reserveShare: 0, now: t0)
        let early = (0..<8).map { _ in bucket.take(notBefore: t0) }
        #expect(early.last! > t0 + .seconds(2))
        // The first answer says the budget is a million a minute: the next call goes at once, not after the prior's
        // queue of slots.
        bucket.observe(limit: 1_000_000, remaining: 999_992, windowEnd: t0 + .seconds(50), now: t0 + .milliseconds(10))
        #expect(bucket.take(notBefore: t0 + .milliseconds(10)) < t0 + .milliseconds(20))
    }

    @Test func theReserveIsKeptBack() {
        let t0 = ContinuousClock.now
        var bucket = RateBucket(limit: 100, window: .seconds(10), reserveShare: 0.05, now: t0)
        bucket.observe(limit: nil, remaining: 6, windowEnd: t0 + .seconds(10), now: t0)
        // 6 left, 5 in reserve: one call now, the next in the next window.
        #expect(bucket.take(notBefore: t0) == t0)
        #expect(bucket.take(notBefore: t0) == t0 + .seconds(10))
    }

    @Test func concurrentWaitersEachGetTheirOwnSlot() {
        let limiter = ConnectionRateLimiter(rules: [Self.alpacaLike], settings: PipelineFixture.settings())
        let t0 = ContinuousClock.now
        let request = PipelineFixture.get()
        limiter.observe(
            PipelineFixture.status(
                200,
                [
                    (name: "X-RateLimit-Limit", value: "200"), (name: "X-RateLimit-Remaining", value: "4"),
                    (name: "X-RateLimit-Reset", value: String(Int(Date().timeIntervalSince1970) + 3)),
                ]
            ),
            for: request,
            now: t0,
            wallClock: Date()
        )
        var slots: [ContinuousClock.Instant] = []
        for _ in 0..<4 {
            guard case .go(let at) = limiter.reserve(request, now: t0, deadline: t0 + .seconds(60)) else {
                Issue.record("a slot within the deadline was refused")
                return
            }
            slots.append(at)
        }
        #expect(Set(slots).count == 4)
        #expect(slots == slots.sorted())
        #expect(slots[0] == t0)
        #expect(slots[1] > t0)
        #expect(limiter.headroom == 0)
    }

    /// The calls one limiter lets leave before `t0 + window`, asking again and again at `t0` with that deadline (a
    /// slot past it is refused and not taken, so the next window's budget is untouched).
    static func callsInFirstWindow(_ limiter: ConnectionRateLimiter, window: Duration, t0: ContinuousClock.Instant) -> Int {
        let request = PipelineFixture.get()
        var count = 0
        while count < 10_000, case .go = limiter.reserve(request, now: t0, deadline: t0 + window) {
            count += 1
        }
        return count
    }

    @Test func instancesShareABudgetInsteadOfMultiplyingIt() {
        let rule = RateLimitRule(name: "requests", limit: 10, per: .seconds(60))
        let t0 = ContinuousClock.now
        // Alone, an instance may use the whole budget.
        let alone = ConnectionRateLimiter(rules: [rule], settings: PipelineFixture.settings())
        #expect(Self.callsInFirstWindow(alone, window: .seconds(60), t0: t0) == 10)
        // Two instances of a cluster (one share) together send what the broker allows, not twice that.
        let share = InstanceShare(instances: 2)
        let first = ConnectionRateLimiter(rules: [rule], settings: PipelineFixture.settings(), share: share)
        let second = ConnectionRateLimiter(rules: [rule], settings: PipelineFixture.settings(), share: share)
        let together =
            Self.callsInFirstWindow(first, window: .seconds(60), t0: t0)
            + Self.callsInFirstWindow(second, window: .seconds(60), t0: t0)
        #expect(together == 10)
    }

    @Test func aReportedBudgetIsSharedAndAChangedCountRescales() {
        let share = InstanceShare(instances: 1)
        let limiter = ConnectionRateLimiter(rules: [Self.alpacaLike], settings: PipelineFixture.settings(), share: share)
        let t0 = ContinuousClock.now
        let request = PipelineFixture.get()
        // The broker counts every instance's calls: 40 left of 200 in the next 30 s.
        let report = PipelineFixture.status(
            200,
            [
                (name: "X-RateLimit-Limit", value: "200"), (name: "X-RateLimit-Remaining", value: "40"),
                (name: "X-RateLimit-Reset", value: String(Int(Date().timeIntervalSince1970) + 30)),
            ]
        )
        share.set(instances: 4)
        limiter.observe(report, for: request, now: t0, wallClock: Date())
        // A quarter of what is left is this instance's: 10 calls before the reported reset.
        #expect(Self.callsInFirstWindow(limiter, window: .seconds(28), t0: t0) == 10)
    }

    @Test func aChangedInstanceCountRescalesEveryBucket() {
        let share = InstanceShare(instances: 4)
        let rule = RateLimitRule(name: "requests", limit: 200, per: .seconds(60))
        let limiter = ConnectionRateLimiter(rules: [rule], settings: PipelineFixture.settings(), share: share)
        let t0 = ContinuousClock.now
        #expect(Self.callsInFirstWindow(limiter, window: .seconds(60), t0: t0) == 50)
        // Two of the four leave: the next window's budget (the rule's 200) is split in two, not four.
        share.set(instances: 2)
        #expect(Self.callsInFirstWindow(limiter, window: .seconds(60), t0: t0 + .seconds(60)) == 100)
    }

    @Test func saxoBucketsArePerServiceGroup() {
        let limiter = ConnectionRateLimiter(rules: [Self.saxoSession], settings: PipelineFixture.settings())
        let t0 = ContinuousClock.now
        let port = BrokerRequest(method: .get, url: "https://saxo.test/port/v1/balances")
        let trade = BrokerRequest(method: .get, url: "https://saxo.test/trade/v1/infoprices")
        limiter.observe(
            PipelineFixture.status(
                200,
                [
                    (name: "X-RateLimit-Session-Limit", value: "120"), (name: "X-RateLimit-Session-Remaining", value: "0"),
                    (name: "X-RateLimit-Session-Reset", value: "20"),
                ]
            ),
            for: port,
            now: t0,
            wallClock: Date()
        )
        // `port` is spent, `trade` is not.
        #expect(limiter.reserve(trade, now: t0, deadline: t0 + .seconds(5)) == .go(at: t0))
        guard case .reject(let wait) = limiter.reserve(port, now: t0, deadline: t0 + .seconds(5)) else {
            Issue.record("a spent service group let a call through")
            return
        }
        #expect(wait >= .seconds(19) && wait <= .seconds(21))
    }

    @Test func aBudgetTheBrokerStaysSilentAboutWhileReportingOthersIsNotPaced() {
        let orders = RateLimitRule(name: "orders", limit: 1, per: .seconds(1), headers: .saxo("SessionOrders"))
        let limiter = ConnectionRateLimiter(rules: [Self.saxoSession, orders], settings: PipelineFixture.settings())
        let t0 = ContinuousClock.now
        let place = BrokerRequest(method: .post, url: "https://saxo.test/trade/v2/orders")
        #expect(limiter.reserve(place, now: t0, deadline: t0 + .seconds(5)) == .go(at: t0))
        // The prior: one a second.
        guard case .go(let second) = limiter.reserve(place, now: t0, deadline: t0 + .seconds(5)), second > t0 else {
            Issue.record("the prior did not pace")
            return
        }
        limiter.observe(
            PipelineFixture.status(
                200,
                [
                    (name: "X-RateLimit-Session-Limit", value: "120"), (name: "X-RateLimit-Session-Remaining", value: "100"),
                    (name: "X-RateLimit-Session-Reset", value: "30"),
                ]
            ),
            for: place,
            now: t0,
            wallClock: Date()
        )
        guard case .go(let third) = limiter.reserve(place, now: t0, deadline: t0 + .seconds(5)) else {
            Issue.record("refused")
            return
        }
        #expect(third < second + .seconds(1))  // the prior would say second + 1 s
        // Reported again: paced again.
        limiter.observe(
            PipelineFixture.status(
                200,
                [
                    (name: "X-RateLimit-SessionOrders-Limit", value: "1"), (name: "X-RateLimit-SessionOrders-Remaining", value: "0"),
                    (name: "X-RateLimit-SessionOrders-Reset", value: "1"),
                ]
            ),
            for: place,
            now: t0,
            wallClock: Date()
        )
        guard case .go(let paced) = limiter.reserve(place, now: t0, deadline: t0 + .seconds(5)) else {
            Issue.record("refused")
            return
        }
        #expect(paced >= t0 + .milliseconds(900))
    }

    @Test func aWaitThatDoesNotFitTheDeadlineFailsRateLimitedWithoutCalling() async throws {
        // A window that ends far enough away (within the two windows a reset is trusted for) that even a very slow
        // machine gets to the second call long before it.
        let reset = String(Int(Date().timeIntervalSince1970) + 110)
        let broker = ScriptedTransport { _, _ in
            PipelineFixture.status(
                200,
                [
                    (name: "X-RateLimit-Limit", value: "200"), (name: "X-RateLimit-Remaining", value: "0"),
                    (name: "X-RateLimit-Reset", value: reset),
                ]
            )
        }
        let metrics = RecordingMetrics()
        let pipeline = BrokerPipeline(metrics: metrics, settings: PipelineFixture.settings())
        let connection = PipelineFixture.connection()
        let transport = pipeline.transport(
            wrapping: broker,
            connection: connection,
            limits: [Self.alpacaLike],
            logger: PipelineFixture.logger
        )
        #expect(try await transport.send(PipelineFixture.get()).status == 200)
        let error = await #expect(throws: GatewayError.self) {
            try await transport.send(PipelineFixture.get(timeout: .seconds(1)))
        }
        #expect(error?.code == .rateLimited)
        #expect(error?.broker == .alpaca)
        #expect((error?.retryAfter ?? 0) > 20)
        #expect(broker.count == 1)
        #expect(pipeline.health(connectionId: connection.id, broker: .alpaca).rateLimitHeadroom == 0)
        #expect(metrics.last(BrokerPipeline.MetricName.rateLimitHeadroom, ["broker": "alpaca"]) == 0)
        #expect(metrics.total(BrokerPipeline.MetricName.requests, ["broker": "alpaca", "operation": "other", "outcome": "rate_limited"]) == 1)
    }

    @Test func theCallersDeadlineBoundsTheWaitNotJustTheRequestTimeout() async throws {
        // The budget is spent until a window that ends in 110 s: the next call's slot is far beyond the caller's second.
        let reset = String(Int(Date().timeIntervalSince1970) + 110)
        let broker = ScriptedTransport { _, _ in
            PipelineFixture.status(
                200,
                [
                    (name: "X-RateLimit-Limit", value: "200"), (name: "X-RateLimit-Remaining", value: "0"),
                    (name: "X-RateLimit-Reset", value: reset),
                ]
            )
        }
        let pipeline = BrokerPipeline(metrics: RecordingMetrics(), settings: PipelineFixture.settings())
        let transport = pipeline.transport(
            wrapping: broker,
            connection: PipelineFixture.connection(),
            limits: [Self.alpacaLike],
            logger: PipelineFixture.logger
        )
        #expect(try await transport.send(PipelineFixture.get()).status == 200)
        // The request itself would wait (its timeout is 30 s), but its caller (a fan-out's source deadline) gives it one second: it
        // fails at once instead of holding a slot it will be cancelled before using.
        // Had it waited for the slot, the one-second deadline would have ended the wait with `upstream_timeout`: the
        // code says the limiter refused before waiting (no wall-clock bound, which a loaded machine could break).
        let error = await #expect(throws: GatewayError.self) {
            try await withDeadline(.seconds(1)) { try await transport.send(PipelineFixture.get(timeout: .seconds(30))) }
        }
        #expect(error?.code == .rateLimited)
        #expect((error?.retryAfter ?? 0) > 20)
        #expect(broker.count == 1)
    }

    /// Issue 26. Before: a budget of one call a second (Saxo's orders) read 0% from the first order until the next
    /// one, however long ago the window ended, and the dashboard showed a healthy broker in amber.
    @Test func headroomIsTheBudgetLeftNowNotAtTheLastCall() {
        let t0 = ContinuousClock.now
        var bucket = RateBucket(limit: 1, window: .seconds(1), reserveShare: 0, now: t0)
        bucket.take(notBefore: t0)
        #expect(bucket.headroom(at: t0) == 0)
        #expect(bucket.headroom(at: t0 + .milliseconds(999)) == 0)
        #expect(bucket.headroom(at: t0 + .seconds(1)) == 1)
    }

    @Test func aWaiterThatIsCancelledGivesItsSlotBack() async throws {
        let limiter = ConnectionRateLimiter(rules: [Self.alpacaLike], settings: PipelineFixture.settings())
        let t0 = ContinuousClock.now
        let request = PipelineFixture.get()
        guard case .go = limiter.reserve(request, now: t0, deadline: t0 + .seconds(60)) else {
            Issue.record("a plentiful budget refused a call")
            return
        }
        let spent = try #require(limiter.headroom)
        #expect(spent < 1)
        limiter.refund(request)
        #expect(limiter.headroom == 1)
    }

    @Test func aTooManyRequestsWithRetryAfterEmptiesTheBucket() async throws {
        let broker = ScriptedTransport { _, _ in
            PipelineFixture.status(429, [(name: "Retry-After", value: "20")])
        }
        let pipeline = BrokerPipeline(metrics: RecordingMetrics(), settings: PipelineFixture.settings())
        let transport = pipeline.transport(
            wrapping: broker,
            connection: PipelineFixture.connection(),
            limits: [RateLimitRule(name: "all", limit: 600, per: .seconds(60))],
            logger: PipelineFixture.logger
        )
        // A read whose Retry-After is beyond what the retry waits for comes back as the 429.
        #expect(try await transport.send(PipelineFixture.get()).status == 429)
        #expect(broker.count == 1)
        let error = await #expect(throws: GatewayError.self) {
            try await transport.send(PipelineFixture.get(timeout: .seconds(2)))
        }
        #expect(error?.code == .rateLimited)
        #expect((error?.retryAfter ?? 0) > 15)
        #expect(broker.count == 1)
    }

    @Test func aTooManyRequestsFromABrokerWithoutDeclaredLimitsPausesTheConnection() async throws {
        let broker = ScriptedTransport { _, _ in PipelineFixture.status(429, [(name: "Retry-After", value: "20")]) }
        let pipeline = BrokerPipeline(metrics: RecordingMetrics(), settings: PipelineFixture.settings())
        let transport = pipeline.transport(
            wrapping: broker,
            connection: PipelineFixture.connection(broker: .tradeogre),
            limits: [],
            logger: PipelineFixture.logger
        )
        #expect(try await transport.send(PipelineFixture.post()).status == 429)
        let error = await #expect(throws: GatewayError.self) {
            try await transport.send(PipelineFixture.get(timeout: .seconds(2)))
        }
        #expect(error?.code == .rateLimited)
        #expect(error?.broker == .tradeogre)
        #expect(broker.count == 1)
    }

    @Test func aShortWaitQueuesTheCallAndCountsTheWait() async throws {
        let broker = ScriptedTransport { attempt, _ in
            attempt == 1
                ? PipelineFixture.status(429, [(name: "Retry-After", value: "0.2")])
                : PipelineFixture.status(200)
        }
        let metrics = RecordingMetrics()
        let pipeline = BrokerPipeline(metrics: metrics, settings: PipelineFixture.settings(maxRetries: 0))
        let transport = pipeline.transport(
            wrapping: broker,
            connection: PipelineFixture.connection(),
            limits: [RateLimitRule(name: "all", limit: 600, per: .seconds(60))],
            logger: PipelineFixture.logger
        )
        #expect(try await transport.send(PipelineFixture.post()).status == 429)
        let start = ContinuousClock.now
        // The 200 ms wait is the subject, not the deadline: 60 s leaves a loaded machine room to queue the call
        // instead of refusing it ("no time left") when its own scheduling eats a 2 s budget.
        #expect(try await transport.send(PipelineFixture.get(timeout: .seconds(60))).status == 200)
        #expect(start.duration(to: .now) >= .milliseconds(150))
        #expect(metrics.total(BrokerPipeline.MetricName.rateLimitWaits, ["broker": "alpaca"]) == 1)
    }

    @Test(arguments: ["inf", "nan", "-5", "1e300", "abc", ""])
    func brokerNumbersNeverTrap(value: String) {
        let limiter = ConnectionRateLimiter(rules: [Self.alpacaLike], settings: PipelineFixture.settings())
        let t0 = ContinuousClock.now
        let request = PipelineFixture.get()
        _ = limiter.reserve(request, now: t0, deadline: t0 + .seconds(5))
        limiter.observe(
            PipelineFixture.status(
                429,
                [
                    (name: "X-RateLimit-Limit", value: value), (name: "X-RateLimit-Remaining", value: value),
                    (name: "X-RateLimit-Reset", value: value), (name: "Retry-After", value: value),
                ]
            ),
            for: request,
            now: t0,
            wallClock: Date()
        )
        _ = limiter.reserve(request, now: t0, deadline: t0 + .seconds(5))
        #expect(limiter.headroom != nil)
    }
}
