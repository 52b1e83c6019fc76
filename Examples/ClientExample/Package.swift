// swift-tools-version:6.2
// The client library in use: a package of its own, as an app would be, so the gateway's `swift build` never
// compiles it. From the repository's root: `swift run --package-path Examples/ClientExample ClientExample URL KEY`.
import PackageDescription

let package = Package(
    name: "ClientExample",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that the products below resolve whatever the clone's folder is called.
        .package(name: "BrokerGateway", path: "../..")
    ],
    targets: [
        // Lists positions and places an order through the client library.
        .executableTarget(
            name: "ClientExample",
            dependencies: [
                .product(name: "BrokerGatewayClient", package: "BrokerGateway"),
                .product(name: "GatewayModel", package: "BrokerGateway"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        )
    ]
)
