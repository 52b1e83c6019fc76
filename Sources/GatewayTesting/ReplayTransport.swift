public import Foundation
public import GatewayCore
import HTTPTypes
import Synchronization

/// A request as recorded in a contract case or a test: what the adapter must send.
public struct RecordedRequest: Codable, Sendable, Hashable {
    /// The HTTP method the adapter must use (`GET`, `POST`…).
    public var method: String
    /// The path after the base URL, without the query (`/v2/orders`).
    public var path: String
    /// Query parameters that must be present with these values (others may be present too).
    public var query: [String: String]?
    /// Headers that must be present with these values (names compared case-insensitively).
    public var headers: [String: String]?
    /// The JSON body the adapter must send, compared by meaning.
    public var body: JSONValue?
    /// A form-encoded body (`a=1&b=2`), compared as a set of fields.
    public var form: [String: String]?

    /// Makes a recorded request in code, as a case file would hold it; only what is given is checked.
    public init(
        method: String,
        path: String,
        query: [String: String]? = nil,
        headers: [String: String]? = nil,
        body: JSONValue? = nil,
        form: [String: String]? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.form = form
    }
}

/// A broker's recorded answer.
public struct RecordedResponse: Codable, Sendable, Hashable {
    /// The status the broker answered with.
    public var status: Int
    /// Response headers the adapter sees (a rate limit's `X-RateLimit-Reset`, a `Retry-After`).
    public var headers: [String: String]?
    /// A JSON body.
    public var body: JSONValue?
    /// A body that is not JSON (or is deliberately malformed), sent as is.
    public var rawBody: String?

    /// Makes a recorded answer in code; give `body` or `rawBody`, or neither for an empty body.
    public init(status: Int, headers: [String: String]? = nil, body: JSONValue? = nil, rawBody: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.rawBody = rawBody
    }

    /// The bytes the transport answers with: `rawBody` as is, else `body` as compact JSON, else nothing.
    public var bodyData: Data {
        if let rawBody { return Data(rawBody.utf8) }
        if let body { return body.data }
        return Data()
    }
}

/// One request the adapter must send and the answer it gets, as `ReplayTransport` replays them.
public struct RecordedExchange: Codable, Sendable, Hashable {
    /// What the adapter must send.
    public var request: RecordedRequest
    /// What it is answered with.
    public var response: RecordedResponse

    /// Pairs a request with its answer.
    public init(request: RecordedRequest, response: RecordedResponse) {
        self.request = request
        self.response = response
    }
}

/// Why a replayed request did not match.
public struct ReplayMismatch: Error, Sendable, CustomStringConvertible {
    /// What differed between the request sent and the one recorded.
    public var description: String
}

/// A `BrokerTransport` that answers from recorded exchanges and fails on anything it was not told to expect.
///
/// Exchanges are consumed in order (`ordered`) or each at most once in any order; the first that matches answers.
/// Every request is kept, so a test can also inspect what was sent.
public final class ReplayTransport: BrokerTransport {
    struct State {
        var remaining: [RecordedExchange]
        var sent: [BrokerRequest] = []
        var mismatches: [String] = []
    }

    /// The base URL recorded paths are relative to; a request elsewhere matches nothing.
    public let baseURL: String
    let ordered: Bool
    let state: Mutex<State>

    /// Replays `exchanges` against requests to `baseURL`: in the recorded order when `ordered`, else each at most once in
    /// any order (for adapters that call concurrently).
    public init(baseURL: String, exchanges: [RecordedExchange], ordered: Bool = true) {
        self.baseURL = baseURL
        self.ordered = ordered
        self.state = Mutex(State(remaining: exchanges))
    }

    /// Requests the adapter sent, in order.
    public var sentRequests: [BrokerRequest] { state.withLock { $0.sent } }
    /// Recorded exchanges the adapter never asked for.
    public var unusedExchanges: [RecordedExchange] { state.withLock { $0.remaining } }
    /// Every request that matched nothing, explained.
    public var mismatches: [String] { state.withLock { $0.mismatches } }

    /// Answers with the first remaining exchange that matches the request and uses it up; a request that matches none is
    /// recorded in ``mismatches`` and fails with ``ReplayMismatch``.
    public func send(_ request: BrokerRequest) async throws -> BrokerResponse {
        try state.withLock { state in
            state.sent.append(request)
            let candidates = ordered ? Array(state.remaining.indices.prefix(1)) : Array(state.remaining.indices)
            var reasons: [String] = []
            for index in candidates {
                let exchange = state.remaining[index]
                if let reason = Self.mismatch(request, exchange.request, baseURL: baseURL) {
                    reasons.append(reason)
                    continue
                }
                state.remaining.remove(at: index)
                return BrokerResponse(
                    status: exchange.response.status,
                    headers: HTTPFields(
                        pairs: (exchange.response.headers ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
                    ),
                    body: exchange.response.bodyData
                )
            }
            let explanation =
                "unexpected \(request.method) \(request.url): "
                + (reasons.isEmpty ? "no recorded exchange left" : reasons.joined(separator: " | "))
            state.mismatches.append(explanation)
            throw ReplayMismatch(description: explanation)
        }
    }

    /// `nil` when `request` satisfies `recorded`, else the first difference.
    public static func mismatch(_ request: BrokerRequest, _ recorded: RecordedRequest, baseURL: String) -> String? {
        if request.method.rawValue.uppercased() != recorded.method.uppercased() {
            return "method \(request.method.rawValue) is not \(recorded.method)"
        }
        guard request.url.hasPrefix(baseURL) else { return "URL \(request.url) is not under \(baseURL)" }
        let rest = String(request.url.dropFirst(baseURL.count))
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? ""
        let decodedPath = path.removingPercentEncoding ?? path
        let recordedPath = recorded.path.removingPercentEncoding ?? recorded.path
        if decodedPath != recordedPath { return "path \(path) is not \(recorded.path)" }
        let query = Self.parseForm(parts.count > 1 ? String(parts[1]) : "")
        for (name, value) in recorded.query ?? [:] where query[name] != value {
            return "query \(name)=\(query[name] ?? "(missing)") is not \(value)"
        }
        for (name, value) in recorded.headers ?? [:] where request.header(name) != value {
            return "header \(name) is \(request.header(name) == nil ? "missing" : "different")"
        }
        if let expected = recorded.body {
            guard let data = request.body, let actual = JSONValue(data: data) else { return "body is not JSON" }
            if actual != expected { return "body \(actual) is not \(expected)" }
        }
        if let expected = recorded.form {
            let actual = Self.parseForm(request.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
            if actual != expected { return "form \(actual) is not \(expected)" }
        }
        return nil
    }

    /// Parses `a=1&b=x%20y` (also `+` for space).
    public static func parseForm(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") where !pair.isEmpty {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
            }
            fields[decode(kv[0])] = kv.count > 1 ? decode(kv[1]) : ""
        }
        return fields
    }
}
