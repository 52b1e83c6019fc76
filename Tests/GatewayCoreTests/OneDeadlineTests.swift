import Foundation
import GatewayModel
import GatewayTesting
import HTTPTypes
import HostileBroker
import Synchronization
import Testing

@testable import GatewayCore

/// One deadline per broker call (issue 29): the router binds it and watches it with one timer per source; the
/// pipeline and the transport read it and start no timer of their own unless nothing above enforces it. Each test
/// has a broker that would hold the call far longer than its deadline, so a layer that ignored the deadline would
/// show as a wrong outcome or a call that is stuck (the elapsed-time bounds only say "not stuck": they are tens of
/// seconds, against deadlines of a fraction of one and brokers of minutes).
@Suite("One deadline per broker call: router, pipeline and transport")
struct OneDeadlineTests {
    static let loopback = EgressPolicy(allowing: ["127.0.0.0/8", "::1"].compactMap(IPRange.init))
    /// Far beyond every deadline here: a call that waits for it is stuck.
    static let never = Duration.seconds(120)
    /// What the tests allow before calling a call stuck: far below `never`, far above the deadlines.
    static let notStuck = Duration.seconds(40)

    func pipelined(
        _ transport: any BrokerTransport,
        settings: PipelineSettings = PipelineFixture.settings(),
        limits: [RateLimitRule] = []
    ) -> any BrokerTransport {
        BrokerPipeline(metrics: RecordingMetrics(), settings: settings)
            .transport(wrapping: transport, connection: PipelineFixture.connection(), limits: limits, logger: PipelineFixture.logger)
    }

    /// A broker client that ignores cancellation: it answers 200 regardless, and only once its call has been
    /// cancelled, so its answer always comes after the deadline that cancelled it.
    static func answeringLateDespiteCancellation() -> ScriptedTransport {
        let gate = UncancellableGate()
        return ScriptedTransport { _, _ in
            await withTaskCancellationHandler {
                await gate.wait()
            } onCancel: {
                gate.open()
            }
            return PipelineFixture.status(200)
        }
    }

    /// Reads one status per source through `transport`, each call with the request timeout given.
    func fanOut(
        _ router: BrokerRouter,
        _ sources: [String],
        through transport: any BrokerTransport,
        timeout: Duration = never
    ) async -> FanOut<Int> {
        await router.fanOut(sources, describe: { ($0, .alpaca) }) { source in
            [try await transport.send(PipelineFixture.get("/v2/positions/\(source)", timeout: timeout)).status]
        }
    }

    @Test(
        "a broker that never answers (honouring cancellation) is cancelled at the source's deadline: upstream_timeout, no retry",
        .timeLimit(.minutes(1))
    )
    func neverAnswersButHonoursCancellation() async {
        let cancelled = Mutex(0)
        let broker = ScriptedTransport { _, _ in
            try await withTaskCancellationHandler {
                try await Task.sleep(for: Self.never)
                return PipelineFixture.status(200)
            } onCancel: {
                cancelled.withLock { $0 += 1 }
            }
        }
        let router = BrokerRouter(perSourceTimeout: .milliseconds(300), overallTimeout: .seconds(5))
        let clock = ContinuousClock()
        let start = clock.now
        // The request's own timeout is the broker's two minutes: only the router's deadline can end the call.
        let result = await fanOut(router, ["hung"], through: pipelined(broker))
        #expect(clock.now - start < Self.notStuck)
        #expect(result.data.isEmpty)
        let hung = result.sources[0]
        #expect(hung.status == .error)
        #expect(hung.error?.code == .upstreamTimeout)
        #expect(hung.error?.retryable == true)
        #expect(hung.served == nil)
        #expect(hung.latencyMs >= 300)
        // The call was cancelled at the deadline, and not retried (the pipeline retries timeouts of reads, never past
        // the deadline). On a starved machine the deadline can pass before the call reaches the broker at all: then
        // nothing was sent, and the outcome is the same.
        #expect(broker.count <= 1)
        #expect(cancelled.withLock { $0 } == broker.count)
    }

    @Test(
        "a broker client that ignores cancellation: its answer after the deadline is still the source's upstream_timeout",
        .timeLimit(.minutes(1))
    )
    func ignoresCancellation() async {
        let broker = Self.answeringLateDespiteCancellation()
        let router = BrokerRouter(perSourceTimeout: .milliseconds(300), overallTimeout: .seconds(5))
        // The router's timer cancels the source; only then does the broker answer 200, late. (Were the machine so
        // starved that the deadline passed before the call reached the broker, nothing would be sent: the same
        // outcome.)
        let result = await fanOut(router, ["a"], through: pipelined(broker))
        #expect(result.data.isEmpty)
        #expect(result.sources.first?.status == .error)
        #expect(result.sources.first?.error?.code == .upstreamTimeout)
        #expect((result.sources.first?.latencyMs ?? 0) >= 300)
        #expect(broker.count <= 1)
    }

    @Test(
        "with no deadline above it, a call that ignores cancellation still ends as upstream_timeout at its own timeout",
        .timeLimit(.minutes(1))
    )
    func ignoresCancellationWithNoRouter() async {
        let broker = Self.answeringLateDespiteCancellation()
        let transport = pipelined(broker, settings: PipelineFixture.settings(maxRetries: 0))
        // The pipeline's backstop cancels the call at its own timeout; only then does the broker answer 200, late.
        let call: Result<BrokerResponse, GatewayError>
        do {
            call = .success(try await transport.send(PipelineFixture.get(timeout: .milliseconds(200))))
        } catch {
            call = .failure(BrokerRouter.gatewayErrorForReport(error))
        }
        #expect(broker.count <= 1)
        guard case .failure(let error) = call else {
            Issue.record("an answer after the call's deadline was taken")
            return
        }
        #expect(error.code == .upstreamTimeout)
    }

    @Test("a request timeout shorter than the router's budget ends the call at its own deadline, not the router's")
    func ownTimeoutInsideALongerBudget() async {
        let broker = ScriptedTransport { _, _ in
            try await Task.sleep(for: Self.never)
            return PipelineFixture.status(200)
        }
        let router = BrokerRouter(perSourceTimeout: .seconds(60), overallTimeout: .seconds(60))
        let clock = ContinuousClock()
        let start = clock.now
        let result = await fanOut(router, ["a"], through: pipelined(broker), timeout: .milliseconds(200))
        // Had the pipeline trusted the router's watch for its own earlier deadline, this would take the router's 60 s.
        #expect(clock.now - start < .seconds(30))
        #expect(result.sources.first?.error?.code == .upstreamTimeout)
        #expect((result.sources.first?.latencyMs ?? .max) < 30_000)
    }

    @Test("a rate-limit slot beyond the source's deadline fails at once as rate_limited, not as a wait cut by the router")
    func rateLimitWaitLongerThanTheDeadline() async throws {
        // No declared limits: a 429 with Retry-After pauses the connection for 20 s.
        let broker = ScriptedTransport { number, _ in
            number == 1 ? PipelineFixture.status(429, [(name: "Retry-After", value: "20")]) : PipelineFixture.status(200)
        }
        let transport = pipelined(broker, settings: PipelineFixture.settings(maxRetries: 0))
        #expect(try await transport.send(PipelineFixture.get()).status == 429)
        // The request would wait (its timeout is 120 s); the router's 2 s, read by the limiter, refuses the wait.
        let result = await fanOut(BrokerRouter(perSourceTimeout: .seconds(2), overallTimeout: .seconds(5)), ["a"], through: transport)
        let report = try #require(result.sources.first)
        #expect(report.status == .error)
        #expect(report.error?.code == .rateLimited)
        #expect(report.error?.retryable == true)
        #expect((report.error?.retryAfter ?? 0) > 10)
        #expect(broker.count == 1)
    }

    @Test(
        "the transport reads the scope's deadline: a watched one goes to AsyncHTTPClient, an unwatched one gets its backstop",
        .timeLimit(.minutes(1))
    )
    func transportReadsTheScope() async throws {
        let body = [UInt8](repeating: 0x20, count: 1000)
        let script: HostileBroker.Script = { request in
            request.path == "/silence" ? .silence : .stalledBody(status: 200, headers: [], body: body, sent: 10)
        }
        try await HostileBroker.withBroker(script) { broker in
            let transport = HTTPClientTransport(policy: Self.loopback)
            // (path, watched): a watched binding here has no watcher behind it, so only AsyncHTTPClient's deadline,
            // taken from the scope, can end the silence; an unwatched one must get the transport's own backstop at the
            // scope's deadline, since AsyncHTTPClient's deadline ends with the head and the body stalls after it.
            for (path, watched) in [("/silence", true), ("/stalled", false)] {
                let request = BrokerRequest(method: .get, url: broker.url + path, timeout: Self.never, loggedPath: path)
                let clock = ContinuousClock()
                let start = clock.now
                let deadline = start + .milliseconds(300)
                let binding = DeadlineScope.Binding(deadline: deadline, watchedUntil: watched ? deadline : nil)
                let error = await #expect(throws: GatewayError.self) {
                    try await DeadlineScope.$binding.withValue(binding) { try await transport.send(request) }
                }
                #expect(clock.now - start < Self.notStuck, "\(path)")
                #expect(error?.code == .upstreamTimeout, "\(path): \(String(describing: error))")
                // AsyncHTTPClient's deadline, not a timer of the transport's ("no answer within …"), ended the call.
                if watched { #expect(error?.message.contains("did not answer") == true, "\(String(describing: error))") }
            }
        }
    }

    @Test(
        "a body that stalls after its head is cut by the router's deadline (AsyncHTTPClient's covers only the head)",
        .timeLimit(.minutes(1))
    )
    func stalledBodyUnderTheRouter() async throws {
        let body = [UInt8](repeating: 0x20, count: 1000)
        try await HostileBroker.withBroker({ _ in .stalledBody(status: 200, headers: [], body: body, sent: 10) }) { broker in
            let transport = pipelined(OriginSwap(base: HTTPClientTransport(policy: Self.loopback), url: broker.url))
            let clock = ContinuousClock()
            let start = clock.now
            let result = await fanOut(BrokerRouter(perSourceTimeout: .milliseconds(500), overallTimeout: .seconds(5)), ["a"], through: transport)
            #expect(clock.now - start < Self.notStuck)
            #expect(result.sources.first?.error?.code == .upstreamTimeout)
            #expect((result.sources.first?.latencyMs ?? 0) >= 500)
        }
    }

    @Test("the watch is known where it is: inside withDeadline and a fan-out, not for an earlier deadline of one's own")
    func theWatchIsKnownWhereItIs() async throws {
        #expect(DeadlineScope.current == nil)
        #expect(!DeadlineScope.isWatched(until: .now + .seconds(3600)))
        let inside = try await withDeadline(.seconds(60)) {
            let deadline = try #require(DeadlineScope.current)
            return (
                own: DeadlineScope.isWatched(until: deadline),
                later: DeadlineScope.isWatched(until: deadline + .seconds(1)),
                earlier: DeadlineScope.isWatched(until: DeadlineScope.deadline(within: .seconds(1))),
                nested: await Self.nestedLater()
            )
        }
        #expect(inside.own)
        #expect(inside.later)
        #expect(!inside.earlier)
        // A later nested deadline keeps the earlier one, and its watch.
        #expect(inside.nested)
        let router = BrokerRouter(perSourceTimeout: .seconds(60), overallTimeout: .seconds(60))
        let watched = await router.fanOut(["a", "b"], describe: { ($0, .alpaca) }) { _ in
            [DeadlineScope.current.map { DeadlineScope.isWatched(until: $0) } ?? false]
        }
        #expect(watched.data == [true, true])
    }

    static func nestedLater() async -> Bool {
        guard let outer = DeadlineScope.current else { return false }
        return (try? await withDeadline(.seconds(600)) { DeadlineScope.current == outer && DeadlineScope.isWatched(until: outer) }) ?? false
    }
}

/// Sends every request to `url` with the path kept: the pipeline's fixtures name `https://broker.test`, and
/// the hostile broker listens on loopback.
struct OriginSwap: BrokerTransport {
    let base: HTTPClientTransport
    let url: String

    func send(_ request: BrokerRequest) async throws -> BrokerResponse {
        var request = request
        request.url = url + request.loggedPath
        return try await base.send(request)
    }
}

/// A door that a scripted broker waits at without regard to cancellation (a client library that ignores it), until
/// the test opens it.
final class UncancellableGate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume() }
    }
}
