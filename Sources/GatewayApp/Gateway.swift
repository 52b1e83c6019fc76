public import CoreMetrics
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
    let orderRecords: OrderRecordLocks
    let reads: ReadCoalescer
    let metrics: ApplicationMetrics
    let reconcilerHeartbeat: Heartbeat
    let reconciliationAttempts: ReconciliationAttempts
    let journalQuarantine = JournalQuarantine()
    /// How old an answer a read accepts when neither the read (`maxAgeMs`) nor its tenant says.
    let defaultReadMaxAge: Duration
    /// `false` only to measure what sharing saves: every read then asks the broker.
    let coalesceReads: Bool
    /// What one tenant and one key may ask of the gateway.
    let limits: TenantLimits
    let requestLimiter: RequestLimiter
    let fanOutGate: FanOutGate
    /// Interactive links, export and import, and the built-in sandboxes' accounts.
    let linking: LinkSettings
    /// End users' sessions: signing keys, lifetimes, the device limit, the clock.
    let sessions: SessionSettings
    let sessionKeys: SessionKeyRing
    let deviceSeen = DeviceSeenThrottle()
    let passwords: PasswordHasher
    /// Logins' lockout and rates, checked before any password is hashed.
    let logins: LoginGuard
    /// The key, session and connection-list reads of every request, cached under the store's change stamp.
    let hotReads: HotReads
    /// The streams' shared parts: the order feed's tail, the quote feeds, the streams open per user.
    let streams: StreamHub
    /// Alerts: the per-user limit, and the webhook and APNs delivery (the engine that fires them is `AlertEngine`).
    let alertSettings: AlertSettings
    let alertDelivery: AlertDelivery
    /// The stream of the `AlertEngine` made for this gateway, for test sends.
    let alertStream = AlertStreamRelay()

    public init(
        store: some GatewayStore & OrderJournalStore,
        registry: AdapterRegistry,
        router: BrokerRouter,
        logger: Logger,
        orderSettings: OrderSettings = OrderSettings(),
        defaultReadMaxAge: Duration = .zero,
        coalesceReads: Bool = true,
        limits: TenantLimits = TenantLimits(),
        linking: LinkSettings = LinkSettings(),
        sessions: SessionSettings = SessionSettings(),
        streams: StreamSettings = StreamSettings(),
        alerts: AlertSettings = AlertSettings()
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
        self.orderRecords = OrderRecordLocks()
        self.reads = ReadCoalescer()
        let metrics = ApplicationMetrics(factory: registry.pipeline.metrics)
        self.metrics = metrics
        self.reconcilerHeartbeat = Heartbeat()
        self.reconciliationAttempts = ReconciliationAttempts()
        self.defaultReadMaxAge = defaultReadMaxAge
        self.coalesceReads = coalesceReads
        self.limits = limits
        self.requestLimiter = RequestLimiter(limits: limits)
        self.fanOutGate = FanOutGate(limit: limits.fanOutsInFlight)
        self.linking = linking
        self.sessions = sessions
        self.sessionKeys = SessionKeyRing(sessions.signingKeys)
        self.passwords = PasswordHasher(cost: sessions.passwordCost, limits: sessions.logins)
        self.logins = LoginGuard(limits: sessions.logins)
        self.hotReads = HotReads(store: store)
        self.streams = StreamHub(settings: streams, journal: store, logger: logger)
        self.alertSettings = alerts
        var alertDelivery = AlertDelivery(store: store, settings: alerts, logger: logger)
        alertDelivery.metrics = metrics
        self.alertDelivery = alertDelivery
    }

    /// Where the gateway's metrics go (the broker-call pipeline's factory): `/metrics` reads it.
    public var metricsFactory: any MetricsFactory { registry.pipeline.metrics }

    /// The longest `maxAgeMs` a read or a tenant may ask for.
    public static let maxReadAgeMs = Int(ReadCoalescer.maxAge.components.seconds) * 1000

    /// Which connections a read goes to.
    public struct Selection: Sendable {
        public var connectionId: String?
        public var broker: BrokerKind?
        public var accountId: String?
        /// How old an answer the read accepts (`maxAgeMs`); `nil` for the tenant's default. Reads of orders ignore it.
        public var maxAge: Duration?

        public init(
            connectionId: String? = nil,
            broker: BrokerKind? = nil,
            accountId: String? = nil,
            maxAge: Duration? = nil
        ) {
            self.connectionId = connectionId
            self.broker = broker
            self.accountId = accountId
            self.maxAge = maxAge
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
        _ selection: Selection,
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

    /// The user's connections, oldest first, from the cache while the store has not changed.
    func userConnections(_ owner: Owner) async throws -> [ConnectionDescriptor] {
        let store = self.store
        return try await hotReads.read(
            hotReads.connectionLists,
            HotReads.UserKey(tenantId: owner.tenant.id, userId: owner.userId)
        ) { try await store.connections(tenantId: owner.tenant.id, userId: owner.userId) } ?? []
    }

    /// Fans `read` out to the selected connections and reports each one.
    ///
    /// With a `sharing` key (the read's arguments), identical reads of one connection in flight at once share one
    /// broker call, and an answer as recent as the read's `maxAge` (else the tenant's, else the gateway's default) is
    /// reused. Without one (orders, which are never served stale), every read asks the broker.
    ///
    /// Each connection's part may make `limits.callsPerConnection` broker calls, plus `extraCalls` for a read whose
    /// legitimate cost grows with a bound the API already sets (a page of orders a broker reads one by one).
    public func fanOut<Item: Sendable>(
        owner: Owner,
        _ selection: Selection,
        operation: BrokerOperation,
        sharing key: String? = nil,
        extraCalls: Int = 0,
        _ read: @escaping @Sendable (any BrokerAdapter, ConnectionDescriptor) async throws -> [Item]
    ) async throws -> FanOut<Item> {
        let tenant = owner.tenant
        let connections = try await connections(owner: owner, selection, supporting: operation)
        let gateway = self
        let maxAge = selection.maxAge ?? tenant.readMaxAgeMs.map { .milliseconds($0) } ?? defaultReadMaxAge
        let callsPerConnection = limits.callsPerConnection + max(0, extraCalls)
        // One of the tenant's fan-out slots, waited for no longer than the read itself may take.
        return try await fanOutGate.run(tenantId: tenant.id, wait: router.overallTimeout) {
            await metrics.fanOut(operation: operation) {
                await router.fanOutAnswers(connections, describe: { ($0.id, $0.broker) }) { connection in
                    if connection.status != .active {
                        throw Self.statusError(connection)
                    }
                    // The answer and what it lacks travel together, so a shared or cached answer keeps its gaps.
                    let call: @Sendable () async throws -> [GappedRead<Item>] = {
                        let adapter = try await gateway.adapter(for: connection)
                        do {
                            let (items, gaps) = try await ReadGaps.collecting {
                                try await BrokerOperationScope.$current.withValue(operation.rawValue) {
                                    try await CallBudget.with(limit: callsPerConnection) { try await read(adapter, connection) }
                                }
                            }
                            return [GappedRead(items: items, gaps: gaps)]
                        } catch let error as GatewayError where Self.refusesCredentials(error, of: connection) {
                            // The broker refused the link's credentials on a read: the connection says so from now on.
                            await gateway.markRelinkRequired(connection, error, counted: true)
                            throw error
                        }
                    }
                    guard let key, gateway.coalesceReads else {
                        let read = try await call().first
                        return SourceAnswer(items: read?.items ?? [], asOf: Date(), served: .fresh, gaps: read?.gaps ?? [])
                    }
                    let answer = try await gateway.reads.read(
                        ReadCoalescer.Key(connection: connection.id, read: "\(operation.rawValue)|\(key)"),
                        maxAge: maxAge,
                        call
                    )
                    return SourceAnswer(
                        items: answer.items.first?.items ?? [],
                        asOf: answer.asOf,
                        served: answer.served,
                        gaps: answer.items.first?.gaps ?? []
                    )
                }
            }
        }
    }

    /// Admits one API request of a tenant (and of the key it came with) under their rate limits, or fails with 429
    /// `rate_limited` and the seconds until the next request would be admitted.
    public func admitRequest(tenant: Tenant, keyId: String?) throws {
        guard let wait = requestLimiter.admit(tenantId: tenant.id, keyId: keyId) else { return }
        throw GatewayError(
            .rateLimited,
            "too many requests for this tenant or API key; slow down and retry after the time given",
            retryable: true,
            retryAfter: max(wait, 0.001)
        )
    }

    /// After anything that changes state at the broker: no read of this connection is answered from before it.
    func invalidateReads(connection: String) {
        reads.invalidate(connection: connection)
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

    // MARK: Orders

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

}

/// One connection's answer to a read with what it lacks, as the read coalescer keeps it.
struct GappedRead<Item: Sendable>: Sendable {
    var items: [Item]
    var gaps: [SourceReport.Failure]
}
