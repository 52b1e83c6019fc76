import Foundation
import GatewayAPI
import GatewayCore
import GatewayModel
import GatewayStore
import Logging

/// First run on an empty data folder: a demo tenant, its API key (printed once and written to
/// `<data>/demo-api-key` with mode 0600), and one demo connection to each built-in sandbox.
struct DemoBootstrap {
    static let keyFileName = "demo-api-key"

    let gateway: Gateway
    let dataDirectory: URL
    let logger: Logger

    func runIfEmpty(sandboxes: [BuiltInSandbox]) async throws {
        guard try await gateway.store.tenants().isEmpty else { return }
        let tenant = try await gateway.store.createTenant(name: "Demo")
        let key = try await gateway.store.issueAPIKey(tenantId: tenant.id, label: "demo")
        let keyFile = dataDirectory.appendingPathComponent(Self.keyFileName)
        try writePrivately(key.plaintext + "\n", to: keyFile)
        for sandbox in sandboxes {
            do {
                let connection = try await gateway.link(tenant: tenant, NewConnection(
                    broker: sandbox.broker, displayName: sandbox.displayName, baseURL: "sandbox://\(sandbox.name)",
                    settings: sandbox.demoSettings, credentials: BrokerCredentials(sandbox.demoCredentials)))
                logger.info("linked demo connection", metadata: ["connection": .string(connection.id), "broker": .string(sandbox.broker.rawValue)])
            } catch {
                logger.error("could not link the demo connection", metadata: ["broker": .string(sandbox.broker.rawValue), "error": .string("\(error)")])
            }
        }
        print("""

        Demo tenant created. Its API key (shown once; also saved to \(keyFile.path)):

            \(key.plaintext)

        Try:  curl -H "Authorization: Bearer $(cat \(keyFile.path))" http://127.0.0.1:<port>/v1/positions

        """)
    }

    /// Creates the file with mode 0600 from the start, so the key is never readable by others.
    func writePrivately(_ text: String, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw GatewayError(.internalError, "cannot write \(url.path)") }
        defer { close(descriptor) }
        fchmod(descriptor, 0o600)
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else {
            throw GatewayError(.internalError, "cannot write \(url.path)")
        }
    }
}
