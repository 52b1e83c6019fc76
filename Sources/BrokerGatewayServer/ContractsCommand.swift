import ArgumentParser
import Foundation
import GatewayCore
import GatewayTesting

/// `gateway contracts …`: run contract cases against the registered adapters.
struct ContractsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contracts",
        abstract: "Contract cases: recorded broker exchanges and the canonical results they must give.",
        subcommands: [ContractsVerifyCommand.self]
    )
}

/// `gateway contracts verify [PATH…]`: one line per case; exit status 1 when any case fails.
struct ContractsVerifyCommand: BrokersCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Run contract case files (or folders of them) against the gateway's adapters, with no network."
    )

    @Argument(help: "Case files or folders. Default: ./Contracts")
    var paths: [String] = []

    func run(brokers: [BrokerRegistration]) async throws {
        let paths = self.paths.isEmpty ? ["Contracts"] : self.paths
        let results = await ContractSuite.verify(paths: paths, factories: brokers.map(\.adapter))
        var failed = 0
        for result in results {
            print(result.description)
            if case .failed = result.outcome { failed += 1 }
        }
        print("\(results.count - failed) passed, \(failed) failed")
        if results.isEmpty {
            print("no contract cases found under \(paths.joined(separator: ", "))")
            throw ExitCode.failure
        }
        if failed > 0 { throw ExitCode.failure }
    }
}
