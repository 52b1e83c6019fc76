public import GatewayModel

/// Every failure the gateway reports, from a bad request to a broker that timed out.
///
/// `code` is opaque and extensible; each code has an HTTP status. Adapters translate their broker's errors into
/// these through a table (see each adapter's `Errors` file), so the API layer never sees a wire format.
public struct GatewayError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let unauthorized = Code("unauthorized")
        public static let forbidden = Code("forbidden")
        public static let notFound = Code("not_found")
        public static let invalidRequest = Code("invalid_request")
        /// The request is well-formed but breaks a rule (validation); HTTP 422.
        public static let unprocessable = Code("unprocessable")
        public static let payloadTooLarge = Code("payload_too_large")
        public static let rejected = Code("rejected")
        /// The account lacks what the order needs: the cash or margin to buy, or the holding to sell (it may not go
        /// short); HTTP 422. Names no field: the request is sound, the account is short.
        public static let insufficientFunds = Code("insufficient_funds")
        /// The instrument's market is not trading now (closed, or halted), and the broker refuses rather than queues
        /// the order; HTTP 422. The same order may succeed when the market opens.
        public static let marketClosed = Code("market_closed")
        public static let rateLimited = Code("rate_limited")
        public static let upstreamTimeout = Code("upstream_timeout")
        public static let upstreamUnavailable = Code("upstream_unavailable")
        public static let malformedResponse = Code("malformed_response")
        public static let notSupported = Code("not_supported")
        public static let conflict = Code("conflict")
        /// The egress policy refused the broker URL or the address it resolves to; HTTP 403, never retryable.
        public static let egressRefused = Code("egress_refused")
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

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(rawValue)
        }
    }

    public var code: Code
    /// Safe to show a user: never contains a credential.
    public var message: String
    public var broker: BrokerKind?
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
    public var details: [FieldProblem]
    /// The broker's own error code or text, for diagnosis.
    public var brokerCode: String?
    /// The gateway's id of the order the error is about, where the journal keeps one: a placement the broker refused
    /// is journaled `rejected` and reads by this id (`GET /v1/orders/{id}`) like any other order.
    public var orderId: String?

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

    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let broker { text += " [\(broker)]" }
        return text
    }

    public static func invalid(_ field: String, _ problem: String) -> GatewayError {
        GatewayError(.invalidRequest, "\(field) \(problem)", details: [FieldProblem(field: field, problem: problem)])
    }

    public static func unprocessable(_ problems: [FieldProblem]) -> GatewayError {
        let summary = problems.map { "\($0.field) \($0.problem)" }.joined(separator: "; ")
        return GatewayError(.unprocessable, summary.isEmpty ? "the request breaks a rule" : summary, details: problems)
    }

    public static func notSupported(_ operation: String, broker: BrokerKind) -> GatewayError {
        GatewayError(.notSupported, "\(broker) does not support \(operation)", broker: broker)
    }
}
