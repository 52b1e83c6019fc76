import Foundation
import GatewayCore
import Synchronization
import Testing

@testable import GatewayApp

@Suite("Limits per tenant and per key")
struct TenantLimitsTests {
    let t0 = ContinuousClock.now

    @Test("a tenant's bucket admits its burst, then refuses with the time until the next token")
    func tenantBucket() {
        let limiter = RequestLimiter(
            limits: TenantLimits(
                tenantRequestsPerSecond: 2,
                tenantBurst: 3,
                keyRequestsPerSecond: 100,
                keyBurst: 100
            )
        )
        for _ in 0..<3 { #expect(limiter.admit(tenantId: "t1", keyId: "k1", now: t0) == nil) }
        let wait = limiter.admit(tenantId: "t1", keyId: "k1", now: t0)
        #expect(wait != nil)
        #expect(abs((wait ?? 0) - 0.5) < 0.001, "one token comes back every 0.5 s at 2/s")
        // Another tenant is not touched by the first one's empty bucket.
        #expect(limiter.admit(tenantId: "t2", keyId: "k2", now: t0) == nil)
        // Half a second later one token is back, and only one.
        #expect(limiter.admit(tenantId: "t1", keyId: "k1", now: t0 + .milliseconds(500)) == nil)
        #expect(limiter.admit(tenantId: "t1", keyId: "k1", now: t0 + .milliseconds(500)) != nil)
    }

    @Test("a key's bucket is its own: one spent key does not stop the tenant's other key")
    func keyBucket() {
        let limiter = RequestLimiter(
            limits: TenantLimits(
                tenantRequestsPerSecond: 100,
                tenantBurst: 100,
                keyRequestsPerSecond: 1,
                keyBurst: 2
            )
        )
        #expect(limiter.admit(tenantId: "t1", keyId: "k1", now: t0) == nil)
        #expect(limiter.admit(tenantId: "t1", keyId: "k1", now: t0) == nil)
        #expect(limiter.admit(tenantId: "t1", keyId: "k1", now: t0) != nil)
        #expect(limiter.admit(tenantId: "t1", keyId: "k2", now: t0) == nil)
    }

    @Test("a refused request takes no token from either bucket")
    func refusalTakesNothing() {
        let limiter = RequestLimiter(
            limits: TenantLimits(
                tenantRequestsPerSecond: 1,
                tenantBurst: 2,
                keyRequestsPerSecond: 1,
                keyBurst: 1
            )
        )
        #expect(limiter.admit(tenantId: "t1", keyId: "k1", now: t0) == nil)
        // The key is empty: refused, and the tenant keeps its second token for another key.
        #expect(limiter.admit(tenantId: "t1", keyId: "k1", now: t0) != nil)
        #expect(limiter.admit(tenantId: "t1", keyId: "k2", now: t0) == nil)
        #expect(limiter.admit(tenantId: "t1", keyId: "k3", now: t0) != nil)
    }

    @Test("buckets left full are dropped once there are many, so memory stays bounded")
    func bucketsAreBounded() {
        let limiter = RequestLimiter(limits: TenantLimits(tenantRequestsPerSecond: 1000, tenantBurst: 1, keyRequestsPerSecond: 1000, keyBurst: 1))
        for index in 0...(RequestLimiter.pruneThreshold + 10) {
            _ = limiter.admit(tenantId: "t\(index)", keyId: nil, now: t0)
        }
        // A second later every bucket is full again: the next admission prunes them all but its own.
        _ = limiter.admit(tenantId: "fresh", keyId: nil, now: t0 + .seconds(1))
        #expect(limiter.bucketCount <= 2)
    }

    @Test("a tenant's reads beyond its slots wait for one, while another tenant's go at once")
    func fanOutSlots() async throws {
        let gate = FanOutGate(limit: 1)
        let held = HeldCall()
        async let first: [Int] = gate.run(tenantId: "t1", wait: .seconds(60)) { await held.run([1]) }
        await eventually("the first read holds the tenant's slot") { gate.inFlight(tenantId: "t1") == 1 && held.calls == 1 }
        async let second: [Int] = gate.run(tenantId: "t1", wait: .seconds(60)) { await held.run([2]) }
        await eventually("the second read waits in the queue") { gate.waiting(tenantId: "t1") == 1 }
        // Another tenant is not behind the first tenant's queue.
        let other = try await gate.run(tenantId: "t2", wait: .seconds(60)) { [3] }
        #expect(other == [3])
        #expect(held.calls == 1, "the second read of t1 has not started while the first holds the slot")
        held.release()
        #expect(try await first == [1])
        #expect(try await second == [2])
        #expect(gate.inFlight(tenantId: "t1") == 0)
    }

    @Test("a read that finds no slot before its deadline is refused with 429, and gives nothing back twice")
    func fanOutWaitRunsOut() async throws {
        let gate = FanOutGate(limit: 1)
        let held = HeldCall()
        async let first: [Int] = gate.run(tenantId: "t1", wait: .seconds(60)) { await held.run([1]) }
        await eventually("the first read holds the slot") { held.calls == 1 }
        let error = await #expect(throws: GatewayError.self) {
            try await gate.run(tenantId: "t1", wait: .milliseconds(50)) { [2] }
        }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter != nil)
        #expect(gate.waiting(tenantId: "t1") == 0)
        held.release()
        #expect(try await first == [1])
        #expect(gate.inFlight(tenantId: "t1") == 0)
        // The slot is free again for the next read.
        #expect(try await gate.run(tenantId: "t1", wait: .milliseconds(50)) { [4] } == [4])
    }
}
