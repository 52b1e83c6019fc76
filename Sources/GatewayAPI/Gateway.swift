public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// The application layer between the HTTP routes and the core: it resolves a tenant's connections to adapters,
/// fans reads out through the router, and keeps the gateway-side state (watchlists) in the store.
/// Routes stay thin; this is where the rules live.
public struct Gateway: Sendable {
    public let store: any GatewayStore
    public let journal: any OrderJournalStore
    public let registry: AdapterRegistry
    public let router: BrokerRouter
    public let logger: Logger
    public let orderSettings: OrderSettings
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
            return try await read(adapter, connection)
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

    /// Links a connection: its credentials are proven against the broker before anything is saved.
    public func link(tenant: Tenant, _ new: NewConnection) async throws -> ConnectionDescriptor {
        guard let factory = registry.factory(for: new.broker) else {
            throw GatewayError.unprocessable([FieldProblem(
                field: "broker", problem: "must be one of: \(registry.kinds.map(\.rawValue).joined(separator: ", "))")])
        }
        let missing = factory.credentialKeys.filter { (new.credentials[$0] ?? "").isEmpty }
        if !missing.isEmpty {
            throw GatewayError.unprocessable(missing.map { FieldProblem(field: "credentials.\($0)", problem: "is required for \(new.broker)") })
        }
        let now = Date()
        let candidate = ConnectionDescriptor(
            id: "unsaved", tenantId: tenant.id, broker: new.broker, displayName: new.displayName, baseURL: new.baseURL,
            settings: new.settings, status: new.status, createdAt: now, updatedAt: now)
        let adapter = try registry.makeAdapter(for: candidate, credentials: new.credentials)
        do {
            try await withDeadline(router.perSourceTimeout) { try await adapter.validateCredentials() }
        } catch let error as GatewayError where error.code == .unauthorized || error.code == .forbidden {
            throw GatewayError(
                .unprocessable, "\(new.broker) refused the credentials: \(error.message)", broker: new.broker,
                retryable: false, details: [FieldProblem(field: "credentials", problem: "were refused by the broker")])
        }
        return try await store.createConnection(tenantId: tenant.id, new)
    }

    public func unlink(tenant: Tenant, id: String) async throws {
        guard try await store.deleteConnection(tenantId: tenant.id, id: id) else {
            throw GatewayError(.notFound, "no connection '\(id)'")
        }
        registry.evict(connectionId: id)
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

    // MARK: Quotes

    /// Quotes for the symbols this broker has: a multi-broker quote read asks every broker for every symbol, and a
    /// symbol one broker does not quote (another asset class, a pair it does not list) is not that broker's failure.
    static func quotes(_ adapter: any BrokerAdapter, _ references: [InstrumentReference]) async throws -> [Quote] {
        let tradable = references.filter { adapter.capabilities.assetClasses.contains($0.impliedAssetClass) }
        func notQuotedHere(_ error: GatewayError) -> Bool {
            [.notSupported, .unprocessable, .notFound].contains(error.code)
        }
        do {
            return tradable.isEmpty ? [] : try await adapter.quotes(tradable)
        } catch let error as GatewayError where notQuotedHere(error) && tradable.count > 1 {
            var quotes: [Quote] = []
            for reference in tradable {
                do {
                    quotes += try await adapter.quotes([reference])
                } catch let error as GatewayError where notQuotedHere(error) {
                    continue
                }
            }
            return quotes
        } catch let error as GatewayError where notQuotedHere(error) {
            return []
        }
    }

    // MARK: Watchlists

    static let brokerWatchlistPrefix = "bwl_"

    func gatewayWatchlist(_ watchlist: Watchlist, connection: ConnectionDescriptor) -> Watchlist {
        var watchlist = watchlist
        watchlist.id = OpaqueID.make(prefix: Self.brokerWatchlistPrefix, connectionId: connection.id, brokerId: watchlist.id)
        watchlist.connectionId = connection.id
        return watchlist
    }

    /// The gateway's own watchlists first, then each broker's, with a source line per broker.
    public func watchlists(tenant: Tenant, _ selection: Selection) async throws -> FanOut<Watchlist> {
        let gateway = self
        var result: FanOut<Watchlist> = try await fanOut(tenant: tenant, selection, operation: .watchlists) { adapter, connection -> [Watchlist] in
            guard adapter.capabilities.support(for: .watchlists) == .supported else { return [] }
            return try await adapter.watchlists().map { gateway.gatewayWatchlist($0, connection: connection) }
        }
        if selection.connectionId == nil, selection.broker == nil {
            result.data.insert(contentsOf: try await store.watchlists(tenantId: tenant.id), at: 0)
        }
        return result
    }

    public func watchlist(tenant: Tenant, id: String) async throws -> Watchlist {
        if let (connection, adapter, brokerId) = try await brokerWatchlistTarget(tenant: tenant, id: id) {
            let lists = try await withDeadline(router.perSourceTimeout) { try await adapter.watchlists() }
            guard let found = lists.first(where: { $0.id == brokerId }) else { throw GatewayError(.notFound, "no watchlist '\(id)'") }
            return gatewayWatchlist(found, connection: connection)
        }
        guard let watchlist = try await store.watchlist(tenantId: tenant.id, id: id) else {
            throw GatewayError(.notFound, "no watchlist '\(id)'")
        }
        return watchlist
    }

    public func createWatchlist(tenant: Tenant, name: String, instruments: [InstrumentReference], connectionId: String?) async throws -> Watchlist {
        if let connectionId {
            let connection = try await activeConnection(tenant: tenant, id: connectionId, field: "connectionId")
            let adapter = try await adapter(for: connection)
            guard adapter.capabilities.support(for: .createWatchlist) == .supported else {
                throw GatewayError.notSupported("watchlists", broker: connection.broker)
            }
            let created = try await withDeadline(router.perSourceTimeout) { try await adapter.createWatchlist(name: name, instruments: instruments) }
            return gatewayWatchlist(created, connection: connection)
        }
        return try await store.createWatchlist(tenantId: tenant.id, name: name, instruments: instruments.map(Self.instrument))
    }

    public func updateWatchlist(tenant: Tenant, id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist {
        if let (connection, adapter, brokerId) = try await brokerWatchlistTarget(tenant: tenant, id: id) {
            let updated = try await withDeadline(router.perSourceTimeout) { try await adapter.updateWatchlist(id: brokerId, name: name, instruments: instruments) }
            return gatewayWatchlist(updated, connection: connection)
        }
        guard let updated = try await store.updateWatchlist(tenantId: tenant.id, id: id, name: name, instruments: instruments?.map(Self.instrument)) else {
            throw GatewayError(.notFound, "no watchlist '\(id)'")
        }
        return updated
    }

    public func deleteWatchlist(tenant: Tenant, id: String) async throws {
        if let (_, adapter, brokerId) = try await brokerWatchlistTarget(tenant: tenant, id: id) {
            try await withDeadline(router.perSourceTimeout) { try await adapter.deleteWatchlist(id: brokerId) }
            return
        }
        guard try await store.deleteWatchlist(tenantId: tenant.id, id: id) else {
            throw GatewayError(.notFound, "no watchlist '\(id)'")
        }
    }

    func brokerWatchlistTarget(tenant: Tenant, id: String) async throws -> (ConnectionDescriptor, any BrokerAdapter, String)? {
        guard id.hasPrefix(Self.brokerWatchlistPrefix) else { return nil }
        guard let (connectionId, brokerId) = OpaqueID.parse(id, prefix: Self.brokerWatchlistPrefix),
            let connection = try await store.connection(tenantId: tenant.id, id: connectionId)
        else { throw GatewayError(.notFound, "no watchlist '\(id)'") }
        if connection.status != .active { throw Self.statusError(connection) }
        return (connection, try await adapter(for: connection), brokerId)
    }

    static func instrument(_ reference: InstrumentReference) -> Instrument {
        let assetClass = reference.impliedAssetClass
        return Instrument(symbol: reference.symbol, assetClass: assetClass, currency: Instrument(symbol: reference.symbol, assetClass: assetClass).pair?.quote)
    }
}
