import AlpacaAdapter
import ArgumentParser
import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import Hummingbird
import Logging
import Sandbox
import ServiceLifecycle
import UnixSignals

/// `gateway serve`: the unified API on the embedded default (SQLite in a data folder, the sandbox brokers
/// in-process, a demo tenant on first run).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the unified API (the default command).")

    @Option(help: "Address to bind. Env: BROKERGATEWAY_HOST. Default 127.0.0.1.")
    var host: String?

    @Option(help: "Port to bind (0 picks a free one). Env: BROKERGATEWAY_PORT. Default 8080.")
    var port: Int?

    @Option(name: .customLong("data-dir"), help: "Data folder (database, master key, demo key). Env: BROKERGATEWAY_DATA_DIR. Default ./data.")
    var dataDirectory: String?

    @Option(name: .customLong("database-url"), help: "Database: a SQLite file path or sqlite:///path. Env: BROKERGATEWAY_DATABASE_URL. Default <data-dir>/gateway.sqlite.")
    var databaseURL: String?

    @Option(name: .customLong("sandbox"), help: "Run the built-in sandbox brokers in-process: on or off. Env: BROKERGATEWAY_SANDBOX. Default on.")
    var sandbox: String?

    @Option(name: .customLong("source-timeout-ms"), help: "How long one broker may take in a fan-out read. Env: BROKERGATEWAY_SOURCE_TIMEOUT_MS. Default 5000.")
    var sourceTimeoutMs: Int?

    @Option(name: .customLong("request-timeout-ms"), help: "Overall deadline of a fan-out read. Env: BROKERGATEWAY_REQUEST_TIMEOUT_MS. Default 8000.")
    var requestTimeoutMs: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical. Env: BROKERGATEWAY_LOG_LEVEL. Default info.")
    var logLevel: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let settings = try ServeSettings(command: self, environment: environment)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        let logger = Logger(label: "BrokerGateway")
        try FileManager.default.createDirectory(at: settings.dataDirectory, withIntermediateDirectories: true)
        let cipher = try CredentialCipher.load(environment: environment, dataDirectory: settings.dataDirectory)
        let store = try SQLiteStore(path: settings.databasePath, cipher: cipher, logger: logger)
        let registry = AdapterRegistry(
            factories: BuiltInAdapters.factories,
            transport: HTTPClientTransport(client: HTTPClient.shared), logger: logger)
        let gateway = Gateway(
            store: store, registry: registry,
            router: BrokerRouter(perSourceTimeout: settings.sourceTimeout, overallTimeout: settings.requestTimeout),
            logger: logger)

        let sandboxes = settings.sandboxesEnabled ? BuiltInSandbox.all() : []
        let ready = SandboxReadiness(expected: sandboxes.map(\.name))
        var services: [any Service] = sandboxes.map { sandbox in
            SandboxServer(sandbox.simulator, host: "127.0.0.1", port: 0) { url in
                registry.setSandboxBaseURL(url.absoluteString, for: sandbox.name)
                await ready.arrived(sandbox.name)
            }
        }
        var application = try GatewayServer.application(
            gateway: gateway, host: settings.host, port: settings.port, logger: logger,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? settings.port
                logger.notice("BrokerGateway is serving", metadata: ["url": .string("http://\(settings.host):\(port)")])
            })
        application.beforeServerStarts {
            await ready.wait()
            try await DemoBootstrap(gateway: gateway, dataDirectory: settings.dataDirectory, logger: logger)
                .runIfEmpty(sandboxes: sandboxes)
        }
        services.append(application)
        services.append(OrderReconciler(gateway: gateway))
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

/// Settings of `gateway serve`, from flags first, then the environment, then defaults.
struct ServeSettings: Sendable {
    var host: String
    var port: Int
    var dataDirectory: URL
    var databasePath: String
    var sandboxesEnabled: Bool
    var sourceTimeout: Duration
    var requestTimeout: Duration
    var logLevel: Logger.Level

    init(command: ServeCommand, environment: [String: String]) throws {
        func value(_ flag: String?, _ key: String) -> String? {
            if let flag { return flag }
            if let env = environment[key], !env.isEmpty { return env }
            return nil
        }
        func integer(_ flag: Int?, _ key: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
            let number: Int
            if let flag {
                number = flag
            } else if let text = environment[key], !text.isEmpty {
                guard let parsed = Int(text) else { throw ValidationError("\(key) must be a whole number") }
                number = parsed
            } else {
                number = fallback
            }
            guard range.contains(number) else {
                throw ValidationError("\(key) must be from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        host = value(command.host, "BROKERGATEWAY_HOST") ?? "127.0.0.1"
        port = try integer(command.port, "BROKERGATEWAY_PORT", default: 8080, range: 0...65535)
        let directory = value(command.dataDirectory, "BROKERGATEWAY_DATA_DIR") ?? "data"
        dataDirectory = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        if let url = value(command.databaseURL, "BROKERGATEWAY_DATABASE_URL") {
            if url.hasPrefix("sqlite://") {
                databasePath = String(url.dropFirst("sqlite://".count))
            } else if url.contains("://") {
                throw ValidationError("BROKERGATEWAY_DATABASE_URL: only SQLite (a path or sqlite:///path) is supported by this build")
            } else {
                databasePath = url
            }
        } else {
            databasePath = dataDirectory.appendingPathComponent(SQLiteStore.databaseFileName).path
        }
        switch (value(command.sandbox, "BROKERGATEWAY_SANDBOX") ?? "on").lowercased() {
        case "on", "true", "1", "yes": sandboxesEnabled = true
        case "off", "false", "0", "no": sandboxesEnabled = false
        default: throw ValidationError("BROKERGATEWAY_SANDBOX must be on or off")
        }
        sourceTimeout = .milliseconds(try integer(command.sourceTimeoutMs, "BROKERGATEWAY_SOURCE_TIMEOUT_MS", default: 5000, range: 10...120_000))
        requestTimeout = .milliseconds(try integer(command.requestTimeoutMs, "BROKERGATEWAY_REQUEST_TIMEOUT_MS", default: 8000, range: 10...300_000))
        let level = value(command.logLevel, "BROKERGATEWAY_LOG_LEVEL") ?? "info"
        guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
            throw ValidationError("log level must be one of: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        logLevel = parsed
    }
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
