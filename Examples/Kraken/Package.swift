// swift-tools-version:6.2
// A fifth broker from outside: Kraken's Spot REST API as an adapter, a sandbox that ccxt's real `kraken` class
// accepts, its contract cases, and a gateway executable serving it beside the built-in four. A package of its own
// that depends on BrokerGateway by path and uses only its public kits (GatewayModel + GatewayCore, SandboxKit,
// GatewayTesting, BrokerGatewayServer); nothing in BrokerGateway's own targets names Kraken.
// From the repository's root: `swift build --package-path Examples/Kraken`, `swift test --package-path Examples/Kraken`,
// `swift run --package-path Examples/Kraken kraken-gateway serve`.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Kraken",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "kraken-gateway", targets: ["kraken-gateway"]),
        .library(name: "KrakenAdapter", targets: ["KrakenAdapter"]),
        .library(name: "KrakenSandbox", targets: ["KrakenSandbox"]),
        .library(name: "KrakenBroker", targets: ["KrakenBroker"]),
    ],
    dependencies: [
        // Named, so that the products below resolve whatever the clone's folder is called.
        .package(name: "BrokerGateway", path: "../.."),
        // Already built for BrokerGateway: HMAC-SHA512 and SHA-256 for API-Sign, the sandbox's router, the tests' client.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // The adapter: Kraken Spot REST (public market data, private account and trading calls signed with API-Sign).
        .target(
            name: "KrakenAdapter",
            dependencies: [
                .product(name: "GatewayModel", package: "BrokerGateway"),
                .product(name: "GatewayCore", package: "BrokerGateway"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The sandbox: a stateful simulator of the same wire API on SandboxKit.
        .target(
            name: "KrakenSandbox",
            dependencies: [
                .product(name: "SandboxKit", package: "BrokerGateway"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        // `BrokerRegistration.kraken`: the adapter with its sandbox, for `GatewayCLI(brokers: .builtIn + [.kraken])`.
        .target(
            name: "KrakenBroker",
            dependencies: [
                "KrakenAdapter",
                "KrakenSandbox",
                .product(name: "BrokerGatewayServer", package: "BrokerGateway"),
                .product(name: "GatewayCore", package: "BrokerGateway"),
                .product(name: "SandboxKit", package: "BrokerGateway"),
            ],
            swiftSettings: swiftSettings
        ),
        // The gateway serving the built-in four and Kraken.
        .executableTarget(
            name: "kraken-gateway",
            dependencies: [
                "KrakenBroker",
                .product(name: "BrokerGatewayServer", package: "BrokerGateway"),
                .product(name: "BuiltInBrokers", package: "BrokerGateway"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "KrakenTests",
            dependencies: [
                "KrakenAdapter",
                "KrakenSandbox",
                "KrakenBroker",
                .product(name: "BrokerGatewayServer", package: "BrokerGateway"),
                .product(name: "BuiltInBrokers", package: "BrokerGateway"),
                .product(name: "GatewayModel", package: "BrokerGateway"),
                .product(name: "GatewayCore", package: "BrokerGateway"),
                .product(name: "GatewayTesting", package: "BrokerGateway"),
                .product(name: "SandboxKit", package: "BrokerGateway"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
