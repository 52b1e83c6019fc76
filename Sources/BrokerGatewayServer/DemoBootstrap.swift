import AsyncHTTPClient
import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import Logging
import NIOCore
import NIOHTTP1

/// First run on an empty data folder: a demo tenant with a demo user, an API key bound to that user with every scope
/// (written to `<data>/demo-api-key` with mode 0600, never printed: standard output only names the file), and one demo connection of the demo user to
/// each sandbox.
struct DemoBootstrap {
    static let keyFileName = "demo-api-key"

    let gateway: Gateway
    let dataDirectory: URL
    let logger: Logger

    func runIfEmpty(sandboxes: [ServedSandbox]) async throws {
        guard try await gateway.tenancy.tenants().isEmpty else {
            try await renewSandboxLinks(sandboxes: sandboxes)
            return
        }
        let tenant = try await gateway.tenancy.createTenant(name: "Demo")
        // Recorded, so that restarts renew this tenant's demo connections and no one else's.
        try await gateway.sandboxes.markDemoTenant(tenant)
        let user = try await gateway.tenancy.createUser(
            tenant: tenant,
            actor: AuditRecord.operatorActor,
            UserInput(externalId: .value("demo"), displayName: .value("Demo user"))
        )
        let owner = Owner.operator(tenant: tenant, userId: user.id)
        let key = try await gateway.tenancy.createKey(
            tenant: tenant,
            actor: AuditRecord.operatorActor,
            creatorScopes: Set(Scope.allCases),
            label: "demo",
            scopes: Scope.allCases.map(\.rawValue),
            userId: user.id
        )
        let keyFile = dataDirectory.appendingPathComponent(Self.keyFileName)
        try writePrivately(key.plaintext + "\n", to: keyFile)
        for sandbox in sandboxes {
            do {
                let new = NewConnection(
                    broker: sandbox.broker,
                    displayName: sandbox.displayName,
                    baseURL: "sandbox://\(sandbox.name)",
                    settings: sandbox.demoSettings,
                    credentials: BrokerCredentials(sandbox.demoCredentials)
                )
                let connection: ConnectionDescriptor
                if let autoLogin = sandbox.autoLoginQuery {
                    connection = try await linkThroughLoginPage(owner: owner, new, autoLogin: autoLogin)
                } else {
                    connection = try await linkRetryingWhileBusy(owner: owner, new)
                }
                logger.info("linked demo connection", metadata: ["connection": .string(connection.id), "broker": .string(sandbox.broker.rawValue)])
            } catch {
                logger.error(
                    "could not link the demo connection",
                    metadata: ["broker": .string(sandbox.broker.rawValue), "error": .string("\(error)")]
                )
            }
        }
        // The key itself stays in its file (mode 0600): standard output ends up in terminals' scrollback, CI logs and
        // log collectors, where a secret must never be.
        let banner = """

            Demo tenant created. Its API key (every scope) is in \(keyFile.path), readable by this user only.

            Try:  curl -H "Authorization: Bearer $(cat \(keyFile.path))" http://127.0.0.1:<port>/v1/positions

            """
        // Written straight to the file descriptor, so it shows at once even when stdout is a pipe or a file.
        FileHandle.standardOutput.write(Data((banner + "\n").utf8))
    }

    /// After a restart. A sandbox that continued from its saved state (`<data>/sandboxes/`) still holds the accounts,
    /// keys and tokens the connections stored: its connections are left alone, and a demo connection is renewed only
    /// when the sandbox itself says its stored login no longer works (a Saxo refresh token that lapsed while the
    /// gateway was down) or the connection is not active. A sandbox that started empty (no saved state: a data folder
    /// from before sandboxes kept one) lost its accounts: the demo tenant's demo connections get the sandbox's demo
    /// login again (and link again through the login page where the broker links that way), and every other
    /// connection to it, of any tenant, becomes `relink_required`; its relink provisions a fresh account.
    /// Connections to real brokers are never touched.
    func renewSandboxLinks(sandboxes: [ServedSandbox]) async throws {
        let demoTenant = try await recordedDemoTenant()
        let kept = Set(sandboxes.filter(\.restored).map(\.name))
        for (tenant, connection, credentials) in try await gateway.sandboxes.sandboxConnectionsAfterRestart(demoTenant: demoTenant, kept: kept) {
            guard let sandbox = sandboxes.first(where: { SandboxAccounts.name(ofBaseURL: connection.baseURL) == $0.name }),
                let userId = connection.userId
            else {
                continue
            }
            if sandbox.restored, connection.status == .active, sandbox.accepts(credentials.values) {
                logger.debug("the demo connection's login still works", metadata: ["connection": .string(connection.id)])
                continue
            }
            if sandbox.restored {
                logger.notice(
                    "renewing the demo connection: the sandbox no longer accepts its stored login",
                    metadata: [
                        "connection": .string(connection.id), "broker": .string(sandbox.broker.rawValue),
                        "status": .string(connection.status.rawValue),
                    ]
                )
            }
            let owner = Owner.operator(tenant: tenant, userId: userId)
            do {
                if let autoLogin = sandbox.autoLoginQuery {
                    let pending = try await gateway.connections.restartLink(
                        owner: owner,
                        id: connection.id,
                        credentials: BrokerCredentials(sandbox.demoCredentials),
                        callbackBase: "http://127.0.0.1"
                    )
                    _ = try await finishLogin(owner: owner, pending, autoLogin: autoLogin)
                } else {
                    try await gateway.connections.replaceCredentials(
                        owner: owner,
                        id: connection.id,
                        BrokerCredentials(sandbox.demoCredentials)
                    )
                }
            } catch {
                logger.warning(
                    "could not renew a sandbox connection",
                    metadata: ["connection": .string(connection.id), "error": .string("\(error)")]
                )
            }
        }
    }

    /// The demo tenant: as recorded, or, for a data folder from before it was recorded, the tenant whose key is in
    /// `demo-api-key` (then recorded). Without either, no tenant's sandbox connections are renewed.
    func recordedDemoTenant() async throws -> Tenant? {
        if let tenant = try await gateway.sandboxes.demoTenant() { return tenant }
        guard let key = readDemoKey(), let tenant = try await gateway.tenancy.tenant(forAPIKey: key) else {
            logger.notice("no demo tenant is recorded: every sandbox connection needs a relink")
            return nil
        }
        try await gateway.sandboxes.markDemoTenant(tenant)
        return tenant
    }

    /// The demo key file's key, read without following a link planted in its place; `nil` when there is none.
    func readDemoKey() -> String? {
        let path = dataDirectory.appendingPathComponent(Self.keyFileName).path
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let key = String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return key.isEmpty ? nil : key
    }

    /// Links a demo connection that needs no login page. The sandbox is in this process, so a timeout or an
    /// unavailable answer only says the machine is busy (a first start beside other work): that is tried again, twice,
    /// instead of leaving the demo user without the connection for good (a restart renews connections, it does not
    /// make missing ones). A link that fails stores nothing, so a second try cannot make a second connection.
    func linkRetryingWhileBusy(owner: Owner, _ new: NewConnection) async throws -> ConnectionDescriptor {
        var attempt = 1
        while true {
            do {
                return try await gateway.connections.link(owner: owner, new)
            } catch let error as GatewayError where [.upstreamTimeout, .upstreamUnavailable].contains(error.code) && attempt < 3 {
                logger.warning(
                    "the demo connection's link was not answered in time; trying again",
                    metadata: ["broker": .string(new.broker.rawValue), "attempt": .stringConvertible(attempt)]
                )
                attempt += 1
                try await Task.sleep(for: .milliseconds(250 * attempt))
            }
        }
    }

    /// Links a demo connection the way a user would, through the broker's login page, with the sandbox's
    /// automatic demo login standing in for the person typing: the page redirects to the callback with the verifier.
    func linkThroughLoginPage(owner: Owner, _ new: NewConnection, autoLogin: String) async throws -> ConnectionDescriptor {
        try await finishLogin(
            owner: owner,
            try await gateway.connections.startLink(owner: owner, new, callbackBase: "http://127.0.0.1"),
            autoLogin: autoLogin
        )
    }

    func finishLogin(owner: Owner, _ pending: PendingLink, autoLogin: String) async throws -> ConnectionDescriptor {
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
        return try await gateway.connections.completeLink(owner: owner, id: pending.connection.id, verifier: verifier)
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
