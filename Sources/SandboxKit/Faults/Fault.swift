/// One kind of misbehaviour a sandbox can inject into its HTTP API.
public enum Fault: Sendable, Hashable {
    /// Wait this long before handling the request (combines with any other fault).
    case latency(milliseconds: Int)
    /// Answer with this status (400–599) without running the handler. `body` nil uses the broker's own error body.
    case error(status: Int, body: String? = nil)
    /// Answer 429 with the broker's rate-limit body without running the handler.
    case tooManyRequests(retryAfterSeconds: Int? = nil)
    /// Accept the request and never answer: hold it until the client gives up (closes the connection),
    /// the server shuts down, or the injector's hold limit passes; then close the connection.
    /// With `afterEffect`, the handler runs first, so the action takes effect although the client sees a timeout.
    case timeout(afterEffect: Bool = false)
    /// Run the handler (state changes), then close the connection without answering.
    case dropResponse
    /// Run the handler, then replace the body with bytes that are not JSON (status and headers kept).
    case malformedBody
    /// Run the handler, then send only the first half of the body (with a matching Content-Length).
    case truncatedBody

    /// The `kind` name used by the admin API.
    public var kind: String {
        switch self {
        case .latency: "latency"
        case .error: "error"
        case .tooManyRequests: "tooManyRequests"
        case .timeout: "timeout"
        case .dropResponse: "dropResponse"
        case .malformedBody: "malformedBody"
        case .truncatedBody: "truncatedBody"
        }
    }
}

/// A fault plus when it applies.
///
/// A rule matches a request when the method (if set) is equal, case-insensitively, and the path starts with
/// `pathPrefix` (if set). A matching rule then fires with `probability` (drawn from the injector's seeded generator;
/// nil means always). A firing rule counts down `count` (nil means forever) and is removed when it reaches zero.
public struct FaultRule: Sendable, Hashable, Identifiable {
    /// Names the rule for the admin API's `DELETE`; generated (`fault-…`) when not given.
    public var id: String
    /// What the rule does to a request it fires on.
    public var fault: Fault
    /// The HTTP method the rule matches, upper-cased; `nil` for any.
    public var method: String?
    /// The path prefix the rule matches (`/v2/orders`); `nil` for any path.
    public var pathPrefix: String?
    /// Fire on the next `count` matching requests, then disappear; nil for no limit.
    public var count: Int?
    /// Chance (0...1) that a matching request fires the rule; nil for always.
    public var probability: Double?
    /// How many times the rule has fired (reported by the admin API).
    public var fired: Int

    /// Makes a rule; `method` is upper-cased, and an id is generated when none is given.
    public init(
        _ fault: Fault,
        method: String? = nil,
        pathPrefix: String? = nil,
        count: Int? = nil,
        probability: Double? = nil,
        id: String? = nil
    ) {
        self.id = id ?? Self.makeID()
        self.fault = fault
        self.method = method?.uppercased()
        self.pathPrefix = pathPrefix
        self.count = count
        self.probability = probability
        self.fired = 0
    }

    static func makeID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "fault-" + String(generator.next() & 0xFFFF_FFFF_FFFF, radix: 16)
    }

    func matches(method: String, path: String) -> Bool {
        if let ruleMethod = self.method, ruleMethod != method.uppercased() { return false }
        if let prefix = pathPrefix, !path.hasPrefix(prefix) { return false }
        return true
    }

    /// Problems with the rule's values, if any.
    public var validationProblem: String? {
        switch fault {
        case .latency(let ms) where !(0...600_000).contains(ms):
            return "latencyMs must be between 0 and 600000"
        case .error(let status, _) where !(400...599).contains(status):
            return "status must be between 400 and 599"
        case .tooManyRequests(let retry?) where retry < 0:
            return "retryAfterSeconds must not be negative"
        default: break
        }
        if let count, count < 1 { return "count must be at least 1" }
        if let probability, !(0...1).contains(probability) || probability.isNaN { return "probability must be between 0 and 1" }
        return nil
    }
}
