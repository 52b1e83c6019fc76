public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// The lookups every service that reaches a broker needs: the connections a principal owns, the adapter that speaks
/// for each, and what happens to a connection when its broker refuses its credentials. It is its own small type so
/// that a service holds this, and not the whole application, to find its connections.
public struct ConnectionDirectory: Sendable {
    let store: any GatewayStore
    let registry: AdapterRegistry
    /// The connection lists of every request, cached under the store's change stamp.
    let hotReads: HotReads
    /// The shared reads, dropped for a connection whose state changes.
    let coalescer: ReadCoalescer
    let logger: Logger

    init(store: any GatewayStore, registry: AdapterRegistry, hotReads: HotReads, coalescer: ReadCoalescer, logger: Logger) {
        self.store = store
        self.registry = registry
        self.hotReads = hotReads
        self.coalescer = coalescer
        self.logger = logger
    }

    func adapter(for connection: ConnectionDescriptor) async throws -> any BrokerAdapter {
        let store = self.store
        let tenantId = connection.tenantId
        let connectionId = connection.id
        return try await registry.adapter(
            for: connection,
            credentials: { try await store.credentials(tenantId: tenantId, connectionId: connectionId) },
            saveCredentials: { credentials in
                try await store.updateCredentials(tenantId: tenantId, connectionId: connectionId, credentials)
            },
            saveStatus: { status, detail in
                _ = try await store.updateConnectionStatus(
                    tenantId: tenantId,
                    connectionId: connectionId,
                    status: status,
                    detail: detail
                )
            }
        )
    }

    /// One of the owner's connections. Another user's connection is not found, the same as one that does not exist.
    public func connection(owner: Owner, id: String) async throws -> ConnectionDescriptor {
        guard let connection = try await store.connection(tenantId: owner.tenant.id, id: id), owner.owns(connection) else {
            throw GatewayError(.notFound, "no connection '\(id)'")
        }
        return connection
    }

    /// The tenant's connections that a read should reach, oldest first. A named connection that does not exist is
    /// a 404, so a typo never looks like an empty portfolio.
    public func connections(
        owner: Owner,
        _ selection: Gateway.Selection,
        supporting operation: BrokerOperation? = nil
    )
        async throws -> [ConnectionDescriptor]
    {
        var connections = try await userConnections(owner)
        if let id = selection.connectionId {
            connections = connections.filter { $0.id == id }
            if connections.isEmpty { throw GatewayError(.notFound, "no connection '\(id)'") }
        }
        if let broker = selection.broker {
            // A kind this build has no adapter for: 422, as linking it is (the kind set is open), not an empty read.
            guard registry.factory(for: broker) != nil else { throw registry.unknownKind(broker) }
            connections = connections.filter { $0.broker == broker }
        }
        if let operation {
            connections = connections.filter {
                (registry.factory(for: $0.broker)?.capabilities.support(for: operation) ?? .unsupported) != .unsupported
            }
        }
        return connections
    }

    /// The user's connections, oldest first, from the cache while the store has not changed.
    func userConnections(_ owner: Owner) async throws -> [ConnectionDescriptor] {
        let store = self.store
        return try await hotReads.read(
            hotReads.connectionLists,
            HotReads.UserKey(tenantId: owner.tenant.id, userId: owner.userId)
        ) { try await store.connections(tenantId: owner.tenant.id, userId: owner.userId) } ?? []
    }

    /// After anything that changes state at the broker: no read of this connection is answered from before it.
    func invalidateReads(connection: String) {
        coalescer.invalidate(connection: connection)
    }

    func requireSupport(_ operation: BrokerOperation, _ connection: ConnectionDescriptor) throws {
        let support = registry.factory(for: connection.broker)?.capabilities.support(for: operation) ?? .unsupported
        if support == .unsupported { throw GatewayError.notSupported(operation.rawValue, broker: connection.broker) }
    }

    func activeConnection(owner: Owner, id: String, field: String) async throws -> ConnectionDescriptor {
        guard let connection = try await store.connection(tenantId: owner.tenant.id, id: id), owner.owns(connection) else {
            throw GatewayError.unprocessable([FieldProblem(field: field, problem: "names no connection of this user")])
        }
        if connection.status != .active { throw Self.statusError(connection) }
        return connection
    }

    /// Moves a connection whose broker refused its credentials to `relink_required`, with the broker's reason.
    /// Best-effort: a store that cannot take it is logged, and the next refused call tries again. `counted`: the
    /// refusing answer already went through the pipeline's health count (a read's 401), so it is not counted twice.
    func markRelinkRequired(_ connection: ConnectionDescriptor, _ error: GatewayError, counted: Bool = false) async {
        if !counted { registry.pipeline.recordRefusal(connectionId: connection.id, broker: connection.broker, error: error) }
        do {
            _ = try await store.updateConnectionStatus(
                tenantId: connection.tenantId,
                connectionId: connection.id,
                status: .relinkRequired,
                detail: ["reason": error.message]
            )
            registry.evict(connectionId: connection.id)
            invalidateReads(connection: connection.id)
        } catch {
            logger.warning(
                "a connection the broker refused could not be marked relink_required",
                metadata: ["connection": .string(connection.id), "error": .string("\(error)")]
            )
        }
    }

    /// Whether a read's failure is the broker refusing the connection's credentials, which only a new link mends: an
    /// `unauthorized` that is final (not a session to reopen) and that the broker itself answered, naming its own code
    /// or text. An adapter's own refusal names none (TradeOgre without keys: the link is fine, it is public).
    static func refusesCredentials(_ error: GatewayError, of connection: ConnectionDescriptor) -> Bool {
        error.code == .unauthorized && !error.retryable && error.broker == connection.broker && error.brokerCode != nil
    }

    static func statusError(_ connection: ConnectionDescriptor) -> GatewayError {
        switch connection.status {
        case .challengeRequired:
            GatewayError(
                .forbidden,
                "the broker asks a security question: answer it at /v1/connections/\(connection.id)/challenge",
                broker: connection.broker,
                retryable: false
            )
        case .relinkRequired:
            GatewayError(.unauthorized, "the broker link has expired: link the connection again", broker: connection.broker, retryable: false)
        case .pendingLink:
            GatewayError(.forbidden, "the connection is not linked yet", broker: connection.broker, retryable: false)
        case .active:
            GatewayError(.internalError, "connection is active")
        }
    }
}
