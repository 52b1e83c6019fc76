// swift-tools-version:6.2
// The benchmarks: a package of their own, so the gateway's `swift build` and `swift test` never compile them.
// Run from the repository's root, e.g. `swift run --package-path Benchmarks -c release RouterBenchmark` (README,
// "Benchmarks"). They use the gateway's libraries through the root package's products.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "BrokerGatewayBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that the products below resolve whatever the clone's folder is called.
        .package(name: "BrokerGateway", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // What every benchmark shares: its command line, /proc readings, the gateway binary beside it.
        .target(name: "BenchmarkSupport", swiftSettings: swiftSettings),
        // The fan-out: the real server and router over sources that each answer after a fixed latency.
        .executableTarget(
            name: "RouterBenchmark",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "GatewayModel", package: "BrokerGateway"),
                .product(name: "GatewayCore", package: "BrokerGateway"),
                .product(name: "GatewayStore", package: "BrokerGateway"),
                .product(name: "GatewaySQLiteStore", package: "BrokerGateway"),
                .product(name: "GatewayApp", package: "BrokerGateway"),
                .product(name: "GatewayAPI", package: "BrokerGateway"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // 200 clients against the real gateway binary and its rate-limited sandboxes; reads /metrics.
        .executableTarget(
            name: "LoadBenchmark",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The gateway against the floor (FloorServer) and the client-side aggregator a user would write instead (ccxt).
        .executableTarget(
            name: "ReadBenchmark",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "ChildProcess", package: "BrokerGateway"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            exclude: ["ccxt_reads.py"],
            swiftSettings: swiftSettings
        ),
        // The floor for ReadBenchmark: the same quote read on the same stack (Hummingbird, AsyncHTTPClient, Foundation
        // JSON), none of the gateway's modules.
        .executableTarget(
            name: "FloorServer",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // 10,000 positions of one account through /v1/positions, end to end over HTTP against the Alpaca sandbox.
        .executableTarget(
            name: "PositionsBenchmark",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "GatewayModel", package: "BrokerGateway"),
                .product(name: "GatewayCore", package: "BrokerGateway"),
                .product(name: "GatewayStore", package: "BrokerGateway"),
                .product(name: "GatewaySQLiteStore", package: "BrokerGateway"),
                .product(name: "GatewayApp", package: "BrokerGateway"),
                .product(name: "GatewayAPI", package: "BrokerGateway"),
                .product(name: "AlpacaAdapter", package: "BrokerGateway"),
                .product(name: "Sandbox", package: "BrokerGateway"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
