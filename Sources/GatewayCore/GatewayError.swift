public import GatewayModel

/// Every failure the gateway reports, from a bad request to a broker that timed out.
///
/// `code` is opaque and extensible; each code has an HTTP status. Adapters translate their broker's errors into
/// these through a table (see each adapter's `Errors` file), so the API layer never sees a wire format.
public struct GatewayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine-readable kind of a failure, sent as `error.code` (or a source line's `error.code`) on the wire.
    ///
    /// A struct rather than an enum so a code can be added without breaking a `switch` in an adapter or a client;
    /// callers compare against the static constants. A code the gateway does not know answers HTTP 502.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The snake_case text clients see, such as `upstream_timeout`; stable once published.
        public let rawValue: String
        /// Wraps any text as a code; prefer the static constants, which the HTTP status table knows.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The unlabelled form of `init(rawValue:)`, used by the constants below.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The wire text, so a code interpolates into log lines and messages as clients see it.
        public var description: String { rawValue }

        /// The credential is missing or wrong: the caller's API key or session, or the broker refusing the
        /// connection's credentials; HTTP 401.
        public static let unauthorized = Code("unauthorized")
        /// The caller is known but may not do this (a scope it lacks, a disabled tenant, a feature turned off);
        /// HTTP 403.
        public static let forbidden = Code("forbidden")
        /// The resource does not exist or is not the caller's (another user's id reads as missing); HTTP 404.
        public static let notFound = Code("not_found")
        /// The request cannot be read: malformed JSON, a wrong type, an unknown enum value, a bad query parameter;
        /// HTTP 400, with the field in `details`.
        public static let invalidRequest = Code("invalid_request")
        /// The request is well-formed but breaks a rule (validation); HTTP 422.
        public static let unprocessable = Code("unprocessable")
        /// The request body is over the server's limit; HTTP 413.
        public static let payloadTooLarge = Code("payload_too_large")
        /// The broker refused the request for a reason of its own (an adapter's error table found no better code);
        /// HTTP 422, not retryable. `brokerCode` keeps the broker's own code where it sent one.
        public static let rejected = Code("rejected")
        /// The account lacks what the order needs: the cash or margin to buy, or the holding to sell (it may not go
        /// short); HTTP 422. Names no field: the request is sound, the account is short.
        public static let insufficientFunds = Code("insufficient_funds")
        /// The instrument's market is not trading now (closed, or halted), and the broker refuses rather than queues
        /// the order; HTTP 422. The same order may succeed when the market opens.
        public static let marketClosed = Code("market_closed")
        /// Too many calls: the tenant's or key's request budget, or a broker's rate limit (its 429, or a call the
        /// pipeline would have to send past its deadline); HTTP 429, retryable, with `retryAfter` where known.
        public static let rateLimited = Code("rate_limited")
        /// The broker did not answer within the call's deadline; HTTP 504, retryable.
        public static let upstreamTimeout = Code("upstream_timeout")
        /// The broker (or the store) cannot serve now: unreachable, a 5xx, an open circuit breaker, a busy
        /// database; HTTP 503, retryable.
        public static let upstreamUnavailable = Code("upstream_unavailable")
        /// The broker answered with something the adapter cannot read (wrong shape, over the size limit); HTTP 502.
        public static let malformedResponse = Code("malformed_response")
        /// The connection's broker cannot do this operation, as its capabilities declare; HTTP 422 (a rule the
        /// request breaks, not a missing server feature).
        public static let notSupported = Code("not_supported")
        /// The request clashes with the current state: a name or id already taken, an order no longer cancelable,
        /// an idempotency key reused with another body; HTTP 409.
        public static let conflict = Code("conflict")
        /// The egress policy refused the broker URL or the address it resolves to; HTTP 403, never retryable.
        public static let egressRefused = Code("egress_refused")
        /// A fault of the gateway itself, never of the client or a broker; HTTP 500.
        public static let internalError = Code("internal")
        /// A request whose head or body did not arrive in time; HTTP 408.
        public static let requestTimeout = Code("request_timeout")
        /// A request line or header section over the server's limit; HTTP 431.
        public static let headersTooLarge = Code("headers_too_large")
        /// A method the route does not have; HTTP 405, with `Allow`.
        public static let methodNotAllowed = Code("method_not_allowed")

        /// The HTTP status the unified API answers with.
        public var httpStatus: Int {
            switch self {
            case .unauthorized: 401
            case .forbidden, .egressRefused: 403
            case .notFound: 404
            case .invalidRequest: 400
            case .payloadTooLarge: 413
            case .unprocessable, .rejected, .insufficientFunds, .marketClosed: 422
            case .rateLimited: 429
            case .upstreamTimeout: 504
            case .upstreamUnavailable: 503
            case .malformedResponse: 502
            case .notSupported: 422
            case .conflict: 409
            case .internalError: 500
            case .requestTimeout: 408
            case .headersTooLarge: 431
            case .methodNotAllowed: 405
            default: 502
            }
        }

        /// Reads a code from its bare JSON string, as the wire carries it.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }
        /// Writes the code as a bare JSON string (not an object), matching `init(from:)`.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(rawValue)
        }
    }

    /// What kind of failure this is; decides the HTTP status and the default of `retryable`.
    public var code: Code
    /// Safe to show a user: never contains a credential.
    public var message: String
    /// The broker whose answer (or silence) caused the error; `nil` for errors of the gateway or the request.
    public var broker: BrokerKind?
    /// Whether the same request may succeed if sent again unchanged; clients and the pipeline's retry rely on it.
    public var retryable: Bool
    /// Seconds to wait before retrying, where known. Always finite, from 0 to `maximumRetryAfter`, whatever a
    /// broker sent (`inf`, `1e300`, `-5`, `nan`): a broker's number must never trap a conversion or break encoding.
    public var retryAfter: Double? {
        didSet { retryAfter = retryAfter.flatMap(Self.saneRetryAfter) }
    }

    /// A day: the longest wait the gateway passes on.
    public static let maximumRetryAfter: Double = 86_400

    /// `seconds` bounded to 0 ... `maximumRetryAfter`; `nil` for NaN (no usable answer).
    public static func saneRetryAfter(_ seconds: Double) -> Double? {
        if seconds.isNaN { return nil }
        return min(max(seconds, 0), maximumRetryAfter)
    }
    /// The fields at fault and what is wrong with each, for `invalid_request` and `unprocessable`; empty otherwise.
    public var details: [FieldProblem]
    /// The broker's own error code or text, for diagnosis.
    public var brokerCode: String?
    /// The gateway's id of the order the error is about, where the journal keeps one: a placement the broker refused
    /// is journaled `rejected` and reads by this id (`GET /v1/orders/{id}`) like any other order.
    public var orderId: String?

    /// Makes an error; `retryable` defaults from the code (true for `rate_limited`, `upstream_timeout` and
    /// `upstream_unavailable`), and `retryAfter` is bounded by `saneRetryAfter`.
    public init(
        _ code: Code,
        _ message: String,
        broker: BrokerKind? = nil,
        retryable: Bool? = nil,
        retryAfter: Double? = nil,
        details: [FieldProblem] = [],
        brokerCode: String? = nil
    ) {
        self.code = code
        self.message = message
        self.broker = broker
        self.retryable = retryable ?? [.rateLimited, .upstreamTimeout, .upstreamUnavailable].contains(code)
        self.retryAfter = retryAfter.flatMap(Self.saneRetryAfter)
        self.details = details
        self.brokerCode = brokerCode
    }

    /// `code: message [broker]`, for logs; carries no credential since `message` never does.
    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let broker { text += " [\(broker)]" }
        return text
    }

    /// An `invalid_request` about one field, with the message and `details` both naming it.
    public static func invalid(_ field: String, _ problem: String) -> GatewayError {
        GatewayError(.invalidRequest, "\(field) \(problem)", details: [FieldProblem(field: field, problem: problem)])
    }

    /// An `unprocessable` (422) listing every broken rule, so a client fixes them all in one round.
    public static func unprocessable(_ problems: [FieldProblem]) -> GatewayError {
        let summary = problems.map { "\($0.field) \($0.problem)" }.joined(separator: "; ")
        return GatewayError(.unprocessable, summary.isEmpty ? "the request breaks a rule" : summary, details: problems)
    }

    /// What an adapter throws for an operation its broker lacks (`BrokerAdapter` has no default implementations).
    public static func notSupported(_ operation: String, broker: BrokerKind) -> GatewayError {
        GatewayError(.notSupported, "\(broker) does not support \(operation)", broker: broker)
    }
}
