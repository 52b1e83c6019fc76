import Crypto
public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// A link that has started: the connection (status `pending_link`) and where to send the user's browser.
public struct PendingLink: Codable, Sendable, Hashable {
    /// The saved connection, waiting for the user's login (`pending_link`).
    public var connection: ConnectionDescriptor
    /// The broker's login page, carrying the single-use `state` that completes this link.
    public var popupURL: String
}

/// One connection's outcome in "authenticate all".
public struct AuthenticationReport: Codable, Sendable, Hashable {
    /// The connection's id.
    public var connection: String
    /// The connection's broker kind.
    public var broker: BrokerKind
    /// `active`, `challenge_required`, or the connection's status that kept it from authenticating.
    public var status: String
    /// The broker's security question, when it asked one (answer it with `answerChallenge`).
    public var challenge: Challenge?
    /// Why authenticating failed, as a read's status line would say it.
    public var error: SourceReport.Failure?
}

/// Interactive linking (OAuth popups) and its link states, security questions, and "authenticate all".
extension ConnectionService {
    /// Where link states were kept before they had a table of their own; a key of that name in stored or imported
    /// credentials means nothing any more and is dropped.
    static let legacyLinkStateKey = "linkState"

    func linkingAdapter(_ connection: ConnectionDescriptor) async throws -> any LinkingAdapter {
        guard let adapter = try await directory.adapter(for: connection) as? any LinkingAdapter else {
            throw GatewayError(
                .notSupported,
                "\(connection.broker) connections link with credentials, not by a login popup",
                broker: connection.broker
            )
        }
        return adapter
    }

    /// Whether linking this kind of connection needs the user to log in through the broker's page.
    func needsInteractiveLink(_ new: NewConnection) throws -> Bool {
        let probe = ConnectionDescriptor(
            id: "probe",
            tenantId: "probe",
            broker: new.broker,
            displayName: new.displayName,
            baseURL: new.baseURL,
            settings: new.settings,
            createdAt: Date(),
            updatedAt: Date()
        )
        // An adapter that cannot be made here is not one with a login page: the direct link that follows makes it
        // again and answers with its error.
        guard let adapter = try? registry.makeAdapter(for: probe, credentials: new.credentials) else { return false }
        return adapter is any LinkingAdapter && (new.credentials["userToken"] ?? "").isEmpty
    }

    /// Starts an OAuth link: the connection is saved as `pending_link`, and the popup URL comes back.
    public func startLink(owner: Owner, _ new: NewConnection, callbackBase: String) async throws -> PendingLink {
        let tenant = owner.tenant
        var pending = new
        pending.status = .pendingLink
        let connection = try await store.createConnection(tenantId: tenant.id, userId: owner.userId, pending)
        do {
            let state = try await issueLinkState(tenant: tenant, connectionId: connection.id)
            let adapter = try await linkingAdapter(connection)
            let start = try await withDeadline(router.perSourceTimeout) {
                try await adapter.startLink(callbackURL: Self.callbackURL(callbackBase, connection.id, state), relink: false)
            }
            return PendingLink(connection: connection, popupURL: start.popupURL)
        } catch {
            do {
                _ = try await store.deleteConnection(tenantId: tenant.id, id: connection.id)
            } catch let cleanup {
                logger.warning(
                    "a link that could not start left its pending connection behind",
                    metadata: ["connection": .string(connection.id), "error": .string("\(cleanup)")]
                )
            }
            throw error
        }
    }

    /// Starts a token update for an existing link, or, for a connection that never finished linking, a new link.
    /// A connection to an in-process sandbox gets a fresh simulated account instead (see `relinkSandbox`): `.linked`
    /// at once for brokers that link with credentials, `.pending` with a popup for those with a login page.
    public func startRelink(owner: Owner, id: String, callbackBase: String) async throws -> LinkOutcome {
        let tenant = owner.tenant
        let connection = try await self.connection(owner: owner, id: id)
        if let (name, sandbox) = linking.sandboxes.sandbox(forBaseURL: connection.baseURL), sandbox.broker == connection.broker {
            return try await relinkSandbox(owner: owner, connection, name: name, sandbox: sandbox, callbackBase: callbackBase)
        }
        let adapter = try await linkingAdapter(connection)
        let state = try await issueLinkState(tenant: tenant, connectionId: id)
        // A link that never completed has no token to update: the user logs in afresh.
        let relink = connection.status != .pendingLink
        let start = try await withDeadline(router.perSourceTimeout) {
            try await adapter.startLink(callbackURL: Self.callbackURL(callbackBase, connection.id, state), relink: relink)
        }
        try await audit(owner, "connection.relink_started", target: id, detail: ["broker": connection.broker.rawValue])
        return .pending(PendingLink(connection: connection, popupURL: start.popupURL))
    }

    /// Starts a new link for an existing connection from scratch (its earlier link is forgotten): for a broker
    /// that no longer knows the old one, such as a restarted sandbox.
    public func restartLink(owner: Owner, id: String, credentials: BrokerCredentials, callbackBase: String) async throws -> PendingLink {
        let tenant = owner.tenant
        _ = try await connection(owner: owner, id: id)
        try await store.updateCredentials(tenantId: tenant.id, connectionId: id, credentials)
        guard let connection = try await store.updateConnectionStatus(tenantId: tenant.id, connectionId: id, status: .pendingLink, detail: nil) else {
            throw GatewayError(.notFound, "no connection '\(id)'")
        }
        registry.evict(connectionId: id)
        let state = try await issueLinkState(tenant: tenant, connectionId: id)
        let adapter = try await linkingAdapter(connection)
        let start = try await withDeadline(router.perSourceTimeout) {
            try await adapter.startLink(callbackURL: Self.callbackURL(callbackBase, id, state), relink: false)
        }
        return PendingLink(connection: connection, popupURL: start.popupURL)
    }

    /// Completes a link with the broker's verifier, for a client holding the tenant's key (`POST …/{id}/link`): the
    /// connection's link in progress is spent first, so it completes at most once and never after it expired.
    public func completeLink(owner: Owner, id: String, verifier: String) async throws -> ConnectionDescriptor {
        let tenant = owner.tenant
        let connection = try await self.connection(owner: owner, id: id)
        let outcome = try await store.consumeLinkState(tenantId: tenant.id, connectionId: id, now: linking.now())
        guard case .consumed = outcome else { throw linkStateError(outcome, connectionId: id, fromCallback: false) }
        return try await finishLink(owner: owner, connection, verifier: verifier)
    }

    /// Completes a link from the broker's redirect (the OAuth callback), which comes from a browser without an API
    /// key: the state nonce names the link. It is looked up by its hash and spent in one store operation before the
    /// broker is called, so of two callbacks with one state exactly one proceeds; an unknown, expired or spent state
    /// is refused, and the connection stays as it was (`pending_link`, relinkable).
    public func completeLinkFromCallback(connectionId: String, state: String, verifier: String) async throws -> ConnectionDescriptor {
        let outcome = try await store.consumeLinkState(
            connectionId: connectionId,
            stateHash: Self.linkStateHash(state),
            now: linking.now()
        )
        guard case .consumed(let tenantId, _) = outcome else {
            throw linkStateError(outcome, connectionId: connectionId, fromCallback: true)
        }
        guard let tenant = try await store.tenant(id: tenantId),
            let connection = try await store.connection(tenantId: tenantId, id: connectionId), let userId = connection.userId
        else {
            throw linkStateError(.unknown, connectionId: connectionId, fromCallback: true)
        }
        // The browser acts for the user who started the link: the state nonce is that user's capability.
        let owner = Owner(tenant: tenant, userId: userId, actor: userId)
        return try await finishLink(owner: owner, connection, verifier: verifier)
    }

    /// The broker exchanges the verifier for the link's credentials, which replace the stored ones' link part.
    func finishLink(owner: Owner, _ connection: ConnectionDescriptor, verifier: String) async throws -> ConnectionDescriptor {
        let tenant = owner.tenant
        let id = connection.id
        let adapter = try await linkingAdapter(connection)
        let linked: BrokerCredentials
        do {
            linked = try await withDeadline(router.perSourceTimeout) { try await adapter.completeLink(verifier: verifier) }
        } catch let error as GatewayError where error.code == .unauthorized || error.code == .forbidden {
            throw GatewayError(
                .unprocessable,
                "\(connection.broker) refused to complete the link (\(error.message)); start it again with "
                    + "POST /v1/connections/\(id)/relink",
                broker: connection.broker,
                retryable: false,
                details: [FieldProblem(field: "oAuthVerifier", problem: "was refused by the broker")]
            )
        }
        var credentials = try await store.credentials(tenantId: tenant.id, connectionId: id)
        for (key, value) in linked.values { credentials[key] = value }
        credentials[Self.legacyLinkStateKey] = nil
        try await store.updateCredentials(tenantId: tenant.id, connectionId: id, credentials)
        _ = try await store.updateConnectionStatus(tenantId: tenant.id, connectionId: id, status: .active, detail: nil)
        registry.evict(connectionId: id)
        // Open a session at once, so a security question shows on the connection right away. The report is the
        // connection's own status afterwards; a failure here does not undo the link.
        _ = try await authenticate(owner: owner, id: id)
        try await audit(owner, "connection.linked", target: id, detail: ["broker": connection.broker.rawValue])
        return try await self.connection(owner: owner, id: id)
    }

    /// A new state nonce for a link of the connection, replacing any earlier one; only its hash is stored.
    func issueLinkState(tenant: Tenant, connectionId: String) async throws -> String {
        let state = RandomIdentifier.hex(byteCount: 16)
        let now = linking.now()
        let lifetime = linking.stateLifetime.components
        let expires = now.addingTimeInterval(TimeInterval(lifetime.seconds) + TimeInterval(lifetime.attoseconds) / 1e18)
        try await store.recordLinkState(
            tenantId: tenant.id,
            connectionId: connectionId,
            stateHash: Self.linkStateHash(state),
            expiresAt: expires,
            now: now
        )
        return state
    }

    static func linkStateHash(_ state: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(state.utf8)))
    }

    /// Why a link cannot be completed with this state, as the callback page and `/link` answer it.
    func linkStateError(_ outcome: LinkStateOutcome, connectionId: String, fromCallback: Bool) -> GatewayError {
        let relink = "start it again with POST /v1/connections/\(connectionId)/relink"
        switch outcome {
        case .expired:
            let minutes = max(1, Int(linking.stateLifetime.components.seconds / 60))
            return GatewayError(
                .conflict,
                "this link has expired (a link must be completed within \(minutes) minutes): \(relink)",
                retryable: false,
                details: [FieldProblem(field: "state", problem: "has expired")]
            )
        case .alreadyUsed:
            return GatewayError(
                .conflict,
                "this link has already been completed (or is being completed); to link again, \(relink)",
                retryable: false,
                details: [FieldProblem(field: "state", problem: "has already been used")]
            )
        case .unknown, .consumed:
            if fromCallback {
                return GatewayError(
                    .forbidden,
                    "this link callback does not belong to a link in progress",
                    retryable: false,
                    details: [FieldProblem(field: "state", problem: "is not the state of a link in progress of this connection")]
                )
            }
            return GatewayError(
                .conflict,
                "connection \(connectionId) has no link in progress: \(relink)",
                retryable: false,
                details: [FieldProblem(field: "state", problem: "no link in progress")]
            )
        }
    }

    /// Opens a session at the broker for one of the owner's interactively linked connections (TradeIt), reporting
    /// a security question the broker asks instead of failing on it.
    public func authenticate(owner: Owner, id: String) async throws -> AuthenticationReport {
        let connection = try await self.connection(owner: owner, id: id)
        return await authenticate(connection)
    }

    func authenticate(_ connection: ConnectionDescriptor) async -> AuthenticationReport {
        do {
            guard connection.status != .pendingLink, connection.status != .relinkRequired else { throw ConnectionDirectory.statusError(connection) }
            let adapter = try await linkingAdapter(connection)
            let outcome = try await withDeadline(router.perSourceTimeout) { try await adapter.authenticate() }
            return Self.report(connection, outcome)
        } catch {
            let gatewayError = BrokerRouter.gatewayErrorForReport(error)
            let refused = gatewayError.code == .unauthorized && !gatewayError.retryable
            if refused, connection.status != .relinkRequired {
                // The broker refused the login: the connection says so (reads, status and the dashboard), whatever
                // the adapter itself recorded.
                await directory.markRelinkRequired(connection, gatewayError)
            }
            let status = refused ? "relink_required" : "error"
            return AuthenticationReport(
                connection: connection.id,
                broker: connection.broker,
                status: status,
                error: SourceReport.Failure(gatewayError)
            )
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
    public func authenticateAll(owner: Owner) async throws -> [AuthenticationReport] {
        let tenant = owner.tenant
        var connections: [ConnectionDescriptor] = []
        for connection in try await store.connections(tenantId: tenant.id, userId: owner.userId) {
            let adapter: any BrokerAdapter
            do {
                adapter = try await directory.adapter(for: connection)
            } catch {
                // Not authenticated, so not reported (the answer lists interactive connections); its reads say why.
                logger.warning(
                    "authenticate-all skips a connection whose adapter cannot be made",
                    metadata: ["connection": .string(connection.id), "error": .string("\(error)")]
                )
                continue
            }
            if adapter is any LinkingAdapter { connections.append(connection) }
        }
        return await withTaskGroup(of: (Int, AuthenticationReport).self) { group in
            for (index, connection) in connections.enumerated() {
                // An active connection is left alone: authenticating it again would open a new session, and at
                // TradeIt ask its security question again, for a link that works.
                if connection.status == .active {
                    group.addTask { (index, AuthenticationReport(connection: connection.id, broker: connection.broker, status: "active")) }
                    continue
                }
                group.addTask { (index, await self.authenticate(connection)) }
            }
            var reports = [AuthenticationReport?](repeating: nil, count: connections.count)
            for await (index, report) in group { reports[index] = report }
            return reports.compactMap { $0 }
        }
    }

    /// Answers the security question a connection is waiting on; the broker may accept it, or ask another.
    public func answerChallenge(owner: Owner, id: String, answer: String) async throws -> AuthenticationReport {
        let connection = try await self.connection(owner: owner, id: id)
        guard connection.status == .challengeRequired else {
            throw GatewayError(.conflict, "connection \(id) has no question waiting (status \(connection.status.rawValue))", retryable: false)
        }
        let adapter = try await linkingAdapter(connection)
        let outcome = try await withDeadline(router.perSourceTimeout) { try await adapter.answerChallenge(answer) }
        return Self.report(try await self.connection(owner: owner, id: id), outcome)
    }

    // MARK: Helpers

    static func callbackURL(_ base: String, _ connectionId: String, _ state: String) -> String {
        "\(base)/v1/connections/\(connectionId)/oauth/callback?state=\(state)"
    }

    /// Relinking a sandbox connection gives it a fresh simulated account (the old one is forgotten): proven and
    /// active at once for brokers that link with credentials, a new login popup for those with a login page.
    func relinkSandbox(
        owner: Owner,
        _ connection: ConnectionDescriptor,
        name: String,
        sandbox: SandboxAccounts.Sandbox,
        callbackBase: String
    ) async throws -> LinkOutcome {
        let tenant = owner.tenant
        let held = try await sandboxes.provisionedSandboxAccount(tenant: tenant, connection)
        let fresh = try sandboxes.provision(sandbox, name: name)
        var new = NewConnection(
            broker: connection.broker,
            displayName: connection.displayName,
            baseURL: connection.baseURL,
            settings: connection.settings,
            credentials: fresh
        )
        new.id = connection.id
        let outcome: LinkOutcome
        do {
            if try needsInteractiveLink(new) {
                outcome = .pending(try await restartLink(owner: owner, id: connection.id, credentials: fresh, callbackBase: callbackBase))
            } else {
                // As a new link: what the proof left (rotated tokens, a session, a reported status) is kept.
                let proof = try await proveCredentials(tenant: tenant, new)
                try await replaceCredentials(owner: owner, id: connection.id, proof.credentials)
                var relinked = try await self.connection(owner: owner, id: connection.id)
                if let reported = try await proof.sink.bind(store: store, tenantId: tenant.id, connectionId: connection.id) {
                    relinked = reported
                }
                registry.adopt(proof.adapter, for: relinked)
                outcome = .linked(relinked)
            }
        } catch {
            sandbox.release(fresh)
            throw error
        }
        if let held { held.sandbox.release(held.credentials) }
        return outcome
    }
}
