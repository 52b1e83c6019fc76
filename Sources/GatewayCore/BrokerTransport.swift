public import Foundation
public import HTTPTypes

/// One HTTP exchange with a broker, as the transport and the pipeline's middlewares see it: typed method and
/// header fields (swift-http-types), plus what the middlewares need to decide without reading the URL or body.
public struct BrokerRequest: Sendable {
    /// The HTTP method; with `idempotent` unset, GET, HEAD and OPTIONS count as safe to retry.
    public var method: HTTPRequest.Method
    /// The absolute URL, query included.
    public var url: String
    /// The fields sent as they are, credentials included: the pipeline logs `loggedPath`, never these.
    public var headers: HTTPFields
    /// The body's bytes as sent, or `nil` for none; its media type is the `Content-Type` in `headers`.
    public var body: Data?
    /// How long the whole exchange (connect, send, receive the full body) may take; the pipeline also uses it as
    /// the call's deadline (rate-limit waits and retries included).
    public var timeout: Duration
    /// The largest response body accepted; a larger one fails as `malformed_response`. Adapters set it per
    /// operation, near the size of a real answer (a quote is kilobytes); the default is for calls that do not. What
    /// all calls hold at once is bounded apart from this, by the transport's ``ResponseBudget``.
    public var maxResponseBytes: Int
    /// What logs and error messages may show of the call: the path without query values or account ids.
    public var loggedPath: String
    /// Whether sending the request twice is harmless. Only idempotent requests are retried by the pipeline, so a
    /// placement, modification or cancel is never sent twice by it (some brokers' reads are POSTs: TradeIt).
    public var idempotent: Bool
    /// The in-process sandbox this call may reach despite the egress policy: set by ``AdapterRegistry`` (and only
    /// there) on every call of a connection configured as `sandbox://<name>`, to that sandbox's loopback origin.
    /// The transport lets exactly this origin through, never its `/_sandbox/` admin paths; every other URL, a
    /// tenant's `http://127.0.0.1:<port>` included, meets the policy.
    public var sandboxOrigin: EgressOrigin?

    /// Ten seconds: the `timeout` of a request that names none.
    public static let defaultTimeout: Duration = .seconds(10)
    /// 8 MiB: the `maxResponseBytes` of a request that names none, generous for a list; adapters set less where
    /// they know the answer's size.
    public static let defaultMaxResponseBytes = 8 * 1024 * 1024

    /// `loggedPath` defaults to the URL's path; `idempotent` to GET, HEAD and OPTIONS.
    public init(
        method: HTTPRequest.Method,
        url: String,
        headers: HTTPFields = [:],
        body: Data? = nil,
        timeout: Duration = BrokerRequest.defaultTimeout,
        maxResponseBytes: Int = BrokerRequest.defaultMaxResponseBytes,
        loggedPath: String? = nil,
        idempotent: Bool? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.loggedPath = loggedPath ?? URL(string: url)?.path ?? "-"
        self.idempotent = idempotent ?? [.get, .head, .options].contains(method)
    }

    /// The value of a header (several values joined by commas); `nil` when absent or `name` is not a valid name.
    public func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }
}

/// A broker's answer.
public struct BrokerResponse: Sendable {
    /// The HTTP status as the broker sent it; error statuses arrive here too, for the adapter's error table.
    public var status: Int
    /// The broker's response fields (rate-limit counters, `Retry-After`, correlation ids).
    public var headers: HTTPFields
    /// The whole body; `HTTPClientTransport` has held it to the request's `maxResponseBytes`.
    public var body: Data

    /// An answer from its parts, as transports and replay doubles build it.
    public init(status: Int, headers: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Headers given as name/value pairs (test scripts, recorded cases); pairs whose name is not a valid HTTP field
    /// name are dropped.
    public init(status: Int, headers: [(name: String, value: String)], body: Data = Data()) {
        self.init(status: status, headers: HTTPFields(pairs: headers), body: body)
    }

    /// The value of a header (several values joined by commas); `nil` when absent or `name` is not a valid name.
    public func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }
}

extension HTTPFields {
    /// Fields from name/value pairs, in order; a pair whose name is not a valid HTTP field name is dropped (a
    /// broker's or a test's text must never trap).
    public init(pairs: some Sequence<(name: String, value: String)>) {
        self.init()
        for pair in pairs {
            guard let name = HTTPField.Name(pair.name) else { continue }
            append(HTTPField(name: name, value: pair.value))
        }
    }

    /// Sets one field by its textual name, replacing any value; ignored when `name` is not a valid field name.
    public mutating func set(_ name: String, _ value: String) {
        guard let name = HTTPField.Name(name) else { return }
        self[name] = value
    }

    /// The value of a field by its textual name.
    public func value(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { self[$0] }
    }
}

/// The one seam between adapters and the network: production uses `HTTPClientTransport`; tests and contract
/// verification replace it with a replay transport. `BrokerPipeline` wraps it in the middleware chain.
///
/// Implementations throw `GatewayError` (`upstream_timeout`, `upstream_unavailable`, `malformed_response`) for
/// transport failures and return every HTTP status, error statuses included, for the adapter to interpret.
public protocol BrokerTransport: Sendable {
    /// Sends one request and returns the broker's answer whatever its status; called concurrently, and must honour
    /// task cancellation and `request.timeout`.
    func send(_ request: BrokerRequest) async throws -> BrokerResponse
}
