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
    /// Linking, relinking and unlinking connections, and their credentials.
    public let connections: ConnectionService
    /// The built-in sandboxes' simulated accounts, one per sandbox connection.
    public let sandboxes: SandboxService
    /// The fan-out reads: accounts, balances, positions, quotes, candles, order books, instruments.
    public let reads: BrokerReadService
    /// Watchlists, the gateway's own and the brokers'.
    public let watchlists: WatchlistService
    /// Placing, changing and cancelling orders through the journal, and reconciling the unknown ones.
    public let orders: OrderService
    /// Order lists, lookups by broker order id and journal event histories (reads only).
    public let orderHistory: OrderHistoryService
    /// Tenants, users, API keys and the audit log.
    public let tenancy: TenancyService
    /// End users' logins, sessions and devices.
    public let sessions: SessionService
    /// Alerts, their delivery and its log.
    public let alerts: AlertService
    /// Portfolio valuation and goals.
    public let portfolio: PortfolioService
    /// The live stream: quotes, order updates, holdings changes and alert firings.
    public let streams: StreamService
    /// Sealed export and import of a tenant's connections between gateways.
    public let transfer: TransferService
    /// Health, readiness and what awaits reconciliation.
    public let status: StatusService
    let registry: AdapterRegistry

    /// Composes every service over one store (which is also the order journal) and one broker pipeline (`router`),
    /// with today's settings; each setting's default is the gateway's own.
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
            streams: hub
        )
        self.orderHistory = OrderHistoryService(journal: store, fanOut: fanOut)
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
        /// Only this connection; every connection of the owner when `nil`.
        public var connectionId: String?
        /// Only connections to this broker kind.
        public var broker: BrokerKind?
        /// Only this account; connections holding no such account answer with nothing.
        public var accountId: String?
        /// How old an answer the read accepts (`maxAgeMs`); `nil` for the tenant's default. Reads of orders ignore it.
        public var maxAge: Duration?

        /// A selection; the default selects every connection of the owner.
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
