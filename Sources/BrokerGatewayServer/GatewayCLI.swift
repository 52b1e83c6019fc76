import ArgumentParser
import Foundation

/// The `gateway` command line over the brokers it is given: `serve` (the default), `settings`, `tenants`, `keys`,
/// `sandbox`, `contracts verify`, `backup`, `restore` and `healthcheck`, the same commands, flags and settings as this
/// repository's own `gateway`.
///
/// An operator's executable is this and one line:
///
/// ```swift
/// import BrokerGatewayServer
/// import BuiltInBrokers
///
/// @main struct MyGateway {
///     static func main() async { await GatewayCLI(brokers: .builtIn + [.myBroker]).run() }
/// }
/// ```
public struct GatewayCLI: Sendable {
    /// The brokers this gateway serves, links and simulates, in the order `gateway sandbox` prints their sandboxes.
    public var brokers: [BrokerRegistration]

    /// The command line of a gateway serving `brokers` (each kind once).
    public init(brokers: [BrokerRegistration]) {
        self.brokers = brokers
    }

    /// Runs the command the process's arguments name, then returns; exits the process with ArgumentParser's message
    /// and status on a bad command line, a failed command, or a list of brokers that registers a kind twice.
    public func run() async {
        await run(arguments: nil)
    }

    /// Runs the command `arguments` name (without the executable's own name; `nil` for the process's arguments), as
    /// ``run()`` does.
    public func run(arguments: [String]?) async {
        do {
            let problems = BrokerRegistration.problems(in: brokers)
            guard problems.isEmpty else { throw ValidationError(problems.joined(separator: "; ")) }
            var command = try await GatewayCommand.asyncParseAsRoot(arguments)
            if let serving = command as? any BrokersCommand {
                try await serving.run(brokers: brokers)
            } else if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            GatewayCommand.exit(withError: error)
        }
    }
}

/// A command that works on the registered brokers (`serve`, `sandbox`, `contracts verify`): ``GatewayCLI`` gives it
/// them.
protocol BrokersCommand: AsyncParsableCommand {
    func run(brokers: [BrokerRegistration]) async throws
}

extension BrokersCommand {
    /// Only ``GatewayCLI`` runs these commands, with its brokers; a command run any other way has none to serve.
    func run() async throws {
        throw ValidationError("this command runs through GatewayCLI(brokers:), which says what brokers it serves")
    }
}

/// The root command: its subcommands, and `serve` when none is named.
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "BrokerGateway: one JSON API over many brokers.",
        subcommands: [
            ServeCommand.self, SettingsCommand.self, TenantsCommand.self, KeysCommand.self, SandboxCommand.self,
            ContractsCommand.self, BackupCommand.self, RestoreCommand.self, HealthcheckCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}
