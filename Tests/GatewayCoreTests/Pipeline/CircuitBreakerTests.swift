import Foundation
import Testing

@testable import GatewayCore

@Suite("Broker pipeline: the circuit breaker's failure ratio")
struct CircuitBreakerTests {
    /// Only the ratio opens it here: runs of failures are never long enough.
    static let settings = PipelineSettings(
        breakerConsecutiveFailures: 1000,
        breakerFailureRatio: 0.5,
        breakerMinimumCalls: 20,
        breakerWindow: .seconds(60)
    )

    @Test func halfTheCallsFailingInTheWindowOpensIt() {
        var breaker = CircuitBreaker(settings: Self.settings)
        let t0 = ContinuousClock.now
        for call in 0..<19 {
            breaker.record(call.isMultiple(of: 2) ? .failure : .success, probe: false, now: t0 + .milliseconds(call * 10), wallClock: Date())
        }
        // 19 calls, 10 failures: under the minimum count of calls.
        #expect(breaker.state == .closed)
        breaker.record(.success, probe: false, now: t0 + .milliseconds(190), wallClock: Date())
        // 20 calls, 10 failures: half.
        #expect(breaker.state == .open)
    }

    @Test func outcomesOlderThanTheWindowDoNotCount() {
        var breaker = CircuitBreaker(settings: Self.settings)
        let t0 = ContinuousClock.now
        for call in 0..<19 {
            breaker.record(call.isMultiple(of: 2) ? .failure : .success, probe: false, now: t0 + .milliseconds(call * 10), wallClock: Date())
        }
        // A minute and more later, the 19 earlier calls have left the window: 1 call, not 20 with half failed.
        breaker.record(.success, probe: false, now: t0 + .seconds(62), wallClock: Date())
        #expect(breaker.state == .closed)
        // And the window counts again from there: 20 more calls, half failing, open it.
        for call in 0..<20 {
            breaker.record(
                call.isMultiple(of: 2) ? .failure : .success,
                probe: false,
                now: t0 + .seconds(63) + .milliseconds(call * 10),
                wallClock: Date()
            )
        }
        #expect(breaker.state == .open)
    }

    @Test func aLongRunOfSuccessesKeepsTheRatioLow() {
        var breaker = CircuitBreaker(settings: Self.settings)
        let t0 = ContinuousClock.now
        // 50,000 calls over 50 s (a busy connection), a fifth failing, never two in a row: closed throughout.
        for call in 0..<50_000 {
            breaker.record(call % 5 == 0 ? .failure : .success, probe: false, now: t0 + .milliseconds(call), wallClock: Date())
        }
        #expect(breaker.state == .closed)
    }
}
