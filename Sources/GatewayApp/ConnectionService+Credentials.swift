public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging
import Synchronization

/// What a client asks for when it links a connection (`POST /v1/connections`), before it is checked.
public struct LinkRequest: Sendable, Hashable {
    /// The broker kind to link (`alpaca`, `saxo`, …); one `GET /v1/brokers` lists.
    public var broker: BrokerKind
    /// The name the user sees; the broker's display name when absent.
    public var displayName: String?
    /// Where the broker's API is (a paper or live endpoint); the broker's default when absent.
    public var baseURL: String?
    /// Broker-specific settings the adapter reads.
    public var settings: [String: String]?
    /// The credentials by the keys the broker kind names (`credentialKeys`); never returned once saved.
    public var credentials: [String: String]?

    /// A link request as the API decoded it; `newConnection` checks it.
    public init(
        broker: BrokerKind,
        displayName: String? = nil,
        baseURL: String? = nil,
        settings: [String: String]? = nil,
        credentials: [String: String]? = nil
    ) {
        self.broker = broker
        self.displayName = displayName
        self.baseURL = baseURL
        self.settings = settings
        self.credentials = credentials
    }
}

/// How a link request ended: linked at once with credentials, or waiting for the user at the broker's login page.
public enum LinkOutcome: Sendable {
    case linked(ConnectionDescriptor)
    case pending(PendingLink)
}

/// A broker kind as `GET /v1/brokers` shows it.
public struct BrokerDescription: Codable, Sendable, Hashable {
    /// The kind's identifier, as connections and requests name it.
    public var kind: BrokerKind
    /// The broker's name for people.
    public var displayName: String
    /// What the broker can do: supported, emulated by the gateway, or unsupported, each with notes.
    public var capabilities: Capabilities
    /// The credential keys a link request must carry for this kind.
    public var credentialKeys: [String]
    /// The broker's known API endpoints by name, for a client to offer as `baseURL`.
    public var knownBaseURLs: [String: String]
}

/// Linking with credentials, unlinking, and the tenant's view of its connections.
extension ConnectionService {
    /// One of the owner's connections. Another user's connection is not found, the same as one that does not exist.
    public func connection(owner: Owner, id: String) async throws -> ConnectionDescriptor {
        try await directory.connection(owner: owner, id: id)
    }

    /// Every connection of the user, oldest first.
    public func connections(owner: Owner) async throws -> [ConnectionDescriptor] {
        try await directory.userConnections(owner)
    }

    /// Links a connection from a client's request: checked here, then either proven with its credentials and saved,
    /// or (brokers that link through a login page) saved as pending with the popup URL to open. `POST /v1/connections`
    /// and every connection of an import come this one way.
    ///
    /// A connection to a built-in sandbox (`sandbox://<name>`) gets a simulated account of its own, provisioned in
    /// process, whatever credentials the request carries: those are ignored, so no tenant reaches another's sandbox
    /// account and the public demo logins never link anyone but the demo tenant.
    public func link(owner: Owner, _ request: LinkRequest, callbackBase: String) async throws -> LinkOutcome {
        let tenant = owner.tenant
        var new = try newConnection(request)
        guard let (name, sandbox) = try sandboxes.builtInSandbox(for: new) else {
            return try await linkChecked(owner: owner, new, callbackBase: callbackBase)
        }
        try await sandboxes.requireSandboxRoom(tenant: tenant, name: name)
        new.credentials = try sandboxes.provision(sandbox, name: name)
        do {
            return try await linkChecked(owner: owner, new, callbackBase: callbackBase)
        } catch {
            sandbox.release(new.credentials)
            throw error
        }
    }

    /// The part of `link` after the request's checks: a popup for brokers with a login page, else the proof.
    private func linkChecked(owner: Owner, _ new: NewConnection, callbackBase: String) async throws -> LinkOutcome {
        if try needsInteractiveLink(new) {
            return .pending(try await startLink(owner: owner, new, callbackBase: callbackBase))
        }
        return .linked(try await link(owner: owner, new))
    }

    /// The checks every link request passes before any broker is called.
    func newConnection(_ request: LinkRequest) throws -> NewConnection {
        var problems: [FieldProblem] = []
        guard let factory = registry.factory(for: request.broker) else { throw registry.unknownKind(request.broker) }
        let displayName = request.displayName ?? factory.displayName
        if displayName.isEmpty || displayName.count > 100 {
            problems.append(FieldProblem(field: "displayName", problem: "must be 1 to 100 characters"))
        }
        let baseURL = request.baseURL ?? factory.knownBaseURLs["default"] ?? ""
        if baseURL.isEmpty {
            problems.append(
                FieldProblem(field: "baseURL", problem: "is required (known: \(factory.knownBaseURLs.values.sorted().joined(separator: ", ")))")
            )
        } else if baseURL.count > 2048 {
            problems.append(FieldProblem(field: "baseURL", problem: "must be at most 2048 characters"))
        } else {
            // The egress policy's checks that need no name resolution; the transport checks the resolved address.
            problems += registry.urlProblems(broker: request.broker, baseURL: baseURL)
        }
        let settings = request.settings ?? [:]
        if settings.count > 32 { problems.append(FieldProblem(field: "settings", problem: "must have at most 32 entries")) }
        for (key, value) in settings where key.count > 64 || value.count > 2048 {
            problems.append(FieldProblem(field: "settings.\(key.prefix(64))", problem: "keys are at most 64 and values at most 2048 characters"))
        }
        problems += registry.urlProblems(settings: settings)
        let credentials = request.credentials ?? [:]
        if credentials.count > 16 { problems.append(FieldProblem(field: "credentials", problem: "must have at most 16 entries")) }
        for (key, value) in credentials where key.count > 64 || value.count > 8192 {
            problems.append(FieldProblem(field: "credentials.\(key.prefix(64))", problem: "keys are at most 64 and values at most 8192 characters"))
        }
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        return NewConnection(
            broker: request.broker,
            displayName: displayName,
            baseURL: baseURL,
            settings: settings,
            credentials: BrokerCredentials(credentials)
        )
    }

    /// Gives a connection new credentials and makes it active again, forgetting its cached adapter: for a broker
    /// that forgot the old ones, such as a restarted sandbox.
    public func replaceCredentials(owner: Owner, id: String, _ credentials: BrokerCredentials) async throws {
        let tenant = owner.tenant
        _ = try await connection(owner: owner, id: id)
        try await store.updateCredentials(tenantId: tenant.id, connectionId: id, credentials)
        guard try await store.updateConnectionStatus(tenantId: tenant.id, connectionId: id, status: .active, detail: nil) != nil else {
            throw GatewayError(.notFound, "no connection '\(id)'")
        }
        registry.evict(connectionId: id)
    }
    /// Links a connection: its credentials are proven against the broker before anything is saved, and the adapter
    /// that proved them becomes the connection's own. So what the proof did at the broker counts: a rotated token
    /// pair is what is saved (Saxo's refresh tokens are single-use, and the one given is spent), a session it opened
    /// is the one reads use (TradeIt), and a status it reported (a security question asked at once) is the new
    /// connection's status, not something the first read finds out.
    public func link(owner: Owner, _ new: NewConnection) async throws -> ConnectionDescriptor {
        let tenant = owner.tenant
        var proven = new
        let id = new.id ?? NewConnection.makeId()
        proven.id = id
        let linked: ConnectionDescriptor
        do {
            let proof = try await proveCredentials(tenant: tenant, proven)
            proven.credentials = proof.credentials
            let created = try await store.createConnection(tenantId: tenant.id, userId: owner.userId, proven)
            linked = try await proof.sink.bind(store: store, tenantId: tenant.id, connectionId: created.id) ?? created
            registry.adopt(proof.adapter, for: linked)
        } catch {
            // The id was never saved: nothing may keep the pipeline state its proof made.
            registry.forget(connectionId: id)
            throw error
        }
        try await audit(owner, "connection.linked", target: linked.id, detail: ["broker": linked.broker.rawValue])
        return linked
    }

    /// What proving a link's credentials left: the adapter that proved them (bound to the connection's id), the
    /// credentials to save (those given, or the pair the adapter rotated them into, since a given refresh token may
    /// be spent), and the sink holding whatever else the adapter reported until the connection is saved.
    struct CredentialProof: Sendable {
        var adapter: any BrokerAdapter
        var credentials: BrokerCredentials
        var sink: LinkSink
    }

    /// The credential proof every link passes: each key the broker needs is there, and the broker accepts them. A
    /// refusal is a 422 naming `credentials`. `new.id` names the connection the proving adapter acts for (the id it
    /// will be saved under, or the existing connection being relinked).
    func proveCredentials(tenant: Tenant, _ new: NewConnection) async throws -> CredentialProof {
        guard let factory = registry.factory(for: new.broker) else { throw registry.unknownKind(new.broker) }
        let problems = factory.credentialProblems(new.credentials)
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let now = Date()
        let candidate = ConnectionDescriptor(
            id: new.id ?? NewConnection.makeId(),
            tenantId: tenant.id,
            broker: new.broker,
            displayName: new.displayName,
            baseURL: new.baseURL,
            settings: new.settings,
            status: new.status,
            createdAt: now,
            updatedAt: now
        )
        let sink = LinkSink()
        let adapter = try registry.makeLinkAdapter(
            for: candidate,
            credentials: new.credentials,
            saveCredentials: { try await sink.save(credentials: $0) },
            saveStatus: { try await sink.save(status: $0, detail: $1) }
        )
        do {
            try await withDeadline(router.perSourceTimeout) { try await adapter.validateCredentials() }
        } catch let error as GatewayError where error.code == .unauthorized || error.code == .forbidden {
            throw GatewayError(
                .unprocessable,
                "\(new.broker) refused the credentials: \(error.message)",
                broker: new.broker,
                retryable: false,
                details: [FieldProblem(field: "credentials", problem: "were refused by the broker")]
            )
        }
        return CredentialProof(adapter: adapter, credentials: sink.heldCredentials ?? new.credentials, sink: sink)
    }

    /// Deletes a connection; a built-in sandbox forgets the simulated account it held.
    public func unlink(owner: Owner, id: String) async throws {
        let tenant = owner.tenant
        let connection = try await self.connection(owner: owner, id: id)
        var held: (sandbox: SandboxAccounts.Sandbox, credentials: BrokerCredentials)?
        do {
            held = try await sandboxes.provisionedSandboxAccount(tenant: tenant, connection)
        } catch {
            // An unreadable connection can still be deleted; its simulated account then lives until a restart.
            logger.warning(
                "a deleted sandbox connection's account is not released",
                metadata: ["connection": .string(id), "error": .string("\(error)")]
            )
        }
        guard try await store.deleteConnection(tenantId: tenant.id, id: id) else {
            throw GatewayError(.notFound, "no connection '\(id)'")
        }
        registry.forget(connectionId: id)
        if let held { held.sandbox.release(held.credentials) }
        try await audit(owner, "connection.removed", target: id, detail: ["broker": connection.broker.rawValue])
    }

}

/// Where the adapter proving a link saves what it changes. Until the connection is saved there is no row to write
/// to, so the latest credentials and status are held; `bind` writes the held status and from then on every save goes
/// straight to the store, as the saves of an adapter made for a stored connection do.
final class LinkSink: Sendable {
    private enum State {
        case holding(credentials: BrokerCredentials?, status: (ConnectionStatus, [String: String]?)?)
        case bound(store: any GatewayStore, tenantId: String, connectionId: String)
    }

    private let state = Mutex<State>(.holding(credentials: nil, status: nil))

    /// The credentials the adapter rotated into while nothing was saved yet, if it did.
    var heldCredentials: BrokerCredentials? {
        state.withLock {
            if case .holding(let credentials, _) = $0 { return credentials }
            return nil
        }
    }

    func save(credentials: BrokerCredentials) async throws {
        let target: (any GatewayStore, String, String)? = state.withLock {
            switch $0 {
            case .holding(_, let status):
                $0 = .holding(credentials: credentials, status: status)
                return nil
            case .bound(let store, let tenantId, let connectionId):
                return (store, tenantId, connectionId)
            }
        }
        if let (store, tenantId, connectionId) = target {
            try await store.updateCredentials(tenantId: tenantId, connectionId: connectionId, credentials)
        }
    }

    func save(status: ConnectionStatus, detail: [String: String]?) async throws {
        let target: (any GatewayStore, String, String)? = state.withLock {
            switch $0 {
            case .holding(let credentials, _):
                $0 = .holding(credentials: credentials, status: (status, detail))
                return nil
            case .bound(let store, let tenantId, let connectionId):
                return (store, tenantId, connectionId)
            }
        }
        if let (store, tenantId, connectionId) = target {
            _ = try await store.updateConnectionStatus(
                tenantId: tenantId,
                connectionId: connectionId,
                status: status,
                detail: detail
            )
        }
    }

    /// Binds the sink to the saved connection: the status the adapter reported while proving the link is written,
    /// and the updated connection returned (`nil` when it reported none). The held credentials were saved with the
    /// connection. Called once no call of the proof is in flight, so nothing is saved out of order.
    func bind(store: any GatewayStore, tenantId: String, connectionId: String) async throws -> ConnectionDescriptor? {
        let held = state.withLock { state -> (ConnectionStatus, [String: String]?)? in
            defer { state = .bound(store: store, tenantId: tenantId, connectionId: connectionId) }
            if case .holding(_, let status) = state { return status }
            return nil
        }
        guard let (status, detail) = held else { return nil }
        return try await store.updateConnectionStatus(
            tenantId: tenantId,
            connectionId: connectionId,
            status: status,
            detail: detail
        )
    }
}
