import AsyncHTTPClient
import BuiltInBrokers
import Configuration
import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayPostgresStore
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import Logging
import NIOCore
import NIOHTTP1
import Sandbox
import ServiceLifecycle
import TestWorlds
import Testing

@testable import BrokerGatewayServer

@Suite("gateway serve: settings from flags, environment and file")
struct GatewaySettingsTests {
    func settings(_ arguments: [String] = [], environment: [String: String] = [:]) async throws -> GatewaySettings {
        try GatewaySettings(reader: try await GatewaySettings.reader(arguments: arguments, environment: environment))
    }

    @Test func defaults() async throws {
        let settings = try await settings()
        #expect(settings.host == "127.0.0.1")
        #expect(settings.port == 8080)
        #expect(settings.sandboxesEnabled)
        #expect(settings.sourceTimeout == .milliseconds(5000))
        #expect(settings.maxBodyBytes == 65536)
        #expect(settings.orderSettings.brokerTimeout == .seconds(10))
        #expect(settings.databasePath.hasSuffix("/data/gateway.sqlite"))
        #expect(settings.publicURL == nil)
        #expect(try await self.settings(["--public-url", "https://gw.example.com/"]).publicURL == "https://gw.example.com")
        #expect(settings.egress == EgressPolicy())
    }

    @Test func egressAllowTakesCIDRBlocksFromAFlagTheEnvironmentOrTheFile() async throws {
        let flag = try await settings(["--egress-allow", "127.0.0.0/8, ::1"])
        #expect(flag.egress.allowed.map(\.description) == ["127.0.0.0/8", "::1/128"])
        let separate = try await settings(["--egress-allow", "127.0.0.0/8", "--egress-allow", "::1"])
        #expect(separate.egress.allowed.map(\.description) == ["127.0.0.0/8", "::1/128"])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-egress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, json) in [#"{"egress": {"allow": "192.168.7.0/24,fd12::/64"}}"#, #"{"egress": {"allow": ["192.168.7.0/24", "fd12::/64"]}}"#]
            .enumerated()
        {
            let file = directory.appendingPathComponent("gateway-\(index).json")
            try Data(json.utf8).write(to: file)
            let fromFile = try await settings(["--config-file", file.path])
            #expect(fromFile.egress.allowed.map(\.description) == ["192.168.7.0/24", "fd12::/64"], "\(json)")
        }
        let environment = try await settings(environment: ["BROKERGATEWAY_EGRESS_ALLOW": "10.20.0.0/16"])
        #expect(environment.egress.allowed.map(\.description) == ["10.20.0.0/16"])
        let address = try #require(IPAddress("10.20.1.2"))
        #expect(environment.egress.refusal(for: address) == nil)
        #expect(try await settings().egress.refusal(for: address) == .private)
    }

    @Test func flagsBeatTheEnvironmentWhichBeatsTheFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("gateway.json")
        try Data(#"{"port": 7000, "host": "0.0.0.0", "logLevel": "debug", "orders": {"brokerTimeoutMs": 4000, "previewLifetimeSeconds": 60}}"#.utf8)
            .write(to: file)
        let settings = try await settings(
            ["--port", "9000", "--config-file", file.path],
            environment: ["BROKERGATEWAY_PORT": "8500", "BROKERGATEWAY_HOST": "10.0.0.1", "BROKERGATEWAY_ORDERS_BROKER_TIMEOUT_MS": "3000"]
        )
        #expect(settings.port == 9000)  // flag
        #expect(settings.host == "10.0.0.1")  // environment over file
        #expect(settings.orderSettings.brokerTimeout == .seconds(3))  // environment over file
        #expect(settings.logLevel == .debug)  // file
        #expect(settings.orderSettings.previewLifetime == 60)  // file, nested
        #expect(settings.sourceTimeout == .milliseconds(5000))  // default
    }

    @Test(
        arguments: [
            (["--port", "70000"], [:], "port"),
            (["--sandbox", "maybe"], [:], "sandbox"),
            ([], ["BROKERGATEWAY_SOURCE_TIMEOUT_MS": "soon"], "sourceTimeoutMs"),
            ([], ["BROKERGATEWAY_LOG_LEVEL": "loud"], "logLevel"),
            (["--prot", "80"], [:], "--prot"),
            ([], ["BROKERGATEWAY_DATABASE_URL": "postgres://db"], "databaseUrl"),
            ([], ["BROKERGATEWAY_CONFIG_FILE": "/nonexistent/gateway.json"], "configFile"),
            (["--public-url", "javascript:alert(1)"], [:], "publicUrl"),
            (["--egress-allow", "10.0.0.1/8"], [:], "egress.allow"),
            ([], ["BROKERGATEWAY_EGRESS_ALLOW": "localhost"], "egress.allow"),
        ] as [([String], [String: String], String)]
    )
    func badValuesAreErrorsNamingTheSetting(_ arguments: [String], _ environment: [String: String], _ name: String) async throws {
        do {
            _ = try await settings(arguments, environment: environment)
            Issue.record("accepted \(arguments) \(environment)")
        } catch let error as SettingsError {
            #expect(error.description.contains(name), "\(error.description)")
        }
    }

    @Test func aPostgresURLSelectsPostgresWithThePoolSetting() async throws {
        let settings = try await settings(
            ["--database-url", "postgres://gw%40ops:p%40ss%3Aword@db.internal:6543/brokergateway?sslmode=require&connect_timeout=3&schema=gw1"],
            environment: ["BROKERGATEWAY_DATABASE_POOL_MAX": "7"]
        )
        let postgres = try #require(settings.postgres)
        #expect(postgres.host == "db.internal" && postgres.port == 6543 && postgres.database == "brokergateway")
        #expect(postgres.username == "gw@ops" && postgres.password == "p@ss:word")
        #expect(postgres.tls == .require && postgres.connectTimeout == .seconds(3) && postgres.schema == "gw1")
        #expect(postgres.maximumConnections == 7)
        #expect(postgres.redactedDescription == "postgres://gw@ops@db.internal:6543/brokergateway (schema gw1)")
        #expect(!postgres.redactedDescription.contains("word"))
        // SQLite stays the default.
        #expect(try await self.settings().postgres == nil)
    }

    @Test(arguments: [
        "postgres://user:hunter2secret@db.internal:5432/",
        "postgres://:hunter2secret@db.internal/brokergateway",
        "postgres://user:hunter2secret@db.internal/brokergateway?sslmode=maybe",
        "postgres://user:hunter2secret@db.internal/brokergateway?password=x",
        "postgres://user:hunter2secret@db.internal/brokergateway?schema=drop%20table",
        "mysql://user:hunter2secret@db.internal/brokergateway",
    ])
    func aBadDatabaseURLIsRefusedWithoutItsPassword(url: String) async throws {
        do {
            _ = try await settings(["--database-url", url])
            Issue.record("accepted a bad database URL")
        } catch let error as SettingsError {
            #expect(error.description.contains("databaseUrl"), "\(error.description)")
            #expect(!error.description.contains("hunter2secret"), "\(error.description)")
        }
    }

    /// The trace exporter is compiled in only with the package's OTLP trait (the test target is built with the same
    /// traits as the binary): the default build refuses the setting, saying how to get it, rather than ignoring it.
    @Test func aTracesEndpointNeedsTheOTLPTrait() async throws {
        let arguments = ["--otel-traces-endpoint", "http://127.0.0.1:4318/v1/traces"]
        #if OTLP
        #expect(try await settings(arguments).tracesEndpoint == "http://127.0.0.1:4318/v1/traces")
        #else
        do {
            _ = try await settings(arguments)
            Issue.record("a build without the OTLP trait accepted --otel-traces-endpoint")
        } catch let error as SettingsError {
            #expect(error.description.contains("otel.tracesEndpoint"), "\(error.description)")
            #expect(error.description.contains("--traits OTLP"), "\(error.description)")
        }
        #endif
        // A bad URL is refused whatever the build.
        await #expect(throws: SettingsError.self) { try await self.settings(["--otel-traces-endpoint", "ftp://collector/v1/traces"]) }
    }

    @Test func namesDeriveFromTheKeys() throws {
        let timeout = try #require(GatewaySettings.keys.first { $0.key == ["orders", "brokerTimeoutMs"] })
        #expect(timeout.flag == "--orders-broker-timeout-ms")
        #expect(timeout.environmentVariable == "BROKERGATEWAY_ORDERS_BROKER_TIMEOUT_MS")
        let dataDir = try #require(GatewaySettings.keys.first { $0.key == ["dataDir"] })
        #expect(dataDir.flag == "--data-dir")
        #expect(dataDir.environmentVariable == "BROKERGATEWAY_DATA_DIR")
    }

    @Test func theReadmeShowsTheTableTheCommandPrints() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains(GatewaySettings.markdownTable()), "README.md must show `gateway settings`'s table as it prints it")
    }
}

@Suite("gateway serve: buildGateway runs for real", .heavyWorld)
struct BuildGatewayTests {
    @Test func theDemoKeyIsNeverWrittenThroughALink() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let elsewhere = directory.appendingPathComponent("elsewhere.txt")
        try Data("untouched".utf8).write(to: elsewhere)
        let link = directory.appendingPathComponent("demo-api-key")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: elsewhere)
        let bootstrap = DemoBootstrap(
            gateway: try await makeGateway(directory),
            dataDirectory: directory,
            logger: Logger(label: "link-test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        #expect(throws: (any Error).self) { try bootstrap.writePrivately("secret\n", to: link) }
        #expect(try String(contentsOf: elsewhere, encoding: .utf8) == "untouched")
    }

    func makeGateway(_ directory: URL) async throws -> Gateway {
        let logger = Logger(label: "link-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let store = try await SQLiteStore.opening(path: directory.appendingPathComponent("gateway.sqlite").path, cipher: .random(), logger: logger)
        let registry = AdapterRegistry(factories: [], transport: HTTPClientTransport.loopbackForTests, logger: logger)
        return Gateway(store: store, registry: registry, router: BrokerRouter(), logger: logger)
    }

    /// Before: a first start on a busy machine whose demo link was not answered in time left the demo user without
    /// that connection for good (restarts renew the connections there are, they make none).
    @Test func aDemoLinkTheSandboxDidNotAnswerIsTriedAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sandboxes = try ServedSandbox.all([.alpaca])
        let alpaca = try #require(sandboxes.first?.simulator as? AlpacaSandbox)
        // The first link's account read fails on every attempt the pipeline makes (the first try and its two
        // retries), as a broker too busy to answer would: the link fails `upstream_unavailable`.
        alpaca.faults.add(FaultRule(.error(status: 503), method: "GET", pathPrefix: "/v2/account", count: 3))
        let logger = Logger(label: "demo-test", factory: { _ in SwiftLogNoOpLogHandler() })
        try await withSandbox(alpaca) { url in
            let store = try await SQLiteStore.opening(
                path: directory.appendingPathComponent("gateway.sqlite").path,
                cipher: .random(),
                logger: logger
            )
            let registry = AdapterRegistry(
                factories: [BrokerRegistration].builtIn.map(\.adapter),
                transport: HTTPClientTransport(),
                logger: logger
            )
            registry.registerSandbox("alpaca", broker: .alpaca, url: url.absoluteString)
            let gateway = Gateway(store: store, registry: registry, router: .unhurried, logger: logger)
            try await DemoBootstrap(gateway: gateway, dataDirectory: directory, logger: logger).runIfEmpty(sandboxes: sandboxes)
            #expect(alpaca.faults.rules.isEmpty, "the failing answers were not all used")
            let tenant = try #require(try await gateway.sandboxes.demoTenant())
            let connections = try await store.connections(tenantId: tenant.id)
            #expect(connections.map(\.broker) == [.alpaca])
            #expect(connections.first?.status == .active)
        }
    }

    @Test func servesTheDemoTenantOnAFreePortAndShutsDown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = try GatewaySettings(
            reader: try await GatewaySettings.reader(
                arguments: ["--port", "0", "--data-dir", directory.path],
                environment: [:]
            )
        )
        let logger = Logger(label: "serve-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let process = try await buildGateway(settings: settings, brokers: .builtIn, environment: [:], logger: logger) { port in
            continuation.yield(port)
        }
        let group = ServiceGroup(configuration: .init(services: process.services.map { .init(service: $0) }, logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let key = try String(contentsOf: directory.appendingPathComponent("demo-api-key"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/positions")
            request.headers.add(name: "Authorization", value: "Bearer \(key)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            #expect(response.status.code == 200)
            let body = try await response.body.collect(upTo: 1 << 20)
            let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
            let sources = json?["sources"] as? [[String: Any]] ?? []
            let brokers = Set(sources.compactMap { $0["broker"] as? String })
            #expect(brokers == ["alpaca", "saxo", "tradeit", "tradeogre"])
            // Under the default egress policy (loopback refused), the demo connections reach their in-process
            // sandboxes through sandbox://<name>, each given its base path by the registry.
            #expect(sources.allSatisfy { $0["status"] as? String == "ok" }, "\(sources)")
            var connectionsRequest = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/connections")
            connectionsRequest.headers.add(name: "Authorization", value: "Bearer \(key)")
            let connections = try await HTTPClient.shared.execute(connectionsRequest, timeout: .seconds(30))
            let listed =
                try JSONSerialization.jsonObject(
                    with: Data(try await connections.body.collect(upTo: 1 << 20).readableBytesView)
                ) as? [String: Any]
            let baseURLs = Set((listed?["data"] as? [[String: Any]] ?? []).compactMap { $0["baseURL"] as? String })
            #expect(baseURLs == ["sandbox://alpaca", "sandbox://saxo", "sandbox://tradeit", "sandbox://tradeogre"])
            // The data folder and the key in it are this user's alone.
            let folder = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
            #expect(folder == 0o700)
            let keyFile = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("demo-api-key").path)
            #expect(keyFile[.posixPermissions] as? Int == 0o600)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
