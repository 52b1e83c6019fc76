import AsyncHTTPClient
import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import Logging
import NIOCore
import NIOHTTP1

/// First run on an empty data folder: a demo tenant, its API key (printed once and written to
/// `<data>/demo-api-key` with mode 0600), and one demo connection to each built-in sandbox.
struct DemoBootstrap {
    static let keyFileName = "demo-api-key"

    let gateway: Gateway
    let dataDirectory: URL
    let logger: Logger

    func runIfEmpty(sandboxes: [BuiltInSandbox]) async throws {
        guard try await gateway.tenants().isEmpty else {
            try await renewSandboxLinks(sandboxes: sandboxes)
            return
        }
        let tenant = try await gateway.createTenant(name: "Demo")
        let key = try await gateway.issueAPIKey(tenant: tenant, label: "demo")
        let keyFile = dataDirectory.appendingPathComponent(Self.keyFileName)
        try writePrivately(key.plaintext + "\n", to: keyFile)
        for sandbox in sandboxes {
            do {
                let new = NewConnection(
                    broker: sandbox.broker, displayName: sandbox.displayName, baseURL: "sandbox://\(sandbox.name)",
                    settings: sandbox.demoSettings, credentials: BrokerCredentials(sandbox.demoCredentials))
                let connection: ConnectionDescriptor
                if let autoLogin = sandbox.autoLoginQuery {
                    connection = try await linkThroughLoginPage(tenant: tenant, new, autoLogin: autoLogin)
                } else {
                    connection = try await gateway.link(tenant: tenant, new)
                }
                logger.info("linked demo connection", metadata: ["connection": .string(connection.id), "broker": .string(sandbox.broker.rawValue)])
            } catch {
                logger.error("could not link the demo connection", metadata: ["broker": .string(sandbox.broker.rawValue), "error": .string("\(error)")])
            }
        }
        let banner = """

        Demo tenant created. Its API key (shown once; also saved to \(keyFile.path)):

            \(key.plaintext)

        Try:  curl -H "Authorization: Bearer $(cat \(keyFile.path))" http://127.0.0.1:<port>/v1/positions

        """
        // Written straight to the file descriptor, so it shows at once even when stdout is a pipe or a file.
        FileHandle.standardOutput.write(Data((banner + "\n").utf8))
    }

    /// The in-process sandboxes start empty on every run, so tokens they issued before a restart are unknown to
    /// them: demo connections get the sandbox's demo credentials again (and link again through the login page
    /// where the broker links that way). Connections to real brokers are never touched.
    func renewSandboxLinks(sandboxes: [BuiltInSandbox]) async throws {
        for tenant in try await gateway.tenants() {
            for connection in try await gateway.connections(tenant: tenant) {
                guard let sandbox = sandboxes.first(where: { connection.baseURL.hasPrefix("sandbox://\($0.name)") }),
                    sandbox.broker == connection.broker
                else { continue }
                do {
                    if let autoLogin = sandbox.autoLoginQuery {
                        let pending = try await gateway.restartLink(
                            tenant: tenant, id: connection.id, credentials: BrokerCredentials(sandbox.demoCredentials),
                            callbackBase: "http://127.0.0.1")
                        _ = try await finishLogin(tenant: tenant, pending, autoLogin: autoLogin)
                    } else {
                        try await gateway.replaceCredentials(
                            tenant: tenant, id: connection.id, BrokerCredentials(sandbox.demoCredentials))
                    }
                } catch {
                    logger.warning("could not renew a sandbox connection", metadata: ["connection": .string(connection.id), "error": .string("\(error)")])
                }
            }
        }
    }

    /// Links a demo connection the way a user would, through the broker's login page, with the sandbox's
    /// automatic demo login standing in for the person typing: the page redirects to the callback with the verifier.
    func linkThroughLoginPage(tenant: Tenant, _ new: NewConnection, autoLogin: String) async throws -> ConnectionDescriptor {
        try await finishLogin(tenant: tenant, try await gateway.startLink(tenant: tenant, new, callbackBase: "http://127.0.0.1"), autoLogin: autoLogin)
    }

    func finishLogin(tenant: Tenant, _ pending: PendingLink, autoLogin: String) async throws -> ConnectionDescriptor {
        let separator = pending.popupURL.contains("?") ? "&" : "?"
        var request = HTTPClientRequest(url: pending.popupURL + separator + autoLogin)
        request.method = .GET
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        defer { _ = client.shutdown() }
        let response = try await client.execute(request, timeout: .seconds(10))
        guard let location = response.headers.first(name: "Location"),
            let verifier = URLComponents(string: location)?.queryItems?.first(where: { $0.name == "oAuthVerifier" })?.value
        else {
            throw GatewayError(.malformedResponse, "the sandbox login page did not redirect with a verifier")
        }
        return try await gateway.completeLink(tenant: tenant, id: pending.connection.id, verifier: verifier, state: nil)
    }

    /// Creates the file with mode 0600 from the start, so the key is never readable by others.
    func writePrivately(_ text: String, to url: URL) throws {
        // O_NOFOLLOW: a link planted where the key goes must not redirect the write (and the key) elsewhere.
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw GatewayError(.internalError, "cannot write \(url.path)") }
        defer { close(descriptor) }
        fchmod(descriptor, 0o600)
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else {
            throw GatewayError(.internalError, "cannot write \(url.path)")
        }
    }
}
