import Foundation
import Hummingbird
import SandboxKit

/// One request to an OpenAPI endpoint, with what the dispatcher learnt about it.
struct SaxoCall {
    let request: Request
    let context: SandboxRequestContext
    let parameters: [String: String]
    let query: QueryParameters
    /// The client the session belongs to (whose account every portfolio and trading endpoint reaches).
    let client: SaxoSandboxClient
    /// When that client last signed in.
    let lastLogin: Date
    /// The authenticated session (see ``SaxoTokenStore``).
    var session: String { context.principal ?? "" }

    func parameter(_ name: String) -> String { parameters[name] ?? "" }

    /// The JSON body; anything else is Saxo's 400.
    func body() async throws -> JSON {
        let buffer = try await request.body(in: context)
        do {
            return try JSON(parsing: Array(buffer: buffer))
        } catch {
            throw SaxoAPIError.malformedBody(buffer.readableBytes == 0 ? "the body is empty" : error.description)
        }
    }
}

/// The HTTP surface of ``SaxoSandbox`` under `/sim/openapi/`: a small route table matched case-insensitively
/// (Saxo's routes are ASP.NET routes), ignoring trailing slashes. `{Name*}` captures one or more segments, which is
/// how `port/v1/orders/{ClientKey}/{OrderId}` still works when a client puts a `ClientKey` containing `/`
/// into the path without encoding it (as `saxo_openapi` does).
struct SaxoRoutes: Sendable {
    typealias Handler = @Sendable (SaxoCall) async throws -> Response

    struct Route: Sendable {
        enum Segment: Sendable {
            case literal(String)
            case parameter(String)
            case greedy(String)
        }

        let method: HTTPRequest.Method
        let segments: [Segment]
        let handler: Handler

        init(_ method: HTTPRequest.Method, _ pattern: String, _ handler: @escaping Handler) {
            self.method = method
            self.segments = pattern.split(separator: "/").map { part in
                if part.hasPrefix("{"), part.hasSuffix("*}") { return .greedy(String(part.dropFirst().dropLast(2))) }
                if part.hasPrefix("{"), part.hasSuffix("}") { return .parameter(String(part.dropFirst().dropLast())) }
                return .literal(part.lowercased())
            }
            self.handler = handler
        }

        func match(_ path: [String]) -> [String: String]? {
            let hasGreedy = segments.contains { if case .greedy = $0 { true } else { false } }
            guard hasGreedy ? path.count >= segments.count : path.count == segments.count else { return nil }
            var parameters: [String: String] = [:]
            var index = 0
            for segment in segments {
                switch segment {
                case .literal(let text):
                    guard path[index].lowercased() == text else { return nil }
                    index += 1
                case .parameter(let name):
                    parameters[name] = path[index]
                    index += 1
                case .greedy(let name):
                    let take = path.count - segments.count + 1
                    parameters[name] = path[index..<(index + take)].joined(separator: "/")
                    index += take
                }
            }
            return parameters
        }
    }

    let sandbox: SaxoSandbox
    private let routes: [Route]

    init(sandbox: SaxoSandbox) {
        self.sandbox = sandbox
        var routes: [Route] = []
        Self.portfolioRoutes(sandbox, into: &routes)
        Self.tradingRoutes(sandbox, into: &routes)
        Self.auditRoutes(sandbox, into: &routes)
        Self.referenceDataRoutes(sandbox, into: &routes)
        Self.priceRoutes(sandbox, into: &routes)
        Self.rootRoutes(sandbox, into: &routes)
        self.routes = routes
    }

    func dispatch(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let path = SaxoPath(request.uri.path).segments
        var pathMatched = false
        for route in routes {
            guard let parameters = route.match(path) else { continue }
            pathMatched = true
            guard route.method == request.method else { continue }
            guard let (client, lastLogin) = sandbox.client(ofSession: context.principal ?? "") else { throw SaxoAPIError.unauthorized }
            return try await route.handler(
                SaxoCall(
                    request: request,
                    context: context,
                    parameters: parameters,
                    query: request.queryParameters,
                    client: client,
                    lastLogin: lastLogin
                )
            )
        }
        throw SaxoAPIError.forStatus(pathMatched ? 405 : 404)
    }
}

// MARK: Shared helpers

extension SaxoRoutes {
    /// Saxo's list envelope: `{"__count":3,"Data":[...],"__next":"<absolute url>"}` with `$top` (≤ 1000) and `$skip`.
    /// `__count` is sent when `alwaysCount` (the portfolio lists always send it) or when asked with `$inlinecount=AllPages`.
    static func envelope(_ items: [JSON], _ call: SaxoCall, alwaysCount: Bool) throws(SaxoAPIError) -> JSON {
        let top = try integerOption("$top", call.query, default: 1000).map { min($0, 1000) } ?? 1000
        let skip = try integerOption("$skip", call.query, default: 0) ?? 0
        if let inline = call.query["$inlinecount"], !["AllPages", "None", ""].contains(inline) {
            throw .invalidQuery("$inlinecount", inline)
        }
        let page = Array(items.dropFirst(skip).prefix(top))
        var members: [(String, JSON?)] = []
        if alwaysCount || call.query["$inlinecount"] == "AllPages" { members.append(("__count", .int(items.count))) }
        members.append(("Data", .array(page)))
        // Compared without adding, so a huge $skip cannot overflow.
        if skip < items.count, items.count - skip > top { members.append(("__next", .string(nextURL(call, top: top, skip: skip + top)))) }
        return SaxoWire.object(members)
    }

    private static func integerOption(_ name: String, _ query: QueryParameters, default value: Int) throws(SaxoAPIError) -> Int? {
        guard let text = query[name], !text.isEmpty else { return value }
        guard let number = Int(text), number >= 0 else { throw .invalidQuery(name, text) }
        return number
    }

    /// The same request with `$top`/`$skip` moved on, as an absolute URL; other parameters keep their encoding.
    static func nextURL(_ call: SaxoCall, top: Int, skip: Int) -> String {
        let host = call.request.head.authority ?? "localhost"
        var items = (call.request.uri.query ?? "").split(separator: "&", omittingEmptySubsequences: true).filter { item in
            let name = item.split(separator: "=", maxSplits: 1).first.map { String($0).removingPercentEncoding ?? String($0) } ?? ""
            return name != "$top" && name != "$skip"
        }.map(String.init)
        items += ["$top=\(top)", "$skip=\(skip)"]
        return "http://\(host)\(call.request.uri.path)?\(items.joined(separator: "&"))"
    }

    /// `FieldGroups=A,B` → canonical spellings; an unknown group is a 400, as Saxo's enum binding makes it.
    static func fieldGroups(_ call: SaxoCall, allowed: [String], default defaults: [String]) throws(SaxoAPIError) -> Set<String> {
        guard let text = call.query["FieldGroups"], !text.trimmingCharacters(in: .whitespaces).isEmpty else { return Set(defaults) }
        var result: Set<String> = []
        for raw in text.split(separator: ",") {
            let name = raw.trimmingCharacters(in: .whitespaces)
            guard let match = allowed.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw .invalidModelState("FieldGroups", "The value '\(name)' is not valid for FieldGroups.")
            }
            result.insert(match)
        }
        return result
    }

    /// Checks a `ClientKey` query parameter against the client. Keys are base64 with `+`, `/` and `=`: a client that
    /// does not percent-encode `+` sends a space instead, and the key is rejected here.
    static func checkClientKey(_ call: SaxoCall, _ client: SaxoSandboxClient, required: Bool) throws(SaxoAPIError) {
        guard let key = call.query["ClientKey"], !key.isEmpty else {
            if required { throw .invalidModelState("ClientKey", "The ClientKey field is required.") }
            return
        }
        guard key == client.clientKey else {
            throw .invalidModelState("ClientKey", "Invalid ClientKey '\(key)'. Keys must be percent-encoded in the query string.")
        }
    }

    static func checkAccountKey(_ key: String?, _ client: SaxoSandboxClient, wrapped: Bool = false) throws(SaxoAPIError) {
        guard let key, !key.isEmpty else { return }
        guard key == client.accountKey else {
            let error = SaxoAPIError.invalidModelState("AccountKey", "Invalid AccountKey '\(key)'.")
            throw wrapped ? error.asOrderError : error
        }
    }
}
