import Foundation
import GatewayModel
import GatewayTesting
import HTTPTypes
import Synchronization
import Testing

@testable import GatewayCore

@Suite("Broker pipeline: breaker, retries, deadline, metrics, health")
struct BrokerPipelineTests {
    func pipelined(
        _ transport: ScriptedTransport,
        settings: PipelineSettings = PipelineFixture.settings(),
        limits: [RateLimitRule] = [],
        metrics: RecordingMetrics = RecordingMetrics(),
        connection: ConnectionDescriptor = PipelineFixture.connection()
    ) -> (transport: any BrokerTransport, pipeline: BrokerPipeline, connection: ConnectionDescriptor) {
        let pipeline = BrokerPipeline(metrics: metrics, settings: settings)
        let wrapped = pipeline.transport(
            wrapping: transport,
            connection: connection,
            limits: limits,
            logger: PipelineFixture.logger
        )
        return (wrapped, pipeline, connection)
    }

    @Test func breakerOpensAfterConsecutiveFailuresAndFailsFastWithoutCallingTheBroker() async throws {
        let broker = ScriptedTransport { _, _ in PipelineFixture.status(503) }
        let metrics = RecordingMetrics()
        let (transport, pipeline, connection) = pipelined(
            broker,
            settings: PipelineFixture.settings(consecutive: 3, coolDown: .seconds(30), maxRetries: 0),
            metrics: metrics
        )
        for _ in 0..<3 { #expect(try await transport.send(PipelineFixture.get()).status == 503) }
        #expect(broker.count == 3)

        let error = await #expect(throws: GatewayError.self) { try await transport.send(PipelineFixture.get()) }
        #expect(error?.code == .upstreamUnavailable)
        #expect(error?.retryable == true)
        #expect(error?.broker == .alpaca)
        #expect((error?.retryAfter ?? 0) > 25)
        #expect(error?.message.contains("breaker") == true)
        #expect(broker.count == 3)

        let health = pipeline.health(connectionId: connection.id, broker: .alpaca)
        #expect(health.breaker == .open)
        #expect(health.breakerSince != nil)
        #expect(metrics.last(BrokerPipeline.MetricName.breakerOpenConnections, ["broker": "alpaca"]) == 1)
        #expect(
            metrics.total(BrokerPipeline.MetricName.requests, ["broker": "alpaca", "operation": "other", "outcome": "upstream_unavailable"]) == 4
        )
    }

    @Test func fourHundredsAndTooManyRequestsDoNotOpenTheBreaker() async throws {
        let broker = ScriptedTransport { attempt, _ in PipelineFixture.status(attempt % 2 == 0 ? 404 : 429) }
        let (transport, pipeline, connection) = pipelined(
            broker,
            settings: PipelineFixture.settings(consecutive: 2, maxRetries: 0)
        )
        for _ in 0..<6 { _ = try await transport.send(PipelineFixture.post()) }
        #expect(broker.count == 6)
        #expect(pipeline.health(connectionId: connection.id, broker: .alpaca).breaker == .closed)
    }

    @Test func halfOpenLetsExactlyOneProbeThroughAndItsSuccessCloses() async throws {
        let healthy = Mutex(false)
        let (gate, release) = AsyncStream.makeStream(of: Void.self)
        let (probeStarted, started) = AsyncStream.makeStream(of: Void.self)
        let broker = ScriptedTransport { _, _ in
            guard healthy.withLock({ $0 }) else { return PipelineFixture.status(503) }
            started.yield()
            for await _ in gate { break }
            return PipelineFixture.status(200)
        }
        let settings = PipelineFixture.settings(consecutive: 2, coolDown: .milliseconds(100), maxRetries: 0)
        let (transport, pipeline, connection) = pipelined(broker, settings: settings)
        for _ in 0..<2 { _ = try await transport.send(PipelineFixture.get()) }
        #expect(pipeline.health(connectionId: connection.id, broker: .alpaca).breaker == .open)
        healthy.withLock { $0 = true }
        try await Task.sleep(for: .milliseconds(150))  // the configured cool-down, not a stand-in for an event

        async let probe = transport.send(PipelineFixture.get())
        for await _ in probeStarted { break }
        #expect(pipeline.health(connectionId: connection.id, broker: .alpaca).breaker == .halfOpen)
        // While the probe is out, every other call fails at once.
        let other = await #expect(throws: GatewayError.self) { try await transport.send(PipelineFixture.get()) }
        #expect(other?.code == .upstreamUnavailable)
        #expect(broker.count == 3)
        release.yield()
        #expect(try await probe.status == 200)
        #expect(pipeline.health(connectionId: connection.id, broker: .alpaca).breaker == .closed)
        release.finish()
        #expect(try await transport.send(PipelineFixture.get()).status == 200)
    }

    @Test func aFailedProbeOpensTheBreakerAgain() async throws {
        let broker = ScriptedTransport { _, _ in throw GatewayError(.upstreamUnavailable, "refused") }
        let settings = PipelineFixture.settings(consecutive: 2, coolDown: .milliseconds(80), maxRetries: 0)
        let (transport, pipeline, connection) = pipelined(broker, settings: settings)
        for _ in 0..<2 { await #expect(throws: GatewayError.self) { try await transport.send(PipelineFixture.get()) } }
        try await Task.sleep(for: .milliseconds(120))
        await #expect(throws: GatewayError.self) { try await transport.send(PipelineFixture.get()) }
        #expect(broker.count == 3)
        #expect(pipeline.health(connectionId: connection.id, broker: .alpaca).breaker == .open)
        let fast = await #expect(throws: GatewayError.self) { try await transport.send(PipelineFixture.get()) }
        #expect(fast?.message.contains("breaker") == true)
        #expect(broker.count == 3)
    }

    @Test func readsAreRetriedOn503AndSucceed() async throws {
        let broker = ScriptedTransport { attempt, _ in PipelineFixture.status(attempt < 3 ? 503 : 200) }
        let metrics = RecordingMetrics()
        let (transport, pipeline, connection) = pipelined(broker, metrics: metrics)
        let response = try await BrokerOperationScope.$current.withValue("positions") {
            try await transport.send(PipelineFixture.get())
        }
        #expect(response.status == 200)
        #expect(broker.count == 3)
        #expect(metrics.total(BrokerPipeline.MetricName.retries, ["broker": "alpaca"]) == 2)
        #expect(metrics.total(BrokerPipeline.MetricName.upstreamCalls, ["broker": "alpaca"]) == 3)
        #expect(metrics.total(BrokerPipeline.MetricName.requests, ["broker": "alpaca", "operation": "positions", "outcome": "ok"]) == 1)
        #expect(metrics.count(BrokerPipeline.MetricName.requestDuration, ["broker": "alpaca", "operation": "positions"]) == 1)
        let health = pipeline.health(connectionId: connection.id, broker: .alpaca)
        #expect(health.calls == 3)
        #expect(health.errors == 2)
        #expect(health.breaker == .closed)
        #expect(health.lastSuccessAt != nil)
    }

    @Test func transportFailuresOfReadsAreRetriedAtMostTwice() async throws {
        let broker = ScriptedTransport { _, _ in throw GatewayError(.upstreamTimeout, "slow") }
        let (transport, _, _) = pipelined(broker, settings: PipelineFixture.settings(consecutive: 10))
        let error = await #expect(throws: GatewayError.self) { try await transport.send(PipelineFixture.get()) }
        #expect(error?.code == .upstreamTimeout)
        #expect(broker.count == 3)
    }

    @Test(arguments: [503, 502, 504])
    func aWriteIsNeverRetried(status: Int) async throws {
        let broker = ScriptedTransport { _, _ in PipelineFixture.status(status) }
        let (transport, _, _) = pipelined(broker, settings: PipelineFixture.settings(consecutive: 10))
        #expect(try await transport.send(PipelineFixture.post()).status == status)
        #expect(broker.count == 1)

        let failing = ScriptedTransport { _, _ in throw GatewayError(.upstreamUnavailable, "reset") }
        let (other, _, _) = pipelined(failing, settings: PipelineFixture.settings(consecutive: 10))
        await #expect(throws: GatewayError.self) { try await other.send(PipelineFixture.post()) }
        #expect(failing.count == 1)
    }

    @Test func aReadMarkedNotIdempotentIsNotRetriedAndAPostReadIs() async throws {
        let broker = ScriptedTransport { attempt, _ in PipelineFixture.status(attempt == 1 ? 503 : 200) }
        let (transport, _, _) = pipelined(broker)
        var read = PipelineFixture.post("/api/v2/position/getPositions")
        read.idempotent = true  // TradeIt: reads are POSTs
        #expect(try await transport.send(read).status == 200)
        #expect(broker.count == 2)
    }

    @Test func aRetryNeverGoesPastTheDeadline() async throws {
        // The deadline is the subject, so it is measured against the broker's hint rather than the wall clock of a
        // loaded machine: a broker that asks for 60 s before a retry, on a call with 30 s in all, is answered at once
        // with no retry. The 30 s only bound how long the one attempt may take, and a busy machine meets that.
        var honoursLongHints = PipelineFixture.settings()
        honoursLongHints.retryAfterLimit = .seconds(120)
        let late = ScriptedTransport { _, _ in PipelineFixture.status(503, [(name: "Retry-After", value: "60")]) }
        let (transport, _, _) = pipelined(late, settings: honoursLongHints)
        #expect(try await transport.send(PipelineFixture.get(timeout: .seconds(30))).status == 503)
        #expect(late.count == 1)
        // With time to spare (400 ms asked, 120 s given: room for a loaded machine), the same answers are retried twice.
        let soon = ScriptedTransport { _, _ in PipelineFixture.status(503, [(name: "Retry-After", value: "0.4")]) }
        let (patient, _, _) = pipelined(soon, settings: honoursLongHints)
        #expect(try await patient.send(PipelineFixture.get(timeout: .seconds(120))).status == 503)
        #expect(soon.count == 3)
    }

    @Test func theCallNeverOutlivesItsTimeout() async throws {
        let broker = ScriptedTransport { _, _ in
            try await Task.sleep(for: .seconds(120))
            return PipelineFixture.status(200)
        }
        let (transport, _, _) = pipelined(broker, settings: PipelineFixture.settings(maxRetries: 0))
        let start = ContinuousClock.now
        let error = await #expect(throws: GatewayError.self) {
            try await transport.send(PipelineFixture.get(timeout: .milliseconds(100)))
        }
        #expect(error?.code == .upstreamTimeout)
        // Far below the broker's 120 s: the margin absorbs a fully loaded 2-core test machine.
        #expect(start.duration(to: .now) < .seconds(40))
    }

    @Test func healthKeepsRecentErrorsNewestFirstAndForgetDropsTheConnection() async throws {
        let broker = ScriptedTransport { attempt, _ in
            attempt <= 12 ? PipelineFixture.status(500) : PipelineFixture.status(200)
        }
        let (transport, pipeline, connection) = pipelined(
            broker,
            settings: PipelineFixture.settings(consecutive: 100, maxRetries: 0)
        )
        for index in 0..<13 { _ = try await transport.send(PipelineFixture.post("/v2/orders/\(index)")) }
        let health = pipeline.health(connectionId: connection.id, broker: .alpaca)
        #expect(health.calls == 13)
        #expect(health.errors == 12)
        #expect(health.recentErrors.count == 10)
        #expect(health.recentErrors.first?.call == "POST /v2/orders/11")
        #expect(health.lastError?.code == .upstreamUnavailable)
        #expect(health.slices.count == 30)
        #expect(health.slices.map(\.calls).reduce(0, +) == 13)  // one slice, or two across a boundary
        #expect(health.p50Ms != nil)
        #expect(health.p99Ms != nil)
        #expect(abs(health.errorRate - 12.0 / 13.0) < 1e-9)

        pipeline.forget(connectionId: connection.id)
        #expect(pipeline.health(connectionId: connection.id, broker: .alpaca).calls == 0)
    }

    @Test func theRequestIdAndOperationComeFromTaskLocals() async throws {
        let broker = ScriptedTransport { _, _ in PipelineFixture.status(200) }
        let metrics = RecordingMetrics()
        let (transport, _, _) = pipelined(broker, metrics: metrics)
        try await RequestScope.$requestId.withValue("req-1") {
            _ = try await BrokerOperationScope.with(.balances) { try await transport.send(PipelineFixture.get()) }
        }
        #expect(metrics.total(BrokerPipeline.MetricName.requests, ["broker": "alpaca", "operation": "balances", "outcome": "ok"]) == 1)
        // Bounded labels: never a connection id or a path.
        for key in metrics.keys {
            #expect(Set(key.dimensions.keys).isSubset(of: ["broker", "operation", "outcome"]))
        }
    }
}
