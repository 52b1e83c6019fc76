import Foundation
import GatewayModel
import GatewayTesting
import Testing

@testable import GatewayCore

@Suite("Rate limits a broker reports: bounded and never blocking")
struct HostileRateLimitTests {
    @Test("a huge limit reported without a count keeps the window's spending, and the calls go on")
    func hugeLimitWithoutCount() async throws {
        let transport = ScriptedTransport { _, _ in
            BrokerResponse(status: 200, headers: [(name: "X-RateLimit-Limit", value: "1e300")], body: Data("{}".utf8))
        }
        let pipeline = BrokerPipeline(settings: PipelineSettings(maxRetries: 0))
        let chain = pipeline.transport(
            wrapping: transport,
            connection: PipelineFixture.connection(),
            limits: [RateLimitRule(name: "requests", limit: 200, per: .seconds(60), headers: .alpaca)],
            logger: PipelineFixture.logger
        )
        for _ in 0..<5 {
            let response = try await chain.send(PipelineFixture.get(timeout: .seconds(2)))
            #expect(response.status == 200)
        }
        #expect(transport.count == 5)
    }

    @Test("a reported budget far above the prior drops the prior's pacing: the next slot is now, not seconds away")
    func reportedBudgetReplacesThePriorsPacing() {
        let t0 = ContinuousClock.now
        var bucket = RateBucket(limit: 200, window: .seconds(60), reserveShare: 0.05, burstLimit: 5, now: t0)
        for _ in 0..<8 { bucket.take(notBefore: t0) }
        #expect(bucket.slot(after: t0) > t0 + .seconds(1))
        bucket.observe(limit: 1_000_000, remaining: 999_992, windowEnd: t0 + .seconds(50), now: t0)
        #expect(bucket.slot(after: t0) == t0)
    }
}
