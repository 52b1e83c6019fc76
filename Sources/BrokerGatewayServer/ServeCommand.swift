import ArgumentParser
import Configuration
import Foundation
import GatewayAPI
public import GatewayApp
import GatewayCore
import GatewayModel
import GatewayPostgresStore
import GatewaySQLiteStore
public import GatewayStore
import Hummingbird
public import Logging
import Prometheus
import SandboxKit
public import ServiceLifecycle
import UnixSignals

#if OTLP
import OTel
#endif

/// `gateway serve`: the unified API on the embedded default (SQLite in a data folder, the sandbox brokers
/// in-process, a demo tenant on first run). Settings come as flags, environment variables or a config file
/// (`gateway settings` lists them).
struct ServeCommand: BrokersCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the unified API (the default command).",
        discussion: "Settings (flag, environment variable, config file key, default):\n\n" + GatewaySettings.markdownTable()
    )

    @Argument(parsing: .allUnrecognized, help: "Settings as flags, such as --port 9000 (see `gateway settings`).")
    var settings: [String] = []

    func run(brokers: [BrokerRegistration]) async throws {
        let environment = ProcessInfo.processInfo.environment
        let settings: GatewaySettings
        do {
            settings = try GatewaySettings(reader: try await GatewaySettings.reader(arguments: self.settings, environment: environment))
        } catch let error as SettingsError {
            throw ValidationError(error.description)
        }
        // Before any service starts, so that every task of the server runs where the setting says.
        let executorInstalled = settings.executor.install()
        let level = settings.logLevel
        LoggingSystem.bootstrap(
            { label, metadataProvider in
                var handler = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
                handler.logLevel = level
                return handler
            },
            metadataProvider: .requestScope
        )
        let logger = Logger(label: "BrokerGateway")
        if !executorInstalled {
            logger.warning("NIO could not become the global executor; tasks run on Swift's own pool")
        }
        guard let postgres = settings.postgres else {
            try await Self.serve(settings: settings, brokers: brokers, environment: environment, store: nil, logger: logger)
            return
        }
        // PostgreSQL: the store's pool runs for as long as the services do, and closes after them.
        let cipher = try openDataDirectory(settings: settings, environment: environment)
        logger.notice("using PostgreSQL", metadata: ["database": .string(postgres.redactedDescription)])
        try await PostgresStore.withStore(settings: postgres, cipher: cipher, logger: logger) { store in
            try await Self.serve(settings: settings, brokers: brokers, environment: environment, store: store, logger: logger)
        }
    }

    /// How long the services have to end once cancelled, after the shutdown grace, before the process ends itself.
    static let cancellationBound = Duration.seconds(10)

    static func serve(
        settings: GatewaySettings,
        brokers: [BrokerRegistration],
        environment: [String: String],
        store: (any GatewayStore & OrderJournalStore)?,
        logger: Logger
    ) async throws {
        var services = try await buildGateway(
            settings: settings,
            brokers: brokers,
            environment: environment,
            logger: logger,
            store: store
        ).services
        #if OTLP
        if let endpoint = settings.tracesEndpoint {
            // Process-global, so only here: tests build gateways without it, and spans are then no-ops.
            services.insert(try Self.bootstrapTracing(endpoint: endpoint, logger: logger), at: 0)
        }
        #endif
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        // A bounded stop, whatever is stuck: SIGTERM stops new requests and lets those in flight (a placement reaching
        // the journal) finish for `shutdownGrace`; then every service is cancelled, which ends a wait for a database
        // that has gone away (postgres-nio's pool would otherwise hold it for about a minute per attempt); a service
        // that ignored its cancellation for 10 s more ends the process (swift-service-lifecycle's backstop).
        configuration.maximumGracefulShutdownDuration = settings.shutdownGrace
        configuration.maximumCancellationDuration = Self.cancellationBound
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// Makes the data folder (the master key, the transfer key, the session keys and the demo key live there, readable
/// by this user only) and loads the master key from it or from the environment.
func openDataDirectory(settings: GatewaySettings, environment: [String: String]) throws -> CredentialCipher {
    try FileManager.default.createDirectory(
        at: settings.dataDirectory,
        withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700]
    )
    return try CredentialCipher.load(environment: environment, dataDirectory: settings.dataDirectory)
}

#if OTLP
extension ServeCommand {
    /// OpenTelemetry traces over OTLP/HTTP: the HTTP server's span per request and the pipeline's span per broker
    /// call. Metrics stay on `/metrics` and logs on standard error, so only traces are bootstrapped. Built only with
    /// the package's OTLP trait; without it, `GatewaySettings` refuses `otel.tracesEndpoint` before anything starts.
    static func bootstrapTracing(endpoint: String, logger: Logger) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "brokergateway"
        configuration.diagnosticLogger = .custom(logger)
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        configuration.traces.otlpExporter.endpoint = endpoint
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        return try OTel.bootstrap(configuration: configuration)
    }
}
#endif

/// `gateway settings`: every setting of `gateway serve`, as a Markdown table.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "List every setting of `gateway serve`: flag, environment variable, config file key, default."
    )

    func run() throws {
        print(GatewaySettings.markdownTable())
    }
}

/// What `gateway serve` runs: the in-process sandboxes, the HTTP server and the reconciler, wired from settings.
public struct GatewayProcess: Sendable {
    /// The services to run in one `ServiceGroup`, in order (a group stops them in reverse).
    public var services: [any Service]
    /// The application the services serve.
    public var gateway: Gateway
}

/// Builds everything `gateway serve` runs from its settings and brokers, without running it: for an operator who runs
/// the gateway in a `ServiceGroup` of their own (or a test). `onServerRunning` learns the bound port (settings may ask
/// for port 0). `store`: an open store (PostgreSQL, run by the caller); `nil` opens the SQLite file of the settings.
/// - Throws: ``SettingsError`` when `brokers` registers a kind twice or names one badly; the data folder's, the
///   store's or a sandbox's error when it cannot be opened.
public func buildGateway(
    settings: GatewaySettings,
    brokers: [BrokerRegistration],
    environment: [String: String],
    logger: Logger,
    store openStore: (any GatewayStore & OrderJournalStore)? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> GatewayProcess {
    let problems = BrokerRegistration.problems(in: brokers)
    guard problems.isEmpty else { throw SettingsError(problems.joined(separator: "; ")) }
    // The data folder holds the master key, the transfer key, the database and the demo key: readable by this user only.
    let cipher = try openDataDirectory(settings: settings, environment: environment)
    let store: any GatewayStore & OrderJournalStore
    if let openStore {
        store = openStore
    } else {
        store = try await SQLiteStore.opening(path: settings.databasePath, cipher: cipher, logger: logger)
    }
    // One registry per gateway: `/metrics` shows it, and nothing else writes to it (no global MetricsSystem).
    let metrics = PrometheusMetricsFactory(registry: PrometheusCollectorRegistry())
    // How many instances share each broker connection's rate limits: 1, unless the cluster's membership says more.
    let share = InstanceShare()
    // One policy for both: linking checks a connection's URLs by it, the transport every call's resolved address.
    let registry = AdapterRegistry(
        factories: brokers.map(\.adapter),
        transport: HTTPClientTransport(
            policy: settings.egress,
            responseBudget: ResponseBudget(limit: settings.responseBudgetBytes)
        ),
        logger: logger,
        pipeline: BrokerPipeline(metrics: metrics, settings: settings.pipeline, share: share),
        egress: settings.egress
    )
    // The in-process sandboxes keep their accounts, orders and logins beside the gateway's own store, so the two
    // agree after a restart (a sandbox starting empty would hand out order ids the journal already holds).
    let sandboxes =
        settings.sandboxesEnabled
        ? try ServedSandbox.all(brokers, options: settings.sandboxOptions, stateDirectory: sandboxStateDirectory(settings.dataDirectory))
        : []
    let linking = LinkSettings(
        stateLifetime: settings.linkStateLifetime,
        exportEnabled: settings.exportEnabled,
        transferKey: try TransferKey.load(environment: environment, dataDirectory: settings.dataDirectory),
        sandboxes: ServedSandbox.accounts(sandboxes)
    )
    let gateway = Gateway(
        store: store,
        registry: registry,
        router: BrokerRouter(perSourceTimeout: settings.sourceTimeout, overallTimeout: settings.requestTimeout),
        logger: logger,
        orderSettings: settings.orderSettings,
        defaultReadMaxAge: settings.readMaxAge,
        coalesceReads: settings.coalesceReads,
        limits: settings.limits,
        linking: linking,
        sessions: SessionSettings(
            signingKeys: try SessionKeyFiles.load(environment: environment, dataDirectory: settings.dataDirectory),
            accessTokenLifetime: settings.accessTokenLifetime,
            maxDevicesPerUser: settings.maxDevicesPerUser,
            logins: settings.logins,
            refreshGrace: settings.refreshGrace
        ),
        streams: settings.stream,
        alerts: settings.alerts
    )

    let ready = SandboxReadiness(expected: sandboxes.map(\.name))
    var services: [any Service] = sandboxes.map { sandbox in
        SandboxServer(sandbox.simulator, host: "127.0.0.1", port: 0) { url in
            // Connections say `sandbox://<name>`; the registry adds the adapter's base path and lets their calls, and
            // only theirs, reach this loopback origin.
            registry.registerSandbox(sandbox.name, broker: sandbox.broker, url: url.absoluteString, basePath: sandbox.basePath)
            // Where the in-process sandbox listens, for its `/_sandbox/` admin (fault injection, prices, clock) from
            // outside: loopback only, its demo logins are the public documented ones, and nothing secret is logged.
            logger.notice(
                "sandbox broker is serving",
                metadata: [
                    "broker": .string(sandbox.name), "url": .string(url.absoluteString),
                    "admin": .string(url.absoluteString + "/_sandbox/"),
                ]
            )
            await ready.arrived(sandbox.name)
        }
    }
    let host = settings.host
    var application = try GatewayServer.application(
        gateway: gateway,
        host: host,
        port: settings.port,
        bodies: HTTPBodies(maxBodyBytes: settings.maxBodyBytes),
        publicURL: settings.publicURL,
        limits: settings.server,
        logger: logger,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? settings.port
            logger.notice("BrokerGateway is serving", metadata: ["url": .string("http://\(host):\(port)")])
            await onServerRunning(port)
        }
    )
    let dataDirectory = settings.dataDirectory
    application.beforeServerStarts {
        await ready.wait()
        try await DemoBootstrap(gateway: gateway, dataDirectory: dataDirectory, logger: logger).runIfEmpty(sandboxes: sandboxes)
    }
    services.append(application)
    // On PostgreSQL, several instances share the journal: one of them, the lease holder, reconciles; and they share
    // each broker's rate limits, each pacing its calls within its part.
    let leases = settings.postgres == nil ? nil : store as? any LeaderLeaseStore
    let leadership = leases.map { leases in
        ReconcilerLeadership(leases: leases, ttl: max(settings.reconcileInterval * 5, .seconds(10)), logger: logger)
    }
    if let leases {
        services.append(ClusterMembership(leases: leases, share: share, logger: logger))
    }
    services.append(OrderReconciler(gateway: gateway, interval: settings.reconcileInterval, leadership: leadership))
    services.append(OrderWatcher(gateway: gateway, interval: settings.orderWatchInterval, leadership: leadership))
    // Breakers are per process: each instance probes its own once their cool-down ends.
    services.append(BreakerProber(gateway: gateway))
    // Alerts: the engine delivers webhooks and pushes (a Service); the monitor feeds it order updates, the quotes its
    // price alerts watch and the clock, on the lease holder only. Firings go on the user's streams of this instance.
    let alerts = AlertEngine(gateway: gateway) { tenantId, userId, notification in
        gateway.streams.publishAlert(notification, tenantId: tenantId, userId: userId)
    }
    services.append(alerts)
    services.append(AlertMonitor(gateway: gateway, engine: alerts, leadership: leadership))
    // After the server: a group stops its services in reverse order, so open streams end before the server drains.
    services.append(StreamShutdown(gateway: gateway))
    return GatewayProcess(services: services, gateway: gateway)
}

/// Where `gateway serve` keeps its in-process sandboxes' state: `<data>/sandboxes/`.
func sandboxStateDirectory(_ dataDirectory: URL) -> URL {
    dataDirectory.appendingPathComponent("sandboxes", isDirectory: true)
}

/// Lets the gateway wait until every in-process sandbox listens, without polling.
actor SandboxReadiness {
    var pending: Set<String>
    var waiters: [CheckedContinuation<Void, Never>] = []

    init(expected: [String]) { pending = Set(expected) }

    func arrived(_ name: String) {
        pending.remove(name)
        if pending.isEmpty {
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    func wait() async {
        if pending.isEmpty { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}
