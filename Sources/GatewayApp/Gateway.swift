public import CoreMetrics
public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// The application, composed: one service per concern, each holding only the collaborators it uses, built here in
/// one place from today's settings. It knows nothing of HTTP; the server's handlers each take the one service they
/// serve. The store, the journal and the adapter registry reach the services through this composition and nowhere
/// else.
public struct Gateway: Sendable {
    public let connections: ConnectionService
    public let sandboxes: SandboxService
    public let reads: BrokerReadService
    public let watchlists: WatchlistService
    public let orders: OrderService
    public let tenancy: TenancyService
    public let sessions: SessionService
    public let alerts: AlertService
    public let portfolio: PortfolioService
    public let streams: StreamService
    public let transfer: TransferService
    public let status: StatusService
    let registry: AdapterRegistry

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
        self.registry = registry
        let metrics = ApplicationMetrics(factory: registry.pipeline.metrics)
        let hotReads = HotReads(store: store)
        let audit = AuditTrail(store: store)
        let directory = ConnectionDirectory(store: store, registry: registry, hotReads: hotReads, coalescer: ReadCoalescer(), logger: logger)
        let fanOut = ReadFanOut(
            directory: directory,
            router: router,
            coalescer: directory.coalescer,
            metrics: metrics,
            fanOutGate: FanOutGate(limit: limits.fanOutsInFlight),
            limits: limits,
            defaultReadMaxAge: defaultReadMaxAge,
            coalesceReads: coalesceReads
        )
        let reconcilerHeartbeat = Heartbeat()
        let reconciliationAttempts = ReconciliationAttempts()
        let journalQuarantine = JournalQuarantine()
        let hub = StreamHub(settings: streams, journal: store, logger: logger)
        self.sandboxes = SandboxService(store: store, registry: registry, logger: logger, linking: linking)
        self.connections = ConnectionService(
            store: store,
            registry: registry,
            router: router,
            logger: logger,
            linking: linking,
            directory: directory,
            audit: audit,
            sandboxes: self.sandboxes
        )
        self.reads = BrokerReadService(registry: registry, fanOut: fanOut)
        self.watchlists = WatchlistService(store: store, router: router, directory: directory, fanOut: fanOut)
        self.orders = OrderService(
            store: store,
            journal: store,
            router: router,
            logger: logger,
            orderSettings: orderSettings,
            inFlight: InFlightOrders(),
            previews: PreviewCache(),
            accountIds: AccountCache(),
            orderRecords: OrderRecordLocks(),
            metrics: metrics,
            reconcilerHeartbeat: reconcilerHeartbeat,
            reconciliationAttempts: reconciliationAttempts,
            journalQuarantine: journalQuarantine,
            directory: directory,
            fanOut: fanOut,
            streams: hub
        )
        self.tenancy = TenancyService(
            store: store,
            registry: registry,
            logger: logger,
            hotReads: hotReads,
            requestLimiter: RequestLimiter(limits: limits),
            audit: audit,
            directory: directory,
            sandboxes: self.sandboxes
        )
        self.sessions = SessionService(
            store: store,
            sessions: sessions,
            sessionKeys: SessionKeyRing(sessions.signingKeys),
            deviceSeen: DeviceSeenThrottle(),
            passwords: PasswordHasher(cost: sessions.passwordCost, limits: sessions.logins),
            logins: LoginGuard(limits: sessions.logins),
            hotReads: hotReads,
            audit: audit,
            tenancy: self.tenancy
        )
        var alertDelivery = AlertDelivery(store: store, settings: alerts, logger: logger)
        alertDelivery.metrics = metrics
        self.alerts = AlertService(
            store: store,
            logger: logger,
            metrics: metrics,
            audit: audit,
            alertSettings: alerts,
            alertDelivery: alertDelivery,
            alertStream: AlertStreamRelay()
        )
        self.portfolio = PortfolioService(store: store, reads: self.reads, fanOut: fanOut, directory: directory, audit: audit)
        self.streams = StreamService(
            store: store,
            journal: store,
            registry: registry,
            logger: logger,
            sessions: sessions,
            hotReads: hotReads,
            streams: hub,
            directory: directory,
            watchlists: self.watchlists,
            reads: self.reads,
            router: router
        )
        self.transfer = TransferService(store: store, linking: linking, connections: self.connections, audit: audit)
        self.status = StatusService(
            store: store,
            journal: store,
            registry: registry,
            router: router,
            logger: logger,
            orderSettings: orderSettings,
            reconcilerHeartbeat: reconcilerHeartbeat,
            reconciliationAttempts: reconciliationAttempts,
            journalQuarantine: journalQuarantine
        )
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
}
