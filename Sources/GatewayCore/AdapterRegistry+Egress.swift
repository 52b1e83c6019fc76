import Foundation
public import GatewayModel
import Synchronization

/// The registry's side of the egress policy: the in-process sandboxes `sandbox://<name>` names, and the checks of a
/// connection's URLs that linking runs before anything is called.
extension AdapterRegistry {
    /// Tells the registry where an in-process sandbox listens (`http://127.0.0.1:PORT`), so `sandbox://<name>` base
    /// URLs work while it runs, and which path its adapter takes as the base (`/sim/openapi` for Saxo's).
    public func registerSandbox(_ name: String, broker: BrokerKind, url: String, basePath: String = "") {
        var origin = url
        while origin.hasSuffix("/") { origin.removeLast() }
        sandboxes.withLock { $0[name] = SandboxRegistration(broker: broker, url: origin, basePath: basePath) }
    }

    /// The URL to call for a configured base URL (`sandbox://saxo` becomes `http://127.0.0.1:PORT/sim/openapi`).
    public func resolveBaseURL(_ configured: String) throws -> String {
        try resolve(baseURL: configured).url
    }

    /// The URL to call for a configured base URL, and for `sandbox://<name>` the sandbox origin its calls may reach.
    /// `sandbox://<name>` is taken only exactly so (no path, query, fragment, port or user) and only while that
    /// sandbox runs in this gateway; any other URL is returned as it is, for the transport's egress check.
    public func resolve(baseURL configured: String) throws -> (url: String, sandboxOrigin: EgressOrigin?) {
        guard let name = try Self.sandboxName(configured) else { return (configured, nil) }
        guard let sandbox = sandboxes.withLock({ $0[name] }), let origin = EgressOrigin(url: sandbox.url) else {
            throw GatewayError(
                .upstreamUnavailable,
                "the built-in sandbox '\(name)' is not running in this gateway",
                retryable: false
            )
        }
        return (sandbox.url + sandbox.basePath, origin)
    }

    /// The name in `sandbox://<name>`; `nil` for a URL of another scheme; an error for any other `sandbox:` form.
    static func sandboxName(_ configured: String) throws(GatewayError) -> String? {
        guard let colon = configured.firstIndex(of: ":"), configured[..<colon].lowercased() == "sandbox" else { return nil }
        let rest = configured[colon...]
        guard rest.hasPrefix("://") else { throw sandboxFormError }
        let name = rest.dropFirst(3)
        guard !name.isEmpty, name.count <= 32,
            name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
        else { throw sandboxFormError }
        return String(name)
    }

    static let sandboxFormError = GatewayError(
        .invalidRequest,
        "a sandbox base URL is exactly sandbox://<name> (lowercase, no path, query or fragment)",
        retryable: false
    )

    /// What is wrong with a connection's base URL, as link-request problems (field `baseURL`): a `sandbox://` URL
    /// must name a sandbox running here for the same broker; any other must be an http(s) URL without user-info,
    /// query, fragment or `.`/`..` segments whose host, when it is an address, the egress policy allows. Names
    /// are resolved and checked when the gateway calls them.
    public func urlProblems(broker: BrokerKind, baseURL: String) -> [FieldProblem] {
        do {
            if let name = try Self.sandboxName(baseURL) {
                guard let sandbox = sandboxes.withLock({ $0[name] }) else {
                    return [
                        FieldProblem(
                            field: "baseURL",
                            problem: "names no sandbox running in this gateway (the sandboxes are off?)"
                        )
                    ]
                }
                guard sandbox.broker == broker else {
                    return [
                        FieldProblem(
                            field: "baseURL",
                            problem: "sandbox://\(name) is a \(sandbox.broker) sandbox, not \(broker)"
                        )
                    ]
                }
                return []
            }
        } catch {
            return [
                FieldProblem(
                    field: "baseURL",
                    problem: "must be exactly sandbox://<name> (no path, query or fragment) or an http(s) URL"
                )
            ]
        }
        return Self.urlProblems(baseURL, field: "baseURL", policy: egress)
    }

    /// What is wrong with URL-valued settings: every setting whose key ends in `URL` (any case) or whose value holds
    /// `://` (Alpaca's `dataBaseURL`, Saxo's `authBaseURL`, and any an adapter adds later) meets the same rules as
    /// a base URL, `sandbox://` excepted (a connection's settings never name a sandbox: they default to its base).
    public func urlProblems(settings: [String: String]) -> [FieldProblem] {
        settings.sorted { $0.key < $1.key }.flatMap { key, value -> [FieldProblem] in
            guard !value.isEmpty, key.lowercased().hasSuffix("url") || value.contains("://") else { return [] }
            return Self.urlProblems(value, field: "settings.\(key.prefix(64))", policy: egress)
        }
    }

    static func urlProblems(_ text: String, field: String, policy: EgressPolicy) -> [FieldProblem] {
        let target: EgressTarget
        do {
            target = try policy.check(url: text)
        } catch {
            if error.code == .egressRefused { return [FieldProblem(field: field, problem: error.message)] }
            return [FieldProblem(field: field, problem: "must be an absolute http(s) URL")]
        }
        if target.hasDotSegment { return [FieldProblem(field: field, problem: "must not hold '.' or '..' path segments")] }
        // Adapters append paths to a base URL: a query or fragment in it would swallow them.
        if let url = URL(string: text), url.query != nil || url.fragment != nil {
            return [FieldProblem(field: field, problem: "must have no query or fragment")]
        }
        return []
    }
}
