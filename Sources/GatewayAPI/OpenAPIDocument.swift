public import Foundation
public import GatewayApp
import GatewayCore
import GatewayModel
import OpenAPIRuntime

/// The OpenAPI document the server is generated from (Sources/GatewayAPI/openapi.json, edited by hand): the same
/// bytes the generator read at build time are served at `/openapi.json`, and the same document says which
/// operations need no credential (`security: []`).
public struct OpenAPIDocument: Sendable {
    /// The document as it is in the repository.
    public let data: Data
    /// Operations whose `security` is empty: they answer without an API key.
    public let publicOperationIDs: Set<String>
    /// The scope each secured operation declares (its security requirement's one scope), by operation id.
    public let requiredScopes: [String: Scope]
    /// Operations that act for one of the tenant's users: they declare the `X-User-ID` header.
    public let userScopedOperationIDs: Set<String>
    /// The secured operations that take tenant API keys (`apiKey`).
    public let apiKeyOperationIDs: Set<String>
    /// The secured operations that take end users' sessions (`session`); an operation may take both.
    public let sessionOperationIDs: Set<String>
    /// Each operation's id by `METHOD path` (`GET /v1/orders/{id}`).
    let operationIDsByRoute: [String: String]
    let object: OpenAPIObjectContainer
    /// Each operation's query parameters with their schemas (references resolved), by operation id.
    let queryParameters: [String: [QueryParameter]]
    /// Each documented path as its segments (`{id}` matches any one segment) and the methods it has.
    let pathMethods: [(segments: [Substring], methods: [String])]

    /// What the document says one query parameter may hold.
    struct QueryParameter: Sendable {
        var name: String
        var allowed: [String]?
        var integerRange: ClosedRange<Int>?
        var isInteger: Bool
        var isDateTime: Bool
        var required: Bool
        /// The rule of a schema a model type holds (``modelRules``): the problem with a value, or `nil`.
        var rule: (@Sendable (String) -> String?)? = nil
    }

    /// The schemas whose rule is a model type's own, by name: the document states it in JSON Schema (`BrokerKind`'s
    /// open branch: a pattern and lengths), the type's decoder refuses what breaks it, and this says which rule a
    /// query parameter that did not decode broke. `OpenBrokerKindTests` hold the document's rule to the type's.
    static let modelRules: [String: @Sendable (String) -> String?] = [
        "BrokerKind": { BrokerKind.problem(with: $0) }
    ]

    /// The document built into the server, read and parsed once per process (every router shares it).
    public static func bundled() throws -> OpenAPIDocument {
        try bundledDocument.get()
    }

    private static let bundledDocument = Result<OpenAPIDocument, any Error> {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json") else {
            throw GatewayError(.internalError, "the OpenAPI document is missing from the build")
        }
        return try OpenAPIDocument(data: Data(contentsOf: url))
    }

    /// Parses a document (the bundled one, or a test's): the operations, their scopes, credentials and query
    /// parameters are read once here, so authentication and query checks never walk the JSON per request.
    public init(data: Data) throws {
        self.data = data
        object = try JSONDecoder().decode(OpenAPIObjectContainer.self, from: data)
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let paths = root["paths"] as? [String: [String: Any]]
        else {
            throw GatewayError(.internalError, "the OpenAPI document has no paths")
        }
        let schemas = (root["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]] ?? [:]
        var open: Set<String> = []
        var scopes: [String: Scope] = [:]
        var userScoped: Set<String> = []
        var byKey: Set<String> = []
        var bySession: Set<String> = []
        var queries: [String: [QueryParameter]] = [:]
        let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        pathMethods = paths.map { path, item in
            (path.split(separator: "/"), methods.filter { item[$0] != nil }.map { $0.uppercased() })
        }
        var routes: [String: String] = [:]
        for (path, item) in paths {
            for method in methods {
                if let id = (item[method] as? [String: Any])?["operationId"] as? String { routes["\(method.uppercased()) \(path)"] = id }
            }
        }
        operationIDsByRoute = routes
        for item in paths.values {
            for case let operation as [String: Any] in item.values {
                guard let id = operation["operationId"] as? String else { continue }
                switch try Self.declaredScope(operationID: id, operation["security"]) {
                case nil: open.insert(id)
                case let (scope, schemes)?:
                    scopes[id] = scope
                    if schemes.contains("apiKey") { byKey.insert(id) }
                    if schemes.contains("session") { bySession.insert(id) }
                }
                for case let parameter as [String: Any] in operation["parameters"] as? [Any] ?? [] {
                    if parameter["$ref"] as? String == Self.userParameterReference { userScoped.insert(id) }
                    guard parameter["in"] as? String == "query", let name = parameter["name"] as? String,
                        var schema = parameter["schema"] as? [String: Any]
                    else { continue }
                    var rule: (@Sendable (String) -> String?)?
                    if let ref = schema["$ref"] as? String {
                        let schemaName = String(ref.split(separator: "/").last ?? "")
                        rule = Self.modelRules[schemaName]
                        if let target = schemas[schemaName] { schema = target }
                    }
                    let minimum = schema["minimum"] as? Int
                    let maximum = schema["maximum"] as? Int
                    queries[id, default: []].append(
                        QueryParameter(
                            name: name,
                            allowed: schema["enum"] as? [String],
                            integerRange: minimum.flatMap { low in maximum.map { low...$0 } },
                            isInteger: schema["type"] as? String == "integer",
                            isDateTime: schema["format"] as? String == "date-time",
                            required: parameter["required"] as? Bool ?? false,
                            rule: rule
                        )
                    )
                }
            }
        }
        publicOperationIDs = open
        requiredScopes = scopes
        userScopedOperationIDs = userScoped
        apiKeyOperationIDs = byKey
        sessionOperationIDs = bySession
        queryParameters = queries
    }

    static let userParameterReference = "#/components/parameters/UserId"

    /// The id of the operation at a documented path and method (`GET`, `/v1/orders/{id}`).
    public func operationID(method: String, path: String) -> String? {
        operationIDsByRoute["\(method.uppercased()) \(path)"]
    }

    /// The scope an operation's `security` declares and the schemes that may present it: `nil` for an open operation
    /// (`[]`). Anything else than one or two requirements, each of one known scheme (`apiKey`, `session`) naming the
    /// same one known scope, makes the document refuse to load, so an operation added without a declared scope
    /// fails every test rather than being open or all-powerful.
    static func declaredScope(operationID: String, _ security: Any?) throws -> (Scope, Set<String>)? {
        guard let requirements = security as? [Any] else {
            throw GatewayError(.internalError, "operation \(operationID) declares no security (a scope, or [] for an open operation)")
        }
        if requirements.isEmpty { return nil }
        var scope: Scope?
        var schemes: Set<String> = []
        for case let requirement as [String: Any] in requirements {
            guard requirement.count == 1, let (scheme, value) = requirement.first, ["apiKey", "session"].contains(scheme),
                !schemes.contains(scheme), let names = value as? [String], names.count == 1,
                let named = Scope(rawValue: names[0]), scope == nil || scope == named
            else { break }
            scope = named
            schemes.insert(scheme)
        }
        guard let scope, schemes.count == requirements.count, !(schemes.contains("session") && scope == .admin) else {
            throw GatewayError(
                .internalError,
                "operation \(operationID) must declare exactly one scope (read, trade or admin) for the apiKey and/or session scheme (never admin for a session)"
            )
        }
        return (scope, schemes)
    }

    /// The methods the document has for a request path, or `nil` when it documents no such path.
    func allowedMethods(forPath path: String) -> [String]? {
        let segments = path.split(separator: "/")
        // The most literal template wins (`/v1/connections/authenticate` over `/v1/connections/{id}`), as in routing.
        var best: (placeholders: Int, methods: [String])?
        for (template, methods) in pathMethods where template.count == segments.count {
            var placeholders = 0
            let matches = zip(template, segments).allSatisfy { pattern, segment in
                if pattern.hasPrefix("{") && pattern.hasSuffix("}") {
                    placeholders += 1
                    return true
                }
                return pattern == segment
            }
            if matches, placeholders < best?.placeholders ?? .max { best = (placeholders, methods) }
        }
        return best?.methods
    }

    /// The first query parameter of `operationID` whose value the document does not allow, said as a problem.
    /// The generated server reports a parameter that did not decode without its name; this names it.
    func queryProblem(operationID: String, query: Substring) -> FieldProblem? {
        var values: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(parts[1])) : ""
            if values[name] == nil { values[name] = value }
        }
        for parameter in queryParameters[operationID] ?? [] {
            guard let value = values[parameter.name] else {
                if parameter.required { return FieldProblem(field: parameter.name, problem: "is required") }
                continue
            }
            if let allowed = parameter.allowed, !allowed.contains(value) {
                return FieldProblem(field: parameter.name, problem: "must be one of: \(allowed.joined(separator: ", "))")
            }
            if let problem = parameter.rule?(value) {
                return FieldProblem(field: parameter.name, problem: problem)
            }
            if parameter.isInteger, Int(value) == nil {
                let range = parameter.integerRange.map { " from \($0.lowerBound) to \($0.upperBound)" } ?? ""
                return FieldProblem(field: parameter.name, problem: "must be a whole number\(range)")
            }
            if parameter.isDateTime, APIJSON.parseTimestamp(value) == nil {
                return FieldProblem(field: parameter.name, problem: "must be an RFC 3339 timestamp such as 2026-01-31T15:04:05Z")
            }
        }
        return nil
    }
}
