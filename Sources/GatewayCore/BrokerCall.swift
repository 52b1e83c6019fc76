public import Foundation
public import HTTPTypes

/// One outbound call as an adapter describes it: typed method and headers, the absolute URL, and what logs may
/// show. Headers an adapter adds are its own (authentication, request ids); `Accept` and, with a body,
/// `Content-Type` are set by ``BrokerHTTPClient``.
public struct BrokerCall: Sendable {
    /// The HTTP method; with `isWrite` unset, it decides whether the call counts as a write.
    public var method: HTTPRequest.Method
    /// The absolute URL, query included.
    public var url: String
    /// What logs and error messages show for the call: the path without query values, and without ids where they
    /// identify an account's data (`/account/order/{uuid}`).
    public var loggedPath: String
    /// The adapter's own fields (authentication, request ids), appended after `Accept` and `Content-Type`; never
    /// logged.
    public var headers: HTTPFields
    /// The encoded body (``BrokerHTTPClient/json(_:)`` or ``BrokerURL/form(_:)``), or `nil` for none.
    public var body: Data?
    /// The body's media type; JSON unless said otherwise.
    public var contentType: String
    /// Whether the call changes something at the broker. Decides the default timeout (the client's write timeout)
    /// and whether the pipeline may retry it (never a write); by default, every method but GET and HEAD. Brokers
    /// whose reads are POSTs (TradeIt) say `isWrite: false` for them.
    public var isWrite: Bool
    /// Overrides the client's read or write timeout.
    public var timeout: Duration?
    /// Overrides `BrokerRequest.defaultMaxResponseBytes`.
    public var maxResponseBytes: Int?

    /// Describes a call. `loggedPath` has no default: only the adapter knows which parts of its URL are safe to log.
    public init(
        _ method: HTTPRequest.Method,
        url: String,
        loggedPath: String,
        headers: HTTPFields = [:],
        body: Data? = nil,
        contentType: String = BrokerCall.json,
        isWrite: Bool? = nil,
        timeout: Duration? = nil,
        maxResponseBytes: Int? = nil
    ) {
        self.method = method
        self.url = url
        self.loggedPath = loggedPath
        self.headers = headers
        self.body = body
        self.contentType = contentType
        self.isWrite = isWrite ?? !(method == .get || method == .head)
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// The `contentType` of a JSON body, the default.
    public static let json = "application/json"
    /// The `contentType` of a form body (``BrokerURL/form(_:)``), for endpoints that take forms (TradeOgre's API, Saxo's token endpoint).
    public static let form = "application/x-www-form-urlencoded"
}

/// URL pieces every broker dialect builds the same way.
public enum BrokerURL {
    /// RFC 3986 unreserved characters; everything else (`/`, `,`, `+`, `=`, `$` included) is percent-encoded, so
    /// ids that look like base64 (Saxo's `ClientKey`) or contain a slash survive as one segment or value.
    public static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// One path segment or query value, percent-encoded. `.` and `..` are unreserved but would walk the broker's
    /// path as a segment (an order id `..` turning `/v2/orders/..` into `/v2/`), so they are encoded too; the
    /// transport still refuses any URL with such a segment, encoded or not, since servers decode `%2E` before
    /// normalizing.
    public static func escape(_ text: String) -> String {
        if text == "." || text == ".." { return String(repeating: "%2E", count: text.count) }
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// `base + path`, and `?name=value&…` (escaped, in the given order) when there is a query.
    public static func make(base: String, path: String, query: [(name: String, value: String)] = []) -> String {
        guard !query.isEmpty else { return base + path }
        return base + path + "?" + query.map { "\(escape($0.name))=\(escape($0.value))" }.joined(separator: "&")
    }

    /// A form body (`application/x-www-form-urlencoded`), `a=1&b=2` in the given order, with the same strict encoding.
    public static func form(_ fields: [(String, String)]) -> Data {
        Data(fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&").utf8)
    }
}
