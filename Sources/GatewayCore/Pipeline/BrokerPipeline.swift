public import CoreMetrics
import Foundation
public import GatewayModel
import HTTPTypes
public import Logging
import Synchronization
import Tracing

/// The chain every adapter's HTTP call passes through, and what it measures per connection.
///
/// `AdapterRegistry` wraps the shared transport once per connection with ``transport(wrapping:connection:limits:logger:)``,
/// so every call of every adapter goes, outermost first, through:
/// 1. observation: `brokergateway_broker_requests_total` and the duration timer, once per adapter call;
/// 2. the request's call budget (`CallBudget`: how many calls one request may make on one connection);
/// 3. the connection's circuit breaker (outside the retries, so a read that succeeds on a retry counts as a success
///    and an open breaker costs no retries);
/// 4. retries of idempotent reads (jittered exponential backoff, never past the deadline, never for a write);
/// 5. the rate limiter (inside the retries, so every attempt takes its own slot and the limiter learns from every
///    answer);
/// 6. the deadline (each attempt bounded by what is left of the call's deadline, the earlier of its timeout and
///    ``DeadlineScope/current``, and by cancellation; a timer only where no watcher above enforces it);
/// 7. upstream recording: the debug log line, `brokergateway_upstream_calls_total` and the health window, once per
///    attempt that actually leaves for the broker.
///
/// State is per connection (breaker, rate-limit buckets, health window) and lives here, not in the adapter, so it
/// survives an adapter being re-made and `GET /v1/status` can read it. Metrics go to the injected factory (never the
/// global `MetricsSystem`: tests run in parallel), with bounded labels only: broker, operation, outcome.
public final class BrokerPipeline: Sendable {
    /// The metric names the `/metrics` endpoint and the dashboard agree on.
    public enum MetricName {
        /// Counter {broker, operation, outcome}: `ok` or the canonical error code.
        public static let requests = "brokergateway_broker_requests_total"
        /// Timer {broker, operation}: the whole call, waits and retries included.
        public static let requestDuration = "brokergateway_broker_request_duration_seconds"
        /// Counter {broker}.
        public static let retries = "brokergateway_broker_retries_total"
        /// Counter {broker}: calls that waited for a rate-limit slot.
        public static let rateLimitWaits = "brokergateway_broker_rate_limit_waits_total"
        /// Counter {broker}: every call that actually left for the broker, retries included.
        public static let upstreamCalls = "brokergateway_upstream_calls_total"
        /// Gauge {broker}: connections whose breaker is open or half-open.
        public static let breakerOpenConnections = "brokergateway_breaker_open_connections"
        /// Gauge {broker}: the lowest rate-limit headroom (0…1) among the broker's connections.
        public static let rateLimitHeadroom = "brokergateway_rate_limit_headroom_ratio"
    }

    /// Where the pipeline's metrics go: a Prometheus registry's factory in the server, a no-op one by default.
    public let metrics: any MetricsFactory
    /// The breaker, retry, rate-limit and health tunings every connection of this pipeline uses.
    public let settings: PipelineSettings
    /// How many instances share every connection's rate-limit budgets (1 unless a cluster's membership says more).
    public let share: InstanceShare
    private let connections = Mutex<[String: ConnectionPipelineState]>([:])

    /// A pipeline with no connections yet; per-connection state is made as connections' transports are wrapped.
    /// The gateway makes one per process and hands it to its `AdapterRegistry`.
    public init(
        metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        settings: PipelineSettings = PipelineSettings(),
        share: InstanceShare = InstanceShare()
    ) {
        self.metrics = metrics
        self.settings = settings
        self.share = share
    }

    /// `transport` wrapped in the chain for one stored connection. Calls of every adapter made for the connection
    /// share its breaker, buckets and health window, across re-made adapters.
    public func transport(
        wrapping transport: any BrokerTransport,
        connection: ConnectionDescriptor,
        limits: [RateLimitRule],
        logger: Logger
    ) -> any BrokerTransport {
        let (state, isNew) = connections.withLock { connections in
            if let existing = connections[connection.id], existing.broker == connection.broker { return (existing, false) }
            let fresh = ConnectionPipelineState(
                connectionId: connection.id,
                broker: connection.broker,
                limits: limits,
                settings: settings,
                share: share,
                tracksBreaker: true
            )
            connections[connection.id] = fresh
            return (fresh, true)
        }
        // The broker's breaker gauge exists from its first connection on (0 open), not from its first failure.
        if isNew { breakerChanged(broker: connection.broker) }
        return chain(transport, state: state, logger: logger)
    }

    /// `transport` wrapped in a chain of its own, not kept: for an adapter made to validate credentials before the
    /// connection exists. It is paced and measured, but has no breaker (one failed validation must not fail the
    /// next attempt at once) and no health record.
    public func ephemeralTransport(
        wrapping transport: any BrokerTransport,
        broker: BrokerKind,
        limits: [RateLimitRule],
        logger: Logger
    ) -> any BrokerTransport {
        let state = ConnectionPipelineState(
            connectionId: "unsaved-" + UUID().uuidString,
            broker: broker,
            limits: limits,
            settings: settings,
            share: share,
            tracksBreaker: false
        )
        return chain(transport, state: state, logger: logger)
    }

    func chain(_ transport: any BrokerTransport, state: ConnectionPipelineState, logger: Logger) -> any BrokerTransport {
        PipelinedTransport(
            middlewares: [
                ObservationMiddleware(metrics: metrics),
                CallBudgetMiddleware(),
                CircuitBreakerMiddleware(connection: state, pipeline: self),
                RetryMiddleware(settings: settings, metrics: metrics),
                RateLimitMiddleware(connection: state, pipeline: self),
                DeadlineMiddleware(),
            ],
            upstream: UpstreamRecorder(base: transport, connection: state, metrics: metrics, logger: logger),
            connection: state
        )
    }

    /// One connection's health over the last five minutes (an empty record for a connection never called).
    public func health(connectionId: String, broker: BrokerKind) -> ConnectionHealth {
        guard let state = connections.withLock({ $0[connectionId] }), state.broker == broker else {
            return ConnectionHealth(connectionId: connectionId, broker: broker)
        }
        return state.health(now: Date())
    }

    /// The error a call on this connection would get now because its circuit breaker is open, without calling; `nil`
    /// when a call would go through. The order pipeline asks before it journals a placement, so a placement the
    /// breaker would refuse is answered at once and never journaled as sent.
    public func breakerRefusal(connectionId: String, broker: BrokerKind) -> GatewayError? {
        guard let state = connections.withLock({ $0[connectionId] }), state.broker == broker, state.tracksBreaker,
            let wait = state.breaker.withLock({ $0.refusal(now: .now) })
        else { return nil }
        return GatewayError(
            .upstreamUnavailable,
            "\(broker) is failing: this connection's circuit breaker is open after repeated failures, so nothing was sent",
            broker: broker,
            retryable: true,
            retryAfter: wait.seconds
        )
    }

    /// Counts a refusal the broker made inside a successful HTTP answer (a login refused in the body) as a failed
    /// call in the connection's health, so a connection whose every login is refused does not read 0% errors.
    public func recordRefusal(connectionId: String, broker: BrokerKind, error: GatewayError) {
        guard let state = connections.withLock({ $0[connectionId] }), state.broker == broker else { return }
        let failure = ConnectionHealth.Failure(at: Date(), code: error.code, message: error.message, call: nil)
        state.record.withLock { $0.refuse(at: Date(), failure: failure) }
    }

    /// The connections whose breaker's cool-down has ended with no probe out: a call now would be the probe that
    /// closes (or re-opens) it. The gateway probes them itself, so a recovered broker shows healthy without waiting
    /// for a user's call.
    public func connectionsAwaitingProbe() -> [String] {
        let now = ContinuousClock.now
        return connections.withLock { connections in
            connections.values.filter { $0.tracksBreaker && $0.breaker.withLock { $0.awaitsProbe(now: now) } }.map(\.connectionId)
        }
    }

    /// Drops a deleted connection's state, and its part in the broker's gauges.
    public func forget(connectionId: String) {
        guard let state = connections.withLock({ $0.removeValue(forKey: connectionId) }) else { return }
        breakerChanged(broker: state.broker)
        headroomChanged(broker: state.broker)
    }

    /// Recomputes `brokergateway_breaker_open_connections` for one broker.
    func breakerChanged(broker: BrokerKind) {
        let open = connections.withLock { connections in
            connections.values.filter { $0.broker == broker && $0.breakerState != .closed }.count
        }
        Gauge(label: MetricName.breakerOpenConnections, dimensions: [("broker", broker.rawValue)], factory: metrics)
            .record(open)
    }

    /// Recomputes `brokergateway_rate_limit_headroom_ratio` for one broker: its lowest connection.
    func headroomChanged(broker: BrokerKind) {
        let lowest = connections.withLock { connections in
            connections.values.filter { $0.broker == broker }.compactMap(\.limiter.headroom).min()
        }
        guard let lowest else { return }
        Gauge(label: MetricName.rateLimitHeadroom, dimensions: [("broker", broker.rawValue)], factory: metrics)
            .record(lowest)
    }
}

/// What the pipeline keeps for one connection: breaker, rate-limit buckets and health window, each behind its own
/// lock so a slow path in one never holds the others.
final class ConnectionPipelineState: Sendable {
    let connectionId: String
    let broker: BrokerKind
    let limiter: ConnectionRateLimiter
    /// Unused (always closed) for an ephemeral (validation) chain.
    let breaker: Mutex<CircuitBreaker>
    let tracksBreaker: Bool
    let record: Mutex<HealthRecord>

    init(
        connectionId: String,
        broker: BrokerKind,
        limits: [RateLimitRule],
        settings: PipelineSettings,
        share: InstanceShare = InstanceShare(),
        tracksBreaker: Bool
    ) {
        self.connectionId = connectionId
        self.broker = broker
        self.limiter = ConnectionRateLimiter(rules: limits, settings: settings, share: share)
        self.breaker = Mutex(CircuitBreaker(settings: settings))
        self.tracksBreaker = tracksBreaker
        self.record = Mutex(HealthRecord(settings: settings))
    }

    var breakerState: BreakerState { breaker.withLock { $0.state } }

    func health(now: Date) -> ConnectionHealth {
        let (state, since) = breaker.withLock { ($0.shownState(now: .now), $0.since) }
        let headroom = limiter.headroom
        return record.withLock { record in
            record.snapshot(
                connectionId: connectionId,
                broker: broker,
                now: now,
                breaker: state,
                breakerSince: since,
                headroom: headroom
            )
        }
    }
}

/// Runs the middlewares in order, then the upstream recorder; the context is made once per call.
struct PipelinedTransport: BrokerTransport {
    let middlewares: [any BrokerMiddleware]
    let upstream: UpstreamRecorder
    let connection: ConnectionPipelineState

    func send(_ request: BrokerRequest) async throws -> BrokerResponse {
        BrokerSendLedger.current?.callEntered()
        let context = BrokerCallContext(
            broker: connection.broker,
            connectionId: connection.connectionId,
            operation: BrokerOperationScope.current ?? BrokerOperationScope.fallback,
            deadline: DeadlineScope.deadline(within: request.timeout)
        )
        return try await run(0, request, context)
    }

    func run(_ index: Int, _ request: BrokerRequest, _ context: BrokerCallContext) async throws -> BrokerResponse {
        guard index < middlewares.count else { return try await upstream.send(request, context: context) }
        return try await middlewares[index].intercept(request, context: context) { request, context in
            try await self.run(index + 1, request, context)
        }
    }
}

/// The last step before the network: one debug log line per attempt (method, logged path, status, duration, the
/// broker's correlation header and our request id; never header values, query values or bodies, which carry
/// credentials and account data), the upstream-call counter, and the health window.
struct UpstreamRecorder: Sendable {
    let base: any BrokerTransport
    let connection: ConnectionPipelineState
    let metrics: any MetricsFactory
    let logger: Logger

    /// Response headers brokers put a correlation id in (Saxo's support asks for `X-Correlation`).
    static let correlationHeaders = ["X-Correlation", "X-Request-ID"]

    func send(_ request: BrokerRequest, context: BrokerCallContext) async throws -> BrokerResponse {
        Counter(label: BrokerPipeline.MetricName.upstreamCalls, dimensions: [("broker", context.broker.rawValue)], factory: metrics)
            .increment()
        let start = ContinuousClock.now
        var metadata: Logger.Metadata = [
            "method": "\(request.method.rawValue)", "path": "\(request.loggedPath)", "operation": "\(context.operation)",
        ]
        // `request-id` comes from the logging system's metadata provider (`Logger.MetadataProvider.requestScope`).
        let call = "\(request.method.rawValue) \(request.loggedPath)"
        // A client span per attempt, when tracing is bootstrapped (a no-op otherwise): the path is the logged one,
        // with account numbers and secrets already redacted.
        let span = startSpan("\(context.broker.rawValue) \(context.operation)", ofKind: .client)
        span.attributes["brokergateway.broker"] = context.broker.rawValue
        span.attributes["brokergateway.operation"] = context.operation
        span.attributes["http.request.method"] = request.method.rawValue
        span.attributes["url.path"] = request.loggedPath
        defer { span.end() }
        if !request.idempotent { BrokerSendLedger.current?.writeSent() }
        do {
            let response = try await base.send(request)
            span.attributes["http.response.status_code"] = response.status
            if response.status >= 500 { span.setStatus(SpanStatus(code: .error)) }
            let ms = start.duration(to: .now).milliseconds
            metadata["status"] = "\(response.status)"
            metadata["ms"] = "\(Int(ms.rounded()))"
            if let correlation = Self.correlationHeaders.lazy.compactMap({ response.header($0) }).first {
                metadata["correlation"] = "\(correlation)"
            }
            logger.debug("\(context.broker.rawValue) call", metadata: metadata)
            let failure: ConnectionHealth.Failure? =
                // Refused credentials count with the broker's failures: a connection whose every call is refused
                // is not healthy, however fast the refusals come.
                response.status >= 500 || response.status == 429 || response.status == 401 || response.status == 403
                ? ConnectionHealth.Failure(
                    at: Date(),
                    code: GatewayError.Code(ObservationMiddleware.outcome(status: response.status)),
                    message: "\(context.broker) answered HTTP \(response.status)",
                    call: call
                )
                : nil
            connection.record.withLock { $0.record(at: Date(), latencyMs: ms, failure: failure) }
            return response
        } catch {
            let ms = start.duration(to: .now).milliseconds
            metadata["ms"] = "\(Int(ms.rounded()))"
            metadata["code"] = "\(ObservationMiddleware.outcome(error: error))"
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            logger.debug("\(context.broker.rawValue) call failed", metadata: metadata)
            if !(error is CancellationError) {
                let gatewayError = error as? GatewayError
                let failure = ConnectionHealth.Failure(
                    at: Date(),
                    code: gatewayError?.code ?? .internalError,
                    message: gatewayError?.message ?? "the call failed (\(type(of: error)))",
                    call: call
                )
                connection.record.withLock { $0.record(at: Date(), latencyMs: ms, failure: failure) }
            }
            throw error
        }
    }
}
