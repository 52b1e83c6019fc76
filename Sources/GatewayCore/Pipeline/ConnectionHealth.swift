public import Foundation
public import GatewayModel

/// A circuit breaker's position for one connection.
public enum BreakerState: String, WireEnum {
    /// Calls go through.
    case closed
    /// Calls fail at once with `upstream_unavailable` until the cool-down ends.
    case open
    /// The cool-down ended: one probe call goes through; its outcome closes or re-opens the breaker.
    case halfOpen = "half_open"
}

/// What the broker-call pipeline knows of one connection's calls over the last five minutes: the part of
/// `GET /v1/status` and the dashboard that comes from measurement rather than from the store.
public struct ConnectionHealth: Codable, Sendable, Hashable {
    /// One failed call, as an operator sees it (no payload, no credentials: the canonical code and message).
    public struct Failure: Codable, Sendable, Hashable {
        /// When the call ended.
        public var at: Date
        /// The canonical code: the transport's error, or the outcome of the broker's status (`rate_limited` for a
        /// 429, `unauthorized` for a 401).
        public var code: GatewayError.Code
        /// What went wrong, safe to show an operator.
        public var message: String
        /// The call's logged path (`GET /v2/positions`), without query values or account ids.
        public var call: String?

        /// A failure record; `call` is `nil` for a refusal found in a successful answer's body (a refused login).
        public init(at: Date, code: GatewayError.Code, message: String, call: String? = nil) {
            self.at = at
            self.code = code
            self.message = message
            self.call = call
        }
    }

    /// The calls of one slice of the window (ten seconds), oldest slice first: the dashboard's sparkline.
    public struct Slice: Codable, Sendable, Hashable {
        /// When the slice began.
        public var start: Date
        /// Upstream calls that ended in the slice, retries included.
        public var calls: Int
        /// Those of `calls` that failed (transport errors, 5xx, 429, 401, 403, refusals in the broker's body).
        public var errors: Int
        /// Median latency of the slice's calls; `nil` when there were none.
        public var p50Ms: Int?

        /// A slice as the pipeline's health record summarizes it.
        public init(start: Date, calls: Int, errors: Int, p50Ms: Int?) {
            self.start = start
            self.calls = calls
            self.errors = errors
            self.p50Ms = p50Ms
        }
    }

    /// The connection measured.
    public var connectionId: String
    /// The connection's broker, so a status page can group connections without a store lookup.
    public var broker: BrokerKind
    /// The connection's circuit breaker now; `open` means calls fail at once without reaching the broker.
    public var breaker: BreakerState
    /// When the breaker last changed state; `nil` when it never has.
    public var breakerSince: Date?
    /// When a call last succeeded; `nil` when none has since the process started (or the connection was forgotten).
    public var lastSuccessAt: Date?
    /// The most recent failure, kept past the window so an operator still sees why a quiet connection broke.
    public var lastError: Failure?
    /// Upstream calls (retries included) in the window.
    public var calls: Int
    /// Failed upstream calls in the window (transport errors, 5xx, 429, 401, 403, refusals in the broker's body).
    public var errors: Int
    /// `errors / calls`, 0 when there were no calls.
    public var errorRate: Double
    /// Median latency of the window's calls in milliseconds, from a bounded sample; `nil` without calls.
    public var p50Ms: Int?
    /// 99th-percentile latency of the window's calls in milliseconds, from a bounded sample; `nil` without calls.
    public var p99Ms: Int?
    /// The smallest share of a rate-limit budget left across this connection's buckets, 0…1; `nil` before the first
    /// call says anything about it.
    public var rateLimitHeadroom: Double?
    /// The window in ten-second slices, oldest first.
    public var slices: [Slice]
    /// The latest failures, newest first (at most ten).
    public var recentErrors: [Failure]

    /// A health snapshot; the defaults describe a connection with no calls yet.
    public init(
        connectionId: String,
        broker: BrokerKind,
        breaker: BreakerState = .closed,
        breakerSince: Date? = nil,
        lastSuccessAt: Date? = nil,
        lastError: Failure? = nil,
        calls: Int = 0,
        errors: Int = 0,
        errorRate: Double = 0,
        p50Ms: Int? = nil,
        p99Ms: Int? = nil,
        rateLimitHeadroom: Double? = nil,
        slices: [Slice] = [],
        recentErrors: [Failure] = []
    ) {
        self.connectionId = connectionId
        self.broker = broker
        self.breaker = breaker
        self.breakerSince = breakerSince
        self.lastSuccessAt = lastSuccessAt
        self.lastError = lastError
        self.calls = calls
        self.errors = errors
        self.errorRate = errorRate
        self.p50Ms = p50Ms
        self.p99Ms = p99Ms
        self.rateLimitHeadroom = rateLimitHeadroom
        self.slices = slices
        self.recentErrors = recentErrors
    }
}
