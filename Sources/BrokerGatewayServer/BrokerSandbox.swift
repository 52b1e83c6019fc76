import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import Logging
public import SandboxKit

/// A broker's sandbox as a gateway runs it: the simulator, how to reach it as a connection, and its demo login.
///
/// `gateway serve` runs the sandboxes in-process and links one demo connection to each; `gateway sandbox` serves
/// them on their own. A connection reaches an in-process sandbox through the base URL `sandbox://<kind>`.
public struct BrokerSandbox: Sendable {
    /// The simulator the gateway serves on loopback.
    public var simulator: any SandboxSimulator
    /// The simulator's fault injector, if it has one: the gateway adds the operator's sandbox latency to it.
    public var faults: FaultInjector?
    /// The demo connection's display name (`Alpaca sandbox (demo)`).
    public var displayName: String
    /// What `POST /v1/connections` needs for the demo account (public, documented demo values).
    public var demoCredentials: [String: String]
    /// The demo connection's settings.
    public var demoSettings: [String: String]
    /// The path the adapter takes as its base URL after the sandbox's origin (`/sim/openapi` for Saxo): given to the
    /// registry with the sandbox, so connections say only `sandbox://<kind>`.
    public var basePath: String
    /// For brokers that link through a login page: the sandbox's query parameter that logs the demo user in at once.
    public var autoLoginQuery: String?
    /// The credential key whose demo value names the public demo login (the demo connections hold it).
    public var demoKey: String
    /// Whether the simulator continued from a state saved in its folder (its accounts, keys and tokens are the ones
    /// connections stored), rather than starting empty.
    public var restored: Bool
    /// A simulated account of its own for a tenant's connection, in the simulator's own terms, as the adapter's
    /// credentials.
    public var provision: @Sendable () throws -> [String: String]
    /// Forgets an account ``provision`` made, given the credentials it returned.
    public var release: @Sendable ([String: String]) -> Void
    /// Whether the simulator still accepts credentials a connection stored (the simulator's own verdict, asked
    /// without a call that could mark the connection).
    public var accepts: @Sendable ([String: String]) -> Bool

    /// A sandbox; see each property.
    public init(
        simulator: any SandboxSimulator,
        faults: FaultInjector?,
        displayName: String,
        demoCredentials: [String: String],
        demoSettings: [String: String] = [:],
        basePath: String = "",
        autoLoginQuery: String? = nil,
        demoKey: String,
        restored: Bool,
        provision: @escaping @Sendable () throws -> [String: String],
        release: @escaping @Sendable ([String: String]) -> Void,
        accepts: @escaping @Sendable ([String: String]) -> Bool
    ) {
        self.simulator = simulator
        self.faults = faults
        self.displayName = displayName
        self.demoCredentials = demoCredentials
        self.demoSettings = demoSettings
        self.basePath = basePath
        self.autoLoginQuery = autoLoginQuery
        self.demoKey = demoKey
        self.restored = restored
        self.provision = provision
        self.release = release
        self.accepts = accepts
    }
}

/// A registered broker's sandbox, made for this process: its kind (which names it) and what its registration made.
@dynamicMemberLookup
struct ServedSandbox: Sendable {
    var broker: BrokerKind
    var sandbox: BrokerSandbox

    /// The sandbox's name in `sandbox://<name>` base URLs, state files and `gateway sandbox`'s lines: its kind's.
    var name: String { broker.rawValue }

    subscript<Value>(dynamicMember path: KeyPath<BrokerSandbox, Value>) -> Value { sandbox[keyPath: path] }

    /// The registered brokers' sandboxes with their state in memory: every start is a fresh one (`gateway sandbox`,
    /// tests).
    static func all(_ brokers: [BrokerRegistration], options: SandboxOptions = SandboxOptions()) throws -> [ServedSandbox] {
        try make(brokers, options: options, stateDirectory: nil)
    }

    /// The registered brokers' sandboxes keeping their state in `stateDirectory`, as `gateway serve` runs them:
    /// accounts, orders, positions and the logins connections stored are the same after a restart.
    /// - Throws: a sandbox's error when its file is there but cannot be read (it names the file).
    static func all(
        _ brokers: [BrokerRegistration],
        options: SandboxOptions = SandboxOptions(),
        stateDirectory: URL
    ) throws
        -> [ServedSandbox]
    {
        try make(brokers, options: options, stateDirectory: stateDirectory)
    }

    private static func make(_ brokers: [BrokerRegistration], options: SandboxOptions, stateDirectory: URL?) throws -> [ServedSandbox] {
        let environment = SandboxEnvironment(market: MarketEngine(), options: options, stateDirectory: stateDirectory)
        return try brokers.compactMap { registration in
            guard let make = registration.sandbox?.make else { return nil }
            let sandbox = try make(environment)
            if let rule = options.latencyRule { sandbox.faults?.add(rule) }
            return ServedSandbox(broker: registration.kind, sandbox: sandbox)
        }
    }

    /// The sandboxes as the application provisions accounts in them.
    static func accounts(_ sandboxes: [ServedSandbox]) -> SandboxAccounts {
        var byName: [String: SandboxAccounts.Sandbox] = [:]
        for sandbox in sandboxes {
            let (provision, release) = (sandbox.provision, sandbox.release)
            byName[sandbox.name] = SandboxAccounts.Sandbox(
                broker: sandbox.broker,
                demoKey: sandbox.demoKey,
                demoValue: sandbox.demoCredentials[sandbox.demoKey] ?? "",
                provision: { BrokerCredentials(try provision()) },
                release: { release($0.values) }
            )
        }
        return SandboxAccounts(byName)
    }
}
