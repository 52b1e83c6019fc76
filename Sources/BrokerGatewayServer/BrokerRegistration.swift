public import Foundation
public import GatewayCore
public import GatewayModel
public import SandboxKit

/// One broker a gateway serves: the factory of its adapters and, optionally, its sandbox.
///
/// The gateway serves exactly the brokers it is given, and nothing in the server library names one: this repository's
/// own `gateway` executable is `GatewayCLI(brokers: .builtIn).run()` (the `BuiltInBrokers` module), and an operator's
/// executable adds theirs the same way, best as a static member so that it reads like the built-in ones:
///
/// ```swift
/// extension BrokerRegistration {
///     static var myBroker: BrokerRegistration {
///         BrokerRegistration(adapter: MyBrokerAdapterFactory(), sandbox: SandboxRegistration { environment in … })
///     }
/// }
///
/// @main struct MyGateway {
///     static func main() async { await GatewayCLI(brokers: .builtIn + [.myBroker]).run() }
/// }
/// ```
///
/// README's "Adding an adapter" points at a worked example, a broker added from a package of its own (`Examples/`).
///
/// `GET /v1/brokers` then lists the new kind, connections of that kind link and are served by the unified API, and
/// with a sandbox `gateway serve` runs it in-process (a demo connection to it on first run, `sandbox://<kind>` as a
/// connection's base URL) and `gateway sandbox` serves it.
public struct BrokerRegistration: Sendable {
    /// Makes the adapters of connections of this kind; its `kind` names the broker everywhere.
    public var adapter: any BrokerAdapterFactory
    /// The broker's simulator, if it has one.
    public var sandbox: SandboxRegistration?

    /// Registers `adapter`'s kind, with `sandbox` as its simulator when there is one.
    public init(adapter: any BrokerAdapterFactory, sandbox: SandboxRegistration? = nil) {
        self.adapter = adapter
        self.sandbox = sandbox
    }

    /// The broker kind: the adapter factory's.
    public var kind: BrokerKind { adapter.kind }

    /// What is wrong with a list of registrations, if anything: each kind once, and each kind's name usable in URLs
    /// (`sandbox://<kind>`), file names and query parameters (1 to 32 lowercase ASCII letters, digits, `-` or `_`).
    static func problems(in registrations: [BrokerRegistration]) -> [String] {
        var problems: [String] = []
        var seen: Set<BrokerKind> = []
        for registration in registrations {
            let name = registration.kind.rawValue
            if let problem = BrokerKind.problem(with: name) {
                problems.append("broker kind '\(name.prefix(64))': \(problem)")
            }
            if !seen.insert(registration.kind).inserted {
                problems.append("broker kind '\(name.prefix(64))' is registered more than once")
            }
        }
        return problems
    }
}

/// How a gateway makes a broker's sandbox: once per process (`gateway serve`, `gateway sandbox`), from the
/// environment the gateway gives every sandbox.
public struct SandboxRegistration: Sendable {
    /// Makes the sandbox; throws when its saved state is there but cannot be read (the error should name the file).
    public var make: @Sendable (SandboxEnvironment) throws -> BrokerSandbox

    /// A sandbox made by `make`.
    public init(_ make: @escaping @Sendable (SandboxEnvironment) throws -> BrokerSandbox) {
        self.make = make
    }
}

/// What a gateway gives each sandbox it makes.
public struct SandboxEnvironment: Sendable {
    /// The one market every sandbox of the process prices from, so that the same instrument has the same price at
    /// every simulated broker.
    public var market: MarketEngine
    /// The operator's sandbox settings (rate limits, market hours); the latency is added by the gateway itself, to
    /// ``BrokerSandbox/faults``.
    public var options: SandboxOptions
    /// Where the sandbox keeps its state across restarts (`gateway serve`: `<data>/sandboxes/`), each sandbox in a file
    /// of its own named after its kind; `nil` keeps it in memory (`gateway sandbox`: every start is a fresh one).
    public var stateDirectory: URL?

    /// An environment; `stateDirectory` `nil` keeps the state in memory.
    public init(market: MarketEngine, options: SandboxOptions, stateDirectory: URL?) {
        self.market = market
        self.options = options
        self.stateDirectory = stateDirectory
    }
}
