// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "BrokerGateway",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gateway", targets: ["gateway"]),
        // The server as a library: settings, `buildGateway`, every command, over the brokers an executable registers
        // (`GatewayCLI(brokers: .builtIn + [.myBroker]).run()`); and the four built-in brokers' registrations.
        .library(name: "BrokerGatewayServer", targets: ["BrokerGatewayServer"]),
        .library(name: "BuiltInBrokers", targets: ["BuiltInBrokers"]),
        .library(name: "GatewayModel", targets: ["GatewayModel"]),
        .library(name: "GatewayCore", targets: ["GatewayCore"]),
        .library(name: "GatewayApp", targets: ["GatewayApp"]),
        .library(name: "GatewayAPI", targets: ["GatewayAPI"]),
        // The Swift client of the unified API, generated from the same OpenAPI document as the server.
        .library(name: "BrokerGatewayClient", targets: ["BrokerGatewayClient"]),
        // What the benchmarks package (Benchmarks/) uses besides the above: the stores, an adapter, the sandboxes,
        // and the process spawner the tests use (posix_spawn, every inherited descriptor closed: Foundation's
        // `Process` crashes a process holding ReadBenchmark's thousand client sockets; see Tests/ChildProcess).
        .library(name: "GatewayStore", targets: ["GatewayStore"]),
        .library(name: "GatewaySQLiteStore", targets: ["GatewaySQLiteStore"]),
        .library(name: "AlpacaAdapter", targets: ["AlpacaAdapter"]),
        .library(name: "Sandbox", targets: ["Sandbox", "SandboxKit", "AlpacaSandbox", "SaxoSandbox", "TradeItSandbox", "TradeOgreSandbox"]),
        .library(name: "ChildProcess", targets: ["ChildProcess"]),
        // The kits for a broker added from another package (see Examples/ and README "Adding a broker"):
        // SandboxKit, what a simulator of the broker's wire API is built from (server, router, faults, market engine,
        // accounts' persistence); GatewayTesting, the conformance kit (contract cases, the replay transport, the
        // contract runner). The adapter kit is GatewayModel + GatewayCore above.
        .library(name: "SandboxKit", targets: ["SandboxKit"]),
        .library(name: "GatewayTesting", targets: ["GatewayTesting"]),
    ],
    traits: [
        // Off by default: swift-otel's OTLP exporter brings swift-protobuf (about 150 CPU-seconds, a twelfth of a
        // fresh clone's build, measured 2026-11-28) for a setting only deployments that run a collector use.
        // `swift build --traits OTLP` (or `swift run --traits OTLP gateway`) builds a gateway that honours
        // `--otel-traces-endpoint`; the default build refuses that setting with a message that says so. `.ci/run`
        // builds and tests both.
        .trait(name: "OTLP", description: "OpenTelemetry trace export over OTLP/HTTP (swift-otel)")
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Already built for postgres-nio; named for the PostgreSQL store's TLS settings.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: ["JSON", "CommandLineArguments"]),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.3.0"),
        // OpenTelemetry traces over OTLP/HTTP only (the gRPC exporter's dependencies are not built), and only in builds
        // with the OTLP trait.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // Already built for Hummingbird; named for the HTTP/1 ↔ swift-http-types codec the server's own channel uses.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // The Alpaca sandbox's WebSocket streams (trading and market data); its client in the sandbox tests.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
    ],
    targets: [
        // Canonical types only: no I/O, no dependencies.
        .target(name: "GatewayModel", swiftSettings: swiftSettings),
        // Adapter protocol, errors, transport, router.
        .target(
            name: "GatewayCore",
            dependencies: [
                "GatewayModel",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // Persistence behind small protocols, one per concern, and the rules every backend shares (validation, paging,
        // row decoding, JSON columns, the credential cipher): no database driver.
        .target(
            name: "GatewayStore",
            dependencies: [
                "GatewayModel",
                "GatewayCore",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The store protocols on SQLite (GRDB), the default: its SQL, bindings and transactions only.
        .target(
            name: "GatewaySQLiteStore",
            dependencies: [
                "GatewayModel",
                "GatewayCore",
                "GatewayStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The same store protocols on PostgreSQL (postgres-nio, its built-in pool), for many instances on one
        // database. Its own target so that SQLite-only users of the libraries do not build it.
        .target(
            name: "GatewayPostgresStore",
            dependencies: [
                "GatewayModel",
                "GatewayCore",
                "GatewayStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The application: linking, fan-out reads, the order pipeline, watchlists. No HTTP server in here.
        .target(
            name: "GatewayApp",
            dependencies: [
                "GatewayModel",
                "GatewayCore",
                "GatewayStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The unified HTTP API: the server swift-openapi-generator made from openapi.json (Generated/), over Hummingbird.
        .target(
            name: "GatewayAPI",
            dependencies: [
                "GatewayModel",
                "GatewayCore",
                "GatewayStore",
                "GatewayApp",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // Generated/ is swift-openapi-generator's output, committed (scripts/generate-openapi.sh): no build plugin,
            // so a build does not compile the generator.
            exclude: ["openapi-generator-config.yaml", "Generated/openapi.sha256"],
            resources: [.copy("openapi.json"), .copy("Dashboard"), .copy("Docs")],
            swiftSettings: swiftSettings
        ),
        // The client library, generated from the same document; canonical model types where the document names them.
        .target(
            name: "BrokerGatewayClient",
            dependencies: [
                "GatewayModel",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(
                    name: "OpenAPIURLSession",
                    package: "swift-openapi-urlsession",
                    condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])
                ),
            ],
            exclude: ["openapi.json", "openapi-generator-config.yaml", "Generated/openapi.sha256"],
            swiftSettings: swiftSettings
        ),
        // The sandbox: faithful simulators of each broker's wire API. Never imports a gateway module or an adapter:
        // simulators and adapters meet only in Contracts/.
        // SandboxKit: what every simulator shares (server, router setup, faults, market engine, JSON, admin API).
        .target(
            name: "SandboxKit",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // One target per simulated broker: its routes, its state; everything else comes from the kit.
        .target(
            name: "AlpacaSandbox",
            dependencies: [
                "SandboxKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Sandboxes/Alpaca",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SaxoSandbox",
            dependencies: [
                "SandboxKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Sandboxes/Saxo",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TradeItSandbox",
            dependencies: [
                "SandboxKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Sandboxes/TradeIt",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TradeOgreSandbox",
            dependencies: ["SandboxKit", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Sources/Sandboxes/TradeOgre",
            swiftSettings: swiftSettings
        ),
        // The umbrella: `import Sandbox` gives the kit and all four simulators.
        .target(
            name: "Sandbox",
            dependencies: ["SandboxKit", "AlpacaSandbox", "SaxoSandbox", "TradeItSandbox", "TradeOgreSandbox"],
            swiftSettings: swiftSettings
        ),
        // Test doubles that tests and `gateway contracts verify` share: replay transport, contract runner.
        .target(
            name: "GatewayTesting",
            dependencies: [
                "GatewayModel", "GatewayCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // One target per broker dialect: wire DTOs stay internal, mapping functions are pure.
        .target(
            name: "AlpacaAdapter",
            dependencies: [
                "GatewayModel",
                "GatewayCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Adapters/Alpaca",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SaxoAdapter",
            dependencies: [
                "GatewayModel",
                "GatewayCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Adapters/Saxo",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TradeOgreAdapter",
            dependencies: [
                "GatewayModel",
                "GatewayCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Adapters/TradeOgre",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TradeItAdapter",
            dependencies: [
                "GatewayModel",
                "GatewayCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Adapters/TradeIt",
            swiftSettings: swiftSettings
        ),
        // The server as a library: the settings, `buildGateway`, the commands and the demo bootstrap, over whatever
        // brokers it is given (`BrokerRegistration`); it names none of them.
        .target(
            name: "BrokerGatewayServer",
            dependencies: [
                "SandboxKit",
                "GatewayTesting",
                "GatewayModel",
                "GatewayCore",
                "GatewayStore",
                "GatewaySQLiteStore",
                "GatewayPostgresStore",
                "GatewayApp",
                "GatewayAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLP"])),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The four brokers of this repository, registered through the same public API as anyone's: `.alpaca`, `.saxo`,
        // `.tradeit`, `.tradeogre`, and `.builtIn` for all four.
        .target(
            name: "BuiltInBrokers",
            dependencies: [
                "BrokerGatewayServer",
                "GatewayCore",
                "AlpacaAdapter",
                "SaxoAdapter",
                "TradeItAdapter",
                "TradeOgreAdapter",
                "AlpacaSandbox",
                "SaxoSandbox",
                "TradeItSandbox",
                "TradeOgreSandbox",
            ],
            swiftSettings: swiftSettings
        ),
        // This repository's `gateway`: the server library's command line over the built-in brokers, a few lines.
        .executableTarget(
            name: "gateway",
            dependencies: ["BrokerGatewayServer", "BuiltInBrokers"],
            swiftSettings: swiftSettings
        ),
        // A broker that attacks: an HTTP server on loopback whose every byte a test scripts (hostile headers and
        // bodies, redirects, slow and half-sent answers). Test support only.
        .target(
            name: "HostileBroker",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/HostileBroker",
            swiftSettings: swiftSettings
        ),
        // Child processes for tests (the gateway binary, real Python clients) without Foundation's `Process`.
        .target(name: "CChildProcess", path: "Tests/CChildProcess"),
        .target(name: "ChildProcess", dependencies: ["CChildProcess"], path: "Tests/ChildProcess", swiftSettings: swiftSettings),
        // Admission for tests that start worlds of servers or child processes (`.heavyWorld`), and the unhurried
        // deadlines of worlds whose subject is not a deadline. Test support only.
        .target(
            name: "TestWorlds",
            dependencies: ["GatewayCore"],
            path: "Tests/TestWorlds",
            swiftSettings: swiftSettings
        ),
        // A logger whose lines a test reads back (swift-log's InMemoryLogHandler, with the queries the tests share).
        // Test support only.
        .target(
            name: "LogCapture",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Tests/LogCapture",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayAppTests",
            dependencies: [
                "GatewayApp", "GatewayModel", "GatewayCore", "GatewayStore", "GatewaySQLiteStore", "GatewayTesting", "LogCapture",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ClientTests",
            dependencies: [
                "TestWorlds",
                "BrokerGatewayClient", "GatewayModel", "GatewayCore", "GatewayStore", "GatewaySQLiteStore", "GatewayApp", "GatewayAPI",
                "GatewayTesting", "TradeOgreAdapter", "Sandbox",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The executable's wiring: settings from flags, environment and file, and `buildGateway` run for real.
        .testTarget(
            name: "GatewayExecutableTests",
            dependencies: [
                "TestWorlds",
                "gateway", "BrokerGatewayServer", "BuiltInBrokers",
                "GatewayApp", "GatewayStore", "GatewaySQLiteStore", "GatewayPostgresStore", "GatewayCore", "GatewayTesting",
                "ChildProcess", "Sandbox", "SandboxKit", "GatewayModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "GatewayModelTests", dependencies: ["GatewayModel"], swiftSettings: swiftSettings),
        .testTarget(
            name: "GatewayCoreTests",
            dependencies: [
                "GatewayModel", "GatewayCore", "GatewayTesting", "HostileBroker",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayStoreTests",
            dependencies: [
                "GatewayModel", "GatewayCore", "GatewayStore", "GatewaySQLiteStore", "GatewayPostgresStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxTests",
            dependencies: [
                "TestWorlds",
                "Sandbox", "SandboxKit", "AlpacaSandbox", "SaxoSandbox", "TradeItSandbox", "TradeOgreSandbox", "ChildProcess",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AlpacaAdapterTests",
            dependencies: [
                "AlpacaAdapter", "GatewayModel", "GatewayCore", "GatewayTesting", "Sandbox", "LogCapture",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SaxoAdapterTests",
            dependencies: [
                "TestWorlds",
                "SaxoAdapter", "GatewayModel", "GatewayCore", "GatewayTesting", "Sandbox", "LogCapture",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        // The whole path over loopback: unified API → router → real adapters → sandbox brokers.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "TestWorlds",
                "GatewayModel", "GatewayCore", "GatewayStore", "GatewaySQLiteStore", "GatewayPostgresStore", "GatewayApp", "GatewayAPI",
                "AlpacaAdapter", "SaxoAdapter",
                "TradeItAdapter", "TradeOgreAdapter", "Sandbox", "GatewayTesting", "HostileBroker",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TradeOgreAdapterTests",
            dependencies: [
                "TradeOgreAdapter", "GatewayModel", "GatewayCore", "GatewayTesting", "Sandbox", "LogCapture",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TradeItAdapterTests",
            dependencies: [
                "TestWorlds",
                "TradeItAdapter", "GatewayModel", "GatewayCore", "GatewayTesting", "Sandbox",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayAPITests",
            dependencies: [
                "GatewayModel", "GatewayCore", "GatewayStore", "GatewaySQLiteStore", "GatewayApp", "GatewayAPI", "GatewayTesting",
                "TestWorlds", "LogCapture",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
