import Foundation
import GatewayCore
import GatewayModel
import Synchronization
import Testing

/// A source in a fan-out: how long it takes and whether it fails. A test double, not product code.
struct FakeSource: Sendable {
    var id: String
    var delay: Duration = .zero
    var failure: GatewayError? = nil
    var items: [String] = []
}

@Suite("Router fan-out")
struct BrokerRouterTests {
    func run(_ router: BrokerRouter, _ sources: [FakeSource]) async -> FanOut<String> {
        await router.fanOut(sources, describe: { ($0.id, .alpaca) }) { source in
            if source.delay > .zero { try await Task.sleep(for: source.delay) }
            if let failure = source.failure { throw failure }
            return source.items
        }
    }

    @Test func partialResultsWhenOneSourceFails() async {
        let router = BrokerRouter(perSourceTimeout: .seconds(2), overallTimeout: .seconds(3))
        let result = await run(
            router,
            [
                FakeSource(id: "a", items: ["a1", "a2"]),
                FakeSource(id: "b", failure: GatewayError(.upstreamUnavailable, "down", broker: .alpaca)),
                FakeSource(id: "c", items: ["c1"]),
            ]
        )
        #expect(result.data == ["a1", "a2", "c1"])
        #expect(result.partial)
        #expect(result.sources.map(\.status) == [.ok, .error, .ok])
        #expect(result.sources[1].error?.code == .upstreamUnavailable)
        #expect(result.sources[1].error?.retryable == true)
    }

    @Test func allSourcesOkIsNotPartial() async {
        let result = await run(BrokerRouter(), [FakeSource(id: "a", items: ["x"]), FakeSource(id: "b")])
        #expect(!result.partial)
        #expect(result.sources.allSatisfy { $0.error == nil })
    }

    @Test func aSlowSourceDoesNotHoldTheAnswerPastItsTimeout() async {
        // 2 s leaves the fast source room on a fully loaded machine; the slow one would take 120 s.
        let router = BrokerRouter(perSourceTimeout: .seconds(2), overallTimeout: .seconds(5))
        let clock = ContinuousClock()
        let start = clock.now
        let result = await run(
            router,
            [
                FakeSource(id: "fast", delay: .milliseconds(10), items: ["f"]),
                FakeSource(id: "slow", delay: .seconds(120), items: ["s"]),
            ]
        )
        let elapsed = clock.now - start
        // Bounded by the timeout, not by the 120 s source; the margin absorbs a fully loaded 2-core test machine.
        #expect(elapsed < .seconds(40), "took \(elapsed)")
        #expect(elapsed >= .seconds(2))
        #expect(result.data == ["f"])
        #expect(result.sources[1].error?.code == .upstreamTimeout)
        #expect(result.sources[1].latencyMs >= 2000)
    }

    @Test func theOverallDeadlineBoundsEverySource() async {
        let router = BrokerRouter(perSourceTimeout: .seconds(30), overallTimeout: .milliseconds(200))
        let clock = ContinuousClock()
        let start = clock.now
        let result = await run(router, [FakeSource(id: "a", delay: .seconds(120)), FakeSource(id: "b", delay: .seconds(120))])
        // Far below the sources' 120 s: the margin absorbs a fully loaded 2-core test machine.
        #expect(clock.now - start < .seconds(40))
        #expect(result.sources.allSatisfy { $0.error?.code == .upstreamTimeout })
    }

    @Test func resultsComeInTheOrderOfTheSourcesNotOfArrival() async {
        let router = BrokerRouter(perSourceTimeout: .seconds(5), overallTimeout: .seconds(5))
        let sources = (0..<6).map { index in
            FakeSource(id: "s\(index)", delay: .milliseconds(10 * (6 - index)), items: ["item\(index)"])
        }
        let result = await run(router, sources)
        #expect(result.data == (0..<6).map { "item\($0)" })
        #expect(result.sources.map(\.connection) == (0..<6).map { "s\($0)" })
    }

    @Test func theSourcesRunConcurrently() async {
        // Every source waits until all eight have started: run one after another, the first would wait until its
        // timeout and every source would fail; run together, all answer. No wall clock is involved.
        let router = BrokerRouter(perSourceTimeout: .seconds(60), overallTimeout: .seconds(60))
        let barrier = StartBarrier(parties: 8)
        let result = await router.fanOut((0..<8).map { "s\($0)" }, describe: { ($0, .alpaca) }) { id in
            await barrier.arriveAndWait()
            return [id]
        }
        #expect(result.sources.allSatisfy { $0.error == nil }, "\(result.sources.compactMap(\.error))")
        #expect(result.data == (0..<8).map { "s\($0)" })
    }

    @Test func cancellingTheCallerCancelsEveryChild() async throws {
        let router = BrokerRouter(perSourceTimeout: .seconds(30), overallTimeout: .seconds(30))
        let started = AsyncStream<Void>.makeStream()
        let cancelled = Mutex(0)
        let task = Task {
            await router.fanOut(["a", "b", "c"], describe: { ($0, .saxo) }) { (_: String) -> [Int] in
                try await withTaskCancellationHandler {
                    started.continuation.yield()
                    try await Task.sleep(for: .seconds(120))
                    return [1]
                } onCancel: {
                    cancelled.withLock { $0 += 1 }
                }
            }
        }
        var count = 0
        for await _ in started.stream {
            count += 1
            if count == 3 { break }
        }
        let clock = ContinuousClock()
        let start = clock.now
        task.cancel()
        let result = await task.value
        #expect(clock.now - start < .seconds(40))
        #expect(cancelled.withLock { $0 } == 3)
        #expect(result.data.isEmpty)
        #expect(result.partial)
    }

    @Test func unexpectedErrorsBecomeSourceErrorsNotCrashes() async {
        struct Weird: Error {}
        let result = await BrokerRouter().fanOut([1], describe: { _ in ("x", .tradeit) }) { (_: Int) -> [Int] in throw Weird() }
        #expect(result.sources.first?.error?.code == .internalError)
    }
}

/// Lets tasks through only once `parties` of them have arrived.
final class StartBarrier: Sendable {
    private let state: Mutex<(arrived: Int, waiting: [CheckedContinuation<Void, Never>])>
    private let parties: Int

    init(parties: Int) {
        self.parties = parties
        state = Mutex((0, []))
    }

    func arriveAndWait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.arrived += 1
                state.waiting.append(continuation)
                guard state.arrived >= parties else { return [] }
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in released { waiter.resume() }
        }
    }
}
