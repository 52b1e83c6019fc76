import Crypto
public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore

/// A link that has started: the connection (status `pending_link`) and where to send the user's browser.
public struct PendingLink: Codable, Sendable, Hashable {
    public var connection: ConnectionDescriptor
    public var popupURL: String
}

/// One connection's outcome in "authenticate all".
public struct AuthenticationReport: Codable, Sendable, Hashable {
    public var connection: String
    public var broker: BrokerKind
    public var status: String
    public var challenge: Challenge?
    public var error: SourceReport.Failure?
}

/// An export of a tenant's connections for another gateway: the credentials are sealed with a one-time key that is
/// returned beside the bundle, never stored.
public struct ConnectionExport: Codable, Sendable, Hashable {
    public var bundle: String
    public var key: String
    public var count: Int
}

struct ExportedConnection: Codable {
    var broker: BrokerKind
    var displayName: String
    var baseURL: String
    var settings: [String: String]
    var credentials: [String: String]
}

/// Interactive linking (OAuth popups), security questions, "authenticate all", and moving links between gateways.
extension Gateway {
    static let linkStateKey = "linkState"

    func linkingAdapter(_ connection: ConnectionDescriptor) async throws -> any LinkingAdapter {
        guard let adapter = try await adapter(for: connection) as? any LinkingAdapter else {
            throw GatewayError(.notSupported, "\(connection.broker) connections link with credentials, not by a login popup", broker: connection.broker)
        }
        return adapter
    }

    /// Whether linking this kind of connection needs the user to log in through the broker's page.
    func needsInteractiveLink(_ new: NewConnection) throws -> Bool {
        let probe = ConnectionDescriptor(
            id: "probe", tenantId: "probe", broker: new.broker, displayName: new.displayName, baseURL: new.baseURL,
            settings: new.settings, createdAt: Date(), updatedAt: Date())
        guard let adapter = try? registry.makeAdapter(for: probe, credentials: new.credentials) else { return false }
        return adapter is any LinkingAdapter && (new.credentials["userToken"] ?? "").isEmpty
    }

    /// Starts an OAuth link: the connection is saved as `pending_link`, and the popup URL comes back.
    public func startLink(tenant: Tenant, _ new: NewConnection, callbackBase: String) async throws -> PendingLink {
        var pending = new
        pending.status = .pendingLink
        let state = RandomIdentifier.hex(byteCount: 16)
        pending.credentials[Self.linkStateKey] = state
        let connection = try await store.createConnection(tenantId: tenant.id, pending)
        do {
            let adapter = try await linkingAdapter(connection)
            let start = try await withDeadline(router.perSourceTimeout) {
                try await adapter.startLink(callbackURL: Self.callbackURL(callbackBase, connection.id, state), relink: false)
            }
            return PendingLink(connection: connection, popupURL: start.popupURL)
        } catch {
            _ = try? await store.deleteConnection(tenantId: tenant.id, id: connection.id)
            throw error
        }
    }

    /// Starts a token update for an existing link.
    public func startRelink(tenant: Tenant, id: String, callbackBase: String) async throws -> PendingLink {
        let connection = try await self.connection(tenant: tenant, id: id)
        var credentials = try await store.credentials(tenantId: tenant.id, connectionId: id)
        let state = RandomIdentifier.hex(byteCount: 16)
        credentials[Self.linkStateKey] = state
        try await store.updateCredentials(tenantId: tenant.id, connectionId: id, credentials)
        registry.evict(connectionId: id)
        let updated = try await self.connection(tenant: tenant, id: id)
        let adapter = try await linkingAdapter(updated)
        let start = try await withDeadline(router.perSourceTimeout) {
            try await adapter.startLink(callbackURL: Self.callbackURL(callbackBase, connection.id, state), relink: true)
        }
        return PendingLink(connection: updated, popupURL: start.popupURL)
    }

    /// Starts a new link for an existing connection from scratch (its earlier link is forgotten): for a broker
    /// that no longer knows the old one, such as a restarted sandbox.
    public func restartLink(tenant: Tenant, id: String, credentials fresh: BrokerCredentials, callbackBase: String) async throws -> PendingLink {
        var credentials = fresh
        let state = RandomIdentifier.hex(byteCount: 16)
        credentials[Self.linkStateKey] = state
        try await store.updateCredentials(tenantId: tenant.id, connectionId: id, credentials)
        guard let connection = try await store.updateConnectionStatus(tenantId: tenant.id, connectionId: id, status: .pendingLink, detail: nil) else {
            throw GatewayError(.notFound, "no connection '\(id)'")
        }
        registry.evict(connectionId: id)
        let adapter = try await linkingAdapter(connection)
        let start = try await withDeadline(router.perSourceTimeout) {
            try await adapter.startLink(callbackURL: Self.callbackURL(callbackBase, id, state), relink: false)
        }
        return PendingLink(connection: connection, popupURL: start.popupURL)
    }

    /// Completes a link with the broker's verifier. `state` is required when the browser brings it (the callback),
    /// and checked against the one issued with the popup.
    public func completeLink(tenant: Tenant, id: String, verifier: String, state: String?) async throws -> ConnectionDescriptor {
        let connection = try await self.connection(tenant: tenant, id: id)
        var credentials = try await store.credentials(tenantId: tenant.id, connectionId: id)
        if let state {
            guard let expected = credentials[Self.linkStateKey], ConstantTime.equals(expected, state) else {
                throw GatewayError(.forbidden, "this link callback does not belong to a link in progress")
            }
        }
        let adapter = try await linkingAdapter(connection)
        let linked = try await withDeadline(router.perSourceTimeout) { try await adapter.completeLink(verifier: verifier) }
        for (key, value) in linked.values { credentials[key] = value }
        credentials[Self.linkStateKey] = nil
        try await store.updateCredentials(tenantId: tenant.id, connectionId: id, credentials)
        _ = try await store.updateConnectionStatus(tenantId: tenant.id, connectionId: id, status: .active, detail: nil)
        registry.evict(connectionId: id)
        // Open a session at once, so a security question shows on the connection right away.
        _ = try? await authenticate(tenant: tenant, id: id)
        return try await self.connection(tenant: tenant, id: id)
    }

    /// The tenant a link callback belongs to (the callback comes from a browser, without an API key).
    public func tenantForCallback(connectionId: String, state: String) async throws -> Tenant {
        for tenant in try await store.tenants() {
            guard try await store.connection(tenantId: tenant.id, id: connectionId) != nil else { continue }
            let credentials = try await store.credentials(tenantId: tenant.id, connectionId: connectionId)
            if let expected = credentials[Self.linkStateKey], ConstantTime.equals(expected, state) { return tenant }
        }
        throw GatewayError(.forbidden, "this link callback does not belong to a link in progress")
    }

    public func authenticate(tenant: Tenant, id: String) async throws -> AuthenticationReport {
        let connection = try await self.connection(tenant: tenant, id: id)
        return await authenticate(connection)
    }

    func authenticate(_ connection: ConnectionDescriptor) async -> AuthenticationReport {
        do {
            guard connection.status != .pendingLink, connection.status != .relinkRequired else { throw Self.statusError(connection) }
            let adapter = try await linkingAdapter(connection)
            let outcome = try await withDeadline(router.perSourceTimeout) { try await adapter.authenticate() }
            return Self.report(connection, outcome)
        } catch {
            let gatewayError = BrokerRouter.gatewayErrorForReport(error)
            let status = gatewayError.code == .unauthorized ? "relink_required" : "error"
            return AuthenticationReport(connection: connection.id, broker: connection.broker, status: status, error: SourceReport.Failure(gatewayError))
        }
    }

    static func report(_ connection: ConnectionDescriptor, _ outcome: AuthenticationOutcome) -> AuthenticationReport {
        switch outcome {
        case .authenticated:
            AuthenticationReport(connection: connection.id, broker: connection.broker, status: "active")
        case .challengeRequired(let challenge):
            AuthenticationReport(connection: connection.id, broker: connection.broker, status: "challenge_required", challenge: challenge)
        }
    }

    /// Authenticates every interactively linked connection of the tenant at once, and reports each one.
    public func authenticateAll(tenant: Tenant) async throws -> [AuthenticationReport] {
        var connections: [ConnectionDescriptor] = []
        for connection in try await store.connections(tenantId: tenant.id) {
            if (try? await adapter(for: connection)) is any LinkingAdapter { connections.append(connection) }
        }
        return await withTaskGroup(of: (Int, AuthenticationReport).self) { group in
            for (index, connection) in connections.enumerated() {
                group.addTask { (index, await self.authenticate(connection)) }
            }
            var reports = [AuthenticationReport?](repeating: nil, count: connections.count)
            for await (index, report) in group { reports[index] = report }
            return reports.compactMap { $0 }
        }
    }

    public func answerChallenge(tenant: Tenant, id: String, answer: String) async throws -> AuthenticationReport {
        let connection = try await self.connection(tenant: tenant, id: id)
        guard connection.status == .challengeRequired else {
            throw GatewayError(.conflict, "connection \(id) has no question waiting (status \(connection.status.rawValue))", retryable: false)
        }
        let adapter = try await linkingAdapter(connection)
        let outcome = try await withDeadline(router.perSourceTimeout) { try await adapter.answerChallenge(answer) }
        return Self.report(try await self.connection(tenant: tenant, id: id), outcome)
    }

    // MARK: Export and import ("manual sync")

    public func exportConnections(tenant: Tenant) async throws -> ConnectionExport {
        var exported: [ExportedConnection] = []
        for connection in try await store.connections(tenantId: tenant.id) where connection.status != .pendingLink {
            var credentials = try await store.credentials(tenantId: tenant.id, connectionId: connection.id).values
            credentials[Self.linkStateKey] = nil
            exported.append(ExportedConnection(
                broker: connection.broker, displayName: connection.displayName, baseURL: connection.baseURL,
                settings: connection.settings, credentials: credentials))
        }
        let key = SymmetricKey(size: .bits256)
        let sealed = try AES.GCM.seal(try JSONEncoder().encode(exported), using: key, authenticating: Data("brokergateway-export-v1".utf8))
        guard let combined = sealed.combined else { throw GatewayError(.internalError, "could not seal the export") }
        let keyData = key.withUnsafeBytes { Data($0) }
        return ConnectionExport(bundle: combined.base64EncodedString(), key: keyData.base64EncodedString(), count: exported.count)
    }

    public func importConnections(tenant: Tenant, bundle: String, key: String) async throws -> [ConnectionDescriptor] {
        guard let bundleData = Data(base64Encoded: bundle), let keyData = Data(base64Encoded: key), keyData.count == 32 else {
            throw GatewayError.unprocessable([FieldProblem(field: "bundle", problem: "bundle and key must be the base64 an export returned")])
        }
        let exported: [ExportedConnection]
        do {
            let box = try AES.GCM.SealedBox(combined: bundleData)
            let plain = try AES.GCM.open(box, using: SymmetricKey(data: keyData), authenticating: Data("brokergateway-export-v1".utf8))
            exported = try JSONDecoder().decode([ExportedConnection].self, from: plain)
        } catch {
            throw GatewayError.unprocessable([FieldProblem(field: "key", problem: "does not open this bundle")])
        }
        var imported: [ConnectionDescriptor] = []
        for connection in exported {
            guard registry.factory(for: connection.broker) != nil else { continue }
            imported.append(try await store.createConnection(tenantId: tenant.id, NewConnection(
                broker: connection.broker, displayName: connection.displayName, baseURL: connection.baseURL,
                settings: connection.settings, credentials: BrokerCredentials(connection.credentials))))
        }
        return imported
    }

    // MARK: Helpers

    static func callbackURL(_ base: String, _ connectionId: String, _ state: String) -> String {
        "\(base)/v1/connections/\(connectionId)/oauth/callback?state=\(state)"
    }

}
