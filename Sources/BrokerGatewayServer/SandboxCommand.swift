import ArgumentParser
import Foundation
import Logging
import SandboxKit
import ServiceLifecycle
import UnixSignals

/// `gateway sandbox`: serve every registered broker's sandbox on its own, for trying clients or the gateway against
/// them.
struct SandboxCommand: BrokersCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Serve every sandbox broker and print each base URL."
    )

    @Option(help: "Address to bind.")
    var host: String = "127.0.0.1"

    @Option(
        name: .customLong("base-port"),
        help: "First port: the sandboxes take consecutive ports from here, in the order printed. 0 picks free ports."
    )
    var basePort: Int = 0

    @OptionGroup var behaviour: SandboxOptionFlags

    func validate() throws {
        guard (0...65000).contains(basePort) else { throw ValidationError("--base-port must be from 0 to 65000") }
    }

    func run(brokers: [BrokerRegistration]) async throws {
        let sandboxes = try ServedSandbox.all(brokers, options: behaviour.options)
        guard !sandboxes.isEmpty else { throw ValidationError("none of this gateway's brokers has a sandbox") }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let logger = Logger(label: "BrokerGateway.Sandbox")
        let services: [any Service] = sandboxes.enumerated().map { index, sandbox in
            SandboxServer(sandbox.simulator, host: host, port: basePort == 0 ? 0 : basePort + index) { url in
                let credentials = sandbox.demoCredentials.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                // Written through at once: a script reading the URLs from a pipe would otherwise wait for a full buffer.
                FileHandle.standardOutput.write(
                    Data(
                        "\(sandbox.name)\t\(url.absoluteString)\tdemo: \(credentials.joined(separator: " "))\n".utf8
                    )
                )
            }
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }
}
