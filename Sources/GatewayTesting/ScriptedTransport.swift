public import Foundation
public import GatewayCore
public import HTTPTypes
import Synchronization

/// The one scripted broker for tests: a `BrokerTransport` that answers by route (method and path) from a handler or
/// a queue of scripted answers, keeps every request it saw, and refuses a request nobody scripted.
///
/// Tests used to write a double per file (a queue here, a router there, a counter around a real transport); each
/// did one of these things and none failed the same way on a request it was not told about. One double with one
/// failure keeps a missing script loud everywhere: the request is kept in ``unscriptedRequests``, handed to the
/// observer set with ``onUnscripted(_:)`` (a test passes `{ Issue.record(...) }`; this target does not link Swift
/// Testing, since the `gateway` binary's contract verifier links it), and fails with a `GatewayError` that names it.
///
/// ```swift
/// let broker = ScriptedTransport(base: "https://venue.example/api/v1")
///     .on("GET /markets", answers: [ScriptedTransport.text(200, "[]")])
///     .on("POST /order/buy") { _ in throw GatewayError(.upstreamTimeout, "lost") }
/// ```
///
/// A route's path is the request's path after `base` (the URL's path when there is no base), compared without the
/// query unless the route's path has one. Routes are tried in the order they were added; a request that matches
/// none goes to the fallback handler (``init(_:)``) if there is one.
public final class ScriptedTransport: BrokerTransport {
    /// Answers one request.
    public typealias Handler = @Sendable (BrokerRequest) async throws -> BrokerResponse
    /// Answers one request given its number among all requests this transport saw (1 for the first).
    public typealias NumberedHandler = @Sendable (_ number: Int, _ request: BrokerRequest) async throws -> BrokerResponse

    /// What a queue of answers does once its last answer has been given.
    public enum AfterLast: Sendable {
        /// The last answer again, for ever (a broker that settled).
        case repeatLast
        /// This answer for ever (a broker that recovers after the scripted failures).
        case answer(BrokerResponse)
        /// The request is unscripted: kept, reported, and failed.
        case unscripted
    }

    private enum Script: Sendable {
        case handler(NumberedHandler)
        case queue(Int)
    }

    private struct Route: Sendable {
        var method: HTTPRequest.Method?
        var path: String?
        var script: Script
    }

    private struct Queue {
        var answers: [BrokerResponse]
        var afterLast: AfterLast
    }

    private struct State {
        var routes: [Route] = []
        var queues: [Queue] = []
        var requests: [BrokerRequest] = []
        var unscripted: [BrokerRequest] = []
        var onUnscripted: (@Sendable (BrokerRequest) -> Void)?
        var inFlight = 0
        var maxInFlight = 0
    }

    /// The URL prefix route paths are relative to; `nil` compares route paths with the URL's path.
    public let base: String?
    /// How long every answer waits before it is given (a slow broker); zero answers at once.
    public let delay: Duration
    private let unscriptedCode: GatewayError.Code
    private let fallback: NumberedHandler?
    private let state = Mutex(State())

    /// A transport with no routes yet: add them with ``on(_:answers:afterLast:)`` and ``on(_:_:)``.
    ///
    /// - Parameter unscripted: the code of the error an unscripted request fails with (`upstream_unavailable` when
    ///   the test wants it to look like a broker that is down).
    public convenience init(base: String? = nil, delay: Duration = .zero, unscripted: GatewayError.Code = .internalError) {
        self.init(base: base, delay: delay, unscripted: unscripted, fallback: nil)
    }

    private init(base: String?, delay: Duration, unscripted: GatewayError.Code, fallback: NumberedHandler?) {
        self.base = base
        self.delay = delay
        self.unscriptedCode = unscripted
        self.fallback = fallback
    }

    /// Every request to `handler` (after any routes added later).
    public convenience init(delay: Duration = .zero, _ handler: @escaping Handler) {
        self.init(base: nil, delay: delay, unscripted: .internalError, fallback: { _, request in try await handler(request) })
    }

    /// Every request to `handler`, with its number (1 for the first): a broker that fails the first attempts.
    public convenience init(delay: Duration = .zero, numbered handler: @escaping NumberedHandler) {
        self.init(base: nil, delay: delay, unscripted: .internalError, fallback: handler)
    }

    /// Every request answered by the next of `answers`, in order, whatever its route.
    public convenience init(
        answers: [BrokerResponse],
        afterLast: AfterLast = .unscripted,
        unscripted: GatewayError.Code = .internalError
    ) {
        self.init(unscripted: unscripted)
        add(method: nil, path: nil, answers: answers, afterLast: afterLast)
    }

    /// Routes given as `"METHOD /path"` keys, each answered by its queue (status and body text) in order.
    public convenience init(
        base: String? = nil,
        routes: [String: [(status: Int, body: String)]],
        afterLast: AfterLast = .repeatLast,
        delay: Duration = .zero,
        unscripted: GatewayError.Code = .internalError
    ) {
        self.init(base: base, delay: delay, unscripted: unscripted)
        for (route, answers) in routes.sorted(by: { $0.key < $1.key }) {
            on(route, answers: answers.map { Self.text($0.status, $0.body) }, afterLast: afterLast)
        }
    }

    /// Answers `route` (`"GET /v2/orders"`, or a path alone for any method) from `answers`, in order.
    @discardableResult
    public func on(_ route: String, answers: [BrokerResponse], afterLast: AfterLast = .repeatLast) -> Self {
        let (method, path) = Self.parse(route)
        add(method: method, path: path, answers: answers, afterLast: afterLast)
        return self
    }

    /// Answers `route` (`"GET /v2/orders"`, or a path alone for any method) with `handler`; a handler that throws
    /// fails the request with its error.
    @discardableResult
    public func on(_ route: String, _ handler: @escaping Handler) -> Self {
        let (method, path) = Self.parse(route)
        state.withLock { $0.routes.append(Route(method: method, path: path, script: .handler({ _, request in try await handler(request) }))) }
        return self
    }

    /// Calls `observer` with every unscripted request, before it fails (a test records an issue there).
    @discardableResult
    public func onUnscripted(_ observer: @escaping @Sendable (BrokerRequest) -> Void) -> Self {
        state.withLock { $0.onUnscripted = observer }
        return self
    }

    private func add(method: HTTPRequest.Method?, path: String?, answers: [BrokerResponse], afterLast: AfterLast) {
        state.withLock { state in
            state.queues.append(Queue(answers: answers, afterLast: afterLast))
            state.routes.append(Route(method: method, path: path, script: .queue(state.queues.count - 1)))
        }
    }

    // MARK: What it saw

    /// Every request, in the order they arrived.
    public var requests: [BrokerRequest] { state.withLock { $0.requests } }
    /// How many requests arrived.
    public var count: Int { state.withLock { $0.requests.count } }
    /// The requests that matched no script.
    public var unscriptedRequests: [BrokerRequest] { state.withLock { $0.unscripted } }
    /// The most requests that were being answered at once.
    public var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    /// The requests whose path (after `base`, without the query) is `path`.
    public func requests(path: String) -> [BrokerRequest] { requests.filter { relativePath(of: $0) == path } }
    /// How many requests went to a path ending with `suffix` (a token endpoint, say).
    public func count(pathSuffix suffix: String) -> Int { requests.filter { relativePath(of: $0).hasSuffix(suffix) }.count }

    /// The URL's path, without the query; the whole URL when it does not parse.
    public static func path(of request: BrokerRequest) -> String {
        URL(string: request.url)?.path ?? request.url
    }

    /// A response with `body` as UTF-8 text.
    public static func text(_ status: Int, _ body: String = "", headers: [(name: String, value: String)] = []) -> BrokerResponse {
        BrokerResponse(status: status, headers: headers, body: Data(body.utf8))
    }

    // MARK: Answering

    /// Records the request, then answers it from the first route that matches (its handler, or the next answer of its
    /// queue), else from the fallback; a request nothing answers fails loudly (see the type's note).
    public func send(_ request: BrokerRequest) async throws -> BrokerResponse {
        let (number, route) = state.withLock { state in
            state.requests.append(request)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            return (state.requests.count, state.routes.first { matches($0, request) })
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        if delay > .zero { try await Task.sleep(for: delay) }
        switch route?.script {
        case .handler(let handler):
            return try await handler(number, request)
        case .queue(let index):
            if let answer = state.withLock({ Self.next(from: &$0.queues[index]) }) { return answer }
            return try unscripted(request, "its scripted answers are used up")
        case nil:
            if let fallback { return try await fallback(number, request) }
            return try unscripted(request, "no route matches it")
        }
    }

    private static func next(from queue: inout Queue) -> BrokerResponse? {
        if queue.answers.count > 1 { return queue.answers.removeFirst() }
        switch queue.afterLast {
        case .repeatLast: return queue.answers.first
        case .answer(let answer): return queue.answers.isEmpty ? answer : queue.answers.removeFirst()
        case .unscripted: return queue.answers.isEmpty ? nil : queue.answers.removeFirst()
        }
    }

    private func unscripted(_ request: BrokerRequest, _ why: String) throws -> BrokerResponse {
        let observer = state.withLock { state in
            state.unscripted.append(request)
            return state.onUnscripted
        }
        observer?(request)
        throw GatewayError(unscriptedCode, "ScriptedTransport: \(request.method.rawValue) \(request.url) is not scripted (\(why))")
    }

    private func matches(_ route: Route, _ request: BrokerRequest) -> Bool {
        if let method = route.method, method != request.method { return false }
        guard let path = route.path else { return true }
        return path.contains("?") ? relativeTarget(of: request) == path : relativePath(of: request) == path
    }

    /// The URL after `base` (query included), or the URL's path and query when there is no base or it differs.
    private func relativeTarget(of request: BrokerRequest) -> String {
        if let base, request.url.hasPrefix(base) { return String(request.url.dropFirst(base.count)) }
        guard let components = URLComponents(string: request.url) else { return request.url }
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    private func relativePath(of request: BrokerRequest) -> String {
        let target = relativeTarget(of: request)
        return target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
    }

    /// `"GET /path"` as a method and a path; a bare path matches any method.
    private static func parse(_ route: String) -> (HTTPRequest.Method?, String) {
        let parts = route.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let method = HTTPRequest.Method(String(parts[0])) else { return (nil, route) }
        return (method, String(parts[1]))
    }
}
