public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// The application layer between the HTTP server and the core: it resolves a tenant's connections to adapters,
/// fans reads out through the router, runs the order pipeline, and keeps the gateway-side state (watchlists) in the
/// store. It knows nothing of HTTP; the server only decodes requests, calls it, and encodes its answers.
/// The store, the journal and the adapter registry are its own: nothing outside reaches past it into them.
public struct Gateway: Sendable {
    let store: any GatewayStore
    let journal: any OrderJournalStore
    let registry: AdapterRegistry
    let router: BrokerRouter
    let logger: Logger
    let orderSettings: OrderSettings
    let inFlight: InFlightOrders
    let previews: PreviewCache
    let accountIds: AccountCache

    public init(
        store: some GatewayStore & OrderJournalStore, registry: AdapterRegistry, router: BrokerRouter, logger: Logger,
        orderSettings: OrderSettings = OrderSettings()
    ) {
        self.store = store
        self.journal = store
        self.registry = registry
        self.router = router
        self.logger = logger
        self.orderSettings = orderSettings
        self.inFlight = InFlightOrders()
        self.previews = PreviewCache()
        self.accountIds = AccountCache()
    }

    /// Which connections a read goes to.
    public struct Selection: Sendable {
        public var connectionId: String?
        public var broker: BrokerKind?
        public var accountId: String?

        public init(connectionId: String? = nil, broker: BrokerKind? = nil, accountId: String? = nil) {
            self.connectionId = connectionId
            self.broker = broker
            self.accountId = accountId
        }
    }

    // MARK: Connections and adapters

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
                    tenantId: tenantId, connectionId: connectionId, status: status, detail: detail)
            })
    }

    public func connection(tenant: Tenant, id: String) async throws -> ConnectionDescriptor {
        guard let connection = try await store.connection(tenantId: tenant.id, id: id) else {
            throw GatewayError(.notFound, "no connection '\(id)'")
        }
        return connection
    }

    /// The tenant's connections that a read should reach, oldest first. A named connection that does not exist is
    /// a 404, so a typo never looks like an empty portfolio.
    public func connections(tenant: Tenant, _ selection: Selection, supporting operation: BrokerOperation? = nil)
        async throws -> [ConnectionDescriptor]
    {
        var connections = try await store.connections(tenantId: tenant.id)
        if let id = selection.connectionId {
            connections = connections.filter { $0.id == id }
            if connections.isEmpty { throw GatewayError(.notFound, "no connection '\(id)'") }
        }
        if let broker = selection.broker {
            guard registry.factory(for: broker) != nil else {
                throw GatewayError.invalid("broker", "must be one of: \(registry.kinds.map(\.rawValue).joined(separator: ", "))")
            }
            connections = connections.filter { $0.broker == broker }
        }
        if let operation {
            connections = connections.filter {
                (registry.factory(for: $0.broker)?.capabilities.support(for: operation) ?? .unsupported) != .unsupported
            }
        }
        return connections
    }

    /// Fans `read` out to the selected connections and reports each one.
    public func fanOut<Item: Sendable>(
        tenant: Tenant, _ selection: Selection, operation: BrokerOperation,
        _ read: @escaping @Sendable (any BrokerAdapter, ConnectionDescriptor) async throws -> [Item]
    ) async throws -> FanOut<Item> {
        let connections = try await connections(tenant: tenant, selection, supporting: operation)
        let gateway = self
        return await router.fanOut(connections, describe: { ($0.id, $0.broker) }) { connection in
            if connection.status != .active {
                throw Self.statusError(connection)
            }
            let adapter = try await gateway.adapter(for: connection)
            return try await BrokerOperationScope.$current.withValue(operation.rawValue) {
                try await read(adapter, connection)
            }
        }
    }

    static func statusError(_ connection: ConnectionDescriptor) -> GatewayError {
        switch connection.status {
        case .challengeRequired:
            GatewayError(.forbidden, "the broker asks a security question: answer it at /v1/connections/\(connection.id)/challenge", broker: connection.broker, retryable: false)
        case .relinkRequired:
            GatewayError(.unauthorized, "the broker link has expired: link the connection again", broker: connection.broker, retryable: false)
        case .pendingLink:
            GatewayError(.forbidden, "the connection is not linked yet", broker: connection.broker, retryable: false)
        case .active:
            GatewayError(.internalError, "connection is active")
        }
    }

    // MARK: Orders

    func requireSupport(_ operation: BrokerOperation, _ connection: ConnectionDescriptor) throws {
        let support = registry.factory(for: connection.broker)?.capabilities.support(for: operation) ?? .unsupported
        if support == .unsupported { throw GatewayError.notSupported(operation.rawValue, broker: connection.broker) }
    }

    func activeConnection(tenant: Tenant, id: String, field: String) async throws -> ConnectionDescriptor {
        guard let connection = try await store.connection(tenantId: tenant.id, id: id) else {
            throw GatewayError.unprocessable([FieldProblem(field: field, problem: "names no connection of this tenant")])
        }
        if connection.status != .active { throw Self.statusError(connection) }
        return connection
    }

}
