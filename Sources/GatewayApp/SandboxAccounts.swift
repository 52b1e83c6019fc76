public import GatewayCore
public import GatewayModel

/// The in-process sandboxes as the gateway sees them: for each `sandbox://<name>`, how to provision a simulated
/// account of its own for a tenant (each simulator in its own dialect's terms: a key pair, an app and a refresh
/// token, an API key), how to forget one, and which credential names the public demo login.
///
/// The executable supplies it from the simulators it runs; the application imports no simulator. A connection to
/// `sandbox://<name>` linked through the API always gets a freshly provisioned account, whatever credentials it
/// was sent, so one tenant never reaches another's sandbox orders and the public demo logins only ever mean the
/// demo tenant's account.
public struct SandboxAccounts: Sendable {
    /// One in-process sandbox.
    public struct Sandbox: Sendable {
        /// The broker kind the sandbox simulates.
        public var broker: BrokerKind
        /// A new simulated account, as the adapter's credentials.
        public var provision: @Sendable () throws -> BrokerCredentials
        /// Forgets an account `provision` made (its connection was deleted or relinked); the demo account stays.
        public var release: @Sendable (BrokerCredentials) -> Void
        /// The credential key that names the public demo login (`keyId` in `keyId` = `SANDBOX-ALPACA-KEY`).
        public var demoKey: String
        /// That key's value for the demo login (`SANDBOX-ALPACA-KEY`).
        public var demoValue: String

        /// A sandbox as the server registers it.
        public init(
            broker: BrokerKind,
            demoKey: String,
            demoValue: String,
            provision: @escaping @Sendable () throws -> BrokerCredentials,
            release: @escaping @Sendable (BrokerCredentials) -> Void
        ) {
            self.broker = broker
            self.demoKey = demoKey
            self.demoValue = demoValue
            self.provision = provision
            self.release = release
        }

        /// Whether stored credentials are the demo login's.
        func isDemo(_ credentials: BrokerCredentials) -> Bool {
            credentials[demoKey] == demoValue
        }
    }

    /// By name, as in `sandbox://<name>`.
    public var sandboxes: [String: Sandbox]
    /// How many connections one tenant may hold to one sandbox: each holds a simulated account in memory.
    public var maximumPerTenant: Int

    /// The sandboxes by broker kind, each tenant holding at most `maximumPerTenant` connections to one.
    public init(_ sandboxes: [String: Sandbox] = [:], maximumPerTenant: Int = 10) {
        self.sandboxes = sandboxes
        self.maximumPerTenant = max(1, maximumPerTenant)
    }

    /// The sandbox name of a `sandbox://<name>` base URL (`sandbox://saxo/sim/openapi` → `saxo`), else `nil`.
    public static func name(ofBaseURL baseURL: String) -> String? {
        let prefix = "sandbox://"
        guard baseURL.hasPrefix(prefix) else { return nil }
        let rest = baseURL.dropFirst(prefix.count)
        let name = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return name.isEmpty ? nil : String(name)
    }

    /// The sandbox a base URL names, when this gateway runs it.
    func sandbox(forBaseURL baseURL: String) -> (name: String, sandbox: Sandbox)? {
        guard let name = Self.name(ofBaseURL: baseURL), let sandbox = sandboxes[name] else { return nil }
        return (name, sandbox)
    }
}
