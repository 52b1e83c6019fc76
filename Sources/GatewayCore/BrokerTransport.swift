public import Foundation

/// One HTTP exchange with a broker, as an adapter describes it.
public struct BrokerRequest: Sendable {
    public var method: String
    /// The absolute URL, query included.
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// How long the whole exchange (connect, send, receive the full body) may take.
    public var timeout: Duration
    /// The largest response body accepted; a larger one fails as `malformed_response`.
    public var maxResponseBytes: Int

    public static let defaultTimeout: Duration = .seconds(10)
    public static let defaultMaxResponseBytes = 8 * 1024 * 1024

    public init(
        method: String, url: String, headers: [(name: String, value: String)] = [], body: Data? = nil,
        timeout: Duration = BrokerRequest.defaultTimeout, maxResponseBytes: Int = BrokerRequest.defaultMaxResponseBytes
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A broker's answer.
public struct BrokerResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// The one seam between adapters and the network: production uses `HTTPClientTransport`; tests and contract
/// verification replace it with a replay transport.
///
/// Implementations throw `GatewayError` (`upstream_timeout`, `upstream_unavailable`, `malformed_response`) for
/// transport failures and return every HTTP status, error statuses included, for the adapter to interpret.
public protocol BrokerTransport: Sendable {
    func send(_ request: BrokerRequest) async throws -> BrokerResponse
}
