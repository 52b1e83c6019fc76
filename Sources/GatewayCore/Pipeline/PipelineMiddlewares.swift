import CoreMetrics
import Foundation
import GatewayModel
import Logging
import Synchronization

// The chain, outermost first: ObservationMiddleware → CircuitBreakerMiddleware → RetryMiddleware →
// RateLimitMiddleware → DeadlineMiddleware → (upstream recording) → transport. Each is a value holding the
// connection's shared state; see `BrokerPipeline` for why this order.

/// Counts each call the adapter made (once, however many attempts it took) by operation and outcome, and times it.
struct ObservationMiddleware: BrokerMiddleware {
    let metrics: any MetricsFactory

    func intercept(
        _ request: BrokerRequest,
        context: BrokerCallContext,
        next: @Sendable (BrokerRequest, BrokerCallContext) async throws -> BrokerResponse
    ) async throws -> BrokerResponse {
        let start = ContinuousClock.now
        defer {
            let elapsed = start.duration(to: .now)
            Timer(
                label: BrokerPipeline.MetricName.requestDuration,
                dimensions: [("broker", context.broker.rawValue), ("operation", context.operation)],
                factory: metrics
            ).recordNanoseconds(elapsed.nanoseconds)
        }
        do {
            let response = try await next(request, context)
            count(context, Self.outcome(status: response.status))
            return response
        } catch {
            count(context, Self.outcome(error: error))
            throw error
        }
    }

    func count(_ context: BrokerCallContext, _ outcome: String) {
        Counter(
            label: BrokerPipeline.MetricName.requests,
            dimensions: [("broker", context.broker.rawValue), ("operation", context.operation), ("outcome", outcome)],
            factory: metrics
        ).increment()
    }

    /// The canonical code a status stands for (the adapter's error table may refine it; the label set stays small).
    static func outcome(status: Int) -> String {
        let code: GatewayError.Code? =
            switch status {
            case ..<400: nil
            case 400: .invalidRequest
            case 401: .unauthorized
            case 403: .forbidden
            case 404: .notFound
            case 409: .conflict
            case 413: .payloadTooLarge
            case 422: .unprocessable
            case 429: .rateLimited
            case 400..<500: .rejected
            case 504: .upstreamTimeout
            default: .upstreamUnavailable
            }
        return code?.rawValue ?? "ok"
    }

    static func outcome(error: any Error) -> String {
        if let error = error as? GatewayError { return error.code.rawValue }
        if error is CancellationError { return "cancelled" }
        return GatewayError.Code.internalError.rawValue
    }
}

/// Fails calls at once while the connection's breaker is open, lets one probe through when half-open, and feeds
/// the breaker each call's outcome (after retries: a read that succeeded on its second attempt is a success).
struct CircuitBreakerMiddleware: BrokerMiddleware {
    let connection: ConnectionPipelineState
    let pipeline: BrokerPipeline

    func intercept(
        _ request: BrokerRequest,
        context: BrokerCallContext,
        next: @Sendable (BrokerRequest, BrokerCallContext) async throws -> BrokerResponse
    ) async throws -> BrokerResponse {
        guard connection.tracksBreaker else { return try await next(request, context) }
        let (admission, changed) = connection.breaker.withLock { breaker in
            let before = breaker.state
            let admission = breaker.admit(now: .now, wallClock: Date())
            return (admission, breaker.state != before)
        }
        if changed { pipeline.breakerChanged(broker: context.broker) }
        let probe: Bool
        switch admission {
        case .rejected(let retryAfter):
            throw GatewayError(
                .upstreamUnavailable,
                "\(context.broker) is failing: this connection's circuit breaker is open after repeated failures, so the call was not sent",
                broker: context.broker,
                retryable: true,
                retryAfter: retryAfter.seconds
            )
        case .allowed(let isProbe):
            probe = isProbe
        }
        do {
            let response = try await next(request, context)
            settle(response.status >= 500 ? .failure : (response.status == 429 ? .neutral : .success), probe: probe, context)
            return response
        } catch {
            settle(Self.outcome(of: error), probe: probe, context)
            throw error
        }
    }

    func settle(_ outcome: CircuitBreaker.Outcome, probe: Bool, _ context: BrokerCallContext) {
        guard connection.tracksBreaker else { return }
        let changed = connection.breaker.withLock { breaker in
            let before = breaker.state
            breaker.record(outcome, probe: probe, now: .now, wallClock: Date())
            return breaker.state != before
        }
        if changed { pipeline.breakerChanged(broker: context.broker) }
    }

    static func outcome(of error: any Error) -> CircuitBreaker.Outcome {
        // The response budget's refusal is the gateway's load, not this broker's failure.
        guard let error = error as? GatewayError, !ResponseBudget.isRefusal(error) else { return .neutral }
        return [.upstreamUnavailable, .upstreamTimeout, .malformedResponse].contains(error.code) ? .failure : .neutral
    }
}

/// Retries idempotent reads after transport failures and 502/503/504 (and a 429 whose `Retry-After` fits), with
/// jittered exponential backoff, at most `maxRetries` times and never past the deadline. Writes go once: a
/// placement the broker may have acted on is the order pipeline's to reconcile, not ours to repeat.
struct RetryMiddleware: BrokerMiddleware {
    let settings: PipelineSettings
    let metrics: any MetricsFactory

    func intercept(
        _ request: BrokerRequest,
        context: BrokerCallContext,
        next: @Sendable (BrokerRequest, BrokerCallContext) async throws -> BrokerResponse
    ) async throws -> BrokerResponse {
        guard request.idempotent, settings.maxRetries > 0 else { return try await next(request, context) }
        var attempt = 0
        while true {
            let delay: Duration
            do {
                let response = try await next(request, context)
                guard attempt < settings.maxRetries, let wait = retryDelay(for: response, attempt: attempt) else {
                    return response
                }
                guard fits(wait, context) else { return response }
                delay = wait
            } catch let error as GatewayError
                where [.upstreamUnavailable, .upstreamTimeout].contains(error.code) && attempt < settings.maxRetries
                && !ResponseBudget.isRefusal(error)
            {
                let wait = backoff(attempt)
                guard fits(wait, context) else { throw error }
                delay = wait
            }
            attempt += 1
            Counter(
                label: BrokerPipeline.MetricName.retries,
                dimensions: [("broker", context.broker.rawValue)],
                factory: metrics
            ).increment()
            try await Task.sleep(for: delay)
        }
    }

    /// The wait before retrying after `response`, or `nil` when it is not worth retrying.
    func retryDelay(for response: BrokerResponse, attempt: Int) -> Duration? {
        switch response.status {
        case 502, 503, 504:
            let hinted = BrokerNumber.retryAfter(response.headers, now: Date()).map(Duration.boundedSeconds)
            return max(backoff(attempt), min(hinted ?? .zero, settings.retryAfterLimit))
        case 429:
            guard let hinted = BrokerNumber.retryAfter(response.headers, now: Date()).map(Duration.boundedSeconds),
                hinted <= settings.retryAfterLimit
            else { return nil }
            return max(hinted, .milliseconds(1))
        default:
            return nil
        }
    }

    /// `base × 2^attempt`, capped, times a random factor in [0.5, 1]: spreads the retries of many callers.
    func backoff(_ attempt: Int) -> Duration {
        let exponential = settings.retryBaseDelay * (1 << min(attempt, 16))
        let capped = min(exponential, settings.retryMaxDelay)
        return capped * Double.random(in: 0.5...1.0)
    }

    /// Whether waiting `delay` still leaves room for an attempt before the deadline.
    func fits(_ delay: Duration, _ context: BrokerCallContext) -> Bool {
        ContinuousClock.now + delay + settings.minimumCallTime < context.deadline
    }
}

/// Paces calls within each budget of the connection and learns the budgets from the broker's headers; a call
/// whose slot is beyond its deadline fails at once with `rate_limited` instead of calling into a 429.
struct RateLimitMiddleware: BrokerMiddleware {
    let connection: ConnectionPipelineState
    let pipeline: BrokerPipeline

    func intercept(
        _ request: BrokerRequest,
        context: BrokerCallContext,
        next: @Sendable (BrokerRequest, BrokerCallContext) async throws -> BrokerResponse
    ) async throws -> BrokerResponse {
        let limiter = connection.limiter
        let now = ContinuousClock.now
        switch limiter.reserve(request, now: now, deadline: context.deadline) {
        case .reject(let retryAfter):
            throw GatewayError(
                .rateLimited,
                "\(context.broker)'s rate limit for this connection has no slot before the call's deadline (next in \(Int(retryAfter.milliseconds.rounded(.up))) ms)",
                broker: context.broker,
                retryable: true,
                retryAfter: retryAfter.seconds
            )
        case .go(let at):
            if at > now {
                Counter(
                    label: BrokerPipeline.MetricName.rateLimitWaits,
                    dimensions: [("broker", context.broker.rawValue)],
                    factory: pipeline.metrics
                ).increment()
                do {
                    try await Task.sleep(until: at, clock: .continuous)
                } catch {
                    limiter.refund(request)
                    throw error
                }
            }
        }
        let response = try await next(request, context)
        limiter.observe(response, for: request, now: .now, wallClock: Date())
        pipeline.headroomChanged(broker: context.broker)
        return response
    }
}

/// Bounds each attempt by the call's deadline and the caller's cancellation: the attempt's timeout is what is left,
/// so the transport hands the same instant to AsyncHTTPClient.
///
/// It starts no timer when a watcher above already cancels the call by its deadline (the router's per-source
/// deadline, an application's `withDeadline`: ``DeadlineScope/isWatched(until:)``), which is every call of a read
/// or an order. Only a call whose own deadline comes first (its `timeout` is shorter than its caller's budget) or
/// that runs with no deadline above it gets one backstop per attempt, here, inside the breaker and the retries: a
/// transport that ignores its timeout or its I/O (a stalled body) still ends the attempt with `upstream_timeout`,
/// which the breaker counts and the retries see, as before.
struct DeadlineMiddleware: BrokerMiddleware {
    func intercept(
        _ request: BrokerRequest,
        context: BrokerCallContext,
        next: @Sendable (BrokerRequest, BrokerCallContext) async throws -> BrokerResponse
    ) async throws -> BrokerResponse {
        try Task.checkCancellation()
        let left = context.remaining
        guard left > .zero else {
            throw GatewayError(.upstreamTimeout, "no time left for the call", broker: context.broker)
        }
        var request = request
        request.timeout = min(request.timeout, left)
        if DeadlineScope.isWatched(until: context.deadline) { return try await next(request, context) }
        let bounded = request
        return try await withoutActuallyEscaping(next) { next in
            try await withDeadline(at: context.deadline, reporting: left) { try await next(bounded, context) }
        }
    }
}

/// Spends one unit of the request's `CallBudget` per adapter call (not per retry), and refuses the call before
/// anything is sent once the budget is spent.
struct CallBudgetMiddleware: BrokerMiddleware {
    func intercept(
        _ request: BrokerRequest,
        context: BrokerCallContext,
        next: @Sendable (BrokerRequest, BrokerCallContext) async throws -> BrokerResponse
    ) async throws -> BrokerResponse {
        try CallBudget.current?.spend(broker: context.broker)
        return try await next(request, context)
    }
}
