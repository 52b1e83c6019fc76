import AlpacaAdapter
import AsyncHTTPClient
import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import Logging
import Sandbox
import TestWorlds
import Testing
import TradeOgreAdapter

/// Two sandbox brokers over loopback (Alpaca and TradeOgre, each with its own fault injector) behind one gateway whose
/// pipeline has short durations, and a connection to each.
struct PipelineWorld: Sendable {
    let gateway: Gateway
    let registry: AdapterRegistry
    let tenant: Tenant
    let alpaca: ConnectionDescriptor
    let tradeogre: ConnectionDescriptor
    let alpacaFaults: FaultInjector

    var pipeline: BrokerPipeline { registry.pipeline }

    static let settings = PipelineSettings(
        breakerConsecutiveFailures: 3,
        breakerMinimumCalls: 1000,
        breakerCoolDown: .milliseconds(500),
        maxRetries: 2,
        retryBaseDelay: .milliseconds(5),
        retryMaxDelay: .milliseconds(20)
    )

    static func with(_ body: @escaping @Sendable (PipelineWorld) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-pipeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let alpacaFaults = FaultInjector()
        let alpacaSandbox = AlpacaSandbox(
            configuration: AlpacaSandboxConfiguration(requestsPerMinute: 1_000_000),
            faults: alpacaFaults
        )
        try await withSandbox(alpacaSandbox) { alpacaURL in
            try await withSandbox(TradeOgreSandbox(faults: FaultInjector())) { ogreURL in
                let logger = Logger(label: "pipeline-e2e", factory: { _ in SwiftLogNoOpLogHandler() })
                let store = try SQLiteStore(
                    path: directory.appendingPathComponent("gateway.sqlite").path,
                    cipher: .random(),
                    logger: logger
                )
                let registry = AdapterRegistry(
                    factories: [AlpacaAdapterFactory(), TradeOgreAdapterFactory()],
                    transport: HTTPClientTransport.loopbackForTests,
                    logger: logger,
                    pipeline: BrokerPipeline(settings: settings),
                    egress: .loopbackForTests
                )
                let gateway = Gateway(
                    store: store,
                    registry: registry,
                    router: .unhurried,
                    logger: logger,
                    orderSettings: OrderSettings(brokerTimeout: .seconds(2), reconcileGrace: 0)
                )
                let tenant = try await store.createTenant(name: "pipeline")
                let alpaca = try await gateway.connections.link(
                    owner: try await gateway.tenancy.defaultOwner(tenant),
                    NewConnection(
                        broker: .alpaca,
                        displayName: "alpaca",
                        baseURL: alpacaURL.absoluteString,
                        credentials: BrokerCredentials([
                            "keyId": AlpacaSandboxAccount.demoKeyID, "secretKey": AlpacaSandboxAccount.demoSecretKey,
                        ])
                    )
                )
                let tradeogre = try await gateway.connections.link(
                    owner: try await gateway.tenancy.defaultOwner(tenant),
                    NewConnection(
                        broker: .tradeogre,
                        displayName: "tradeogre",
                        baseURL: ogreURL.absoluteString + "/api/v1",
                        credentials: BrokerCredentials([
                            "apiKey": TradeOgreSandboxAccount.demoAPIKey, "apiSecret": TradeOgreSandboxAccount.demoAPISecret,
                        ])
                    )
                )
                try await body(
                    PipelineWorld(
                        gateway: gateway,
                        registry: registry,
                        tenant: tenant,
                        alpaca: alpaca,
                        tradeogre: tradeogre,
                        alpacaFaults: alpacaFaults
                    )
                )
            }
        }
    }

    func source(_ fanOut: FanOut<some Sendable>, _ connection: ConnectionDescriptor) -> SourceReport? {
        fanOut.sources.first { $0.connection == connection.id }
    }

    /// How many requests the Alpaca sandbox's fault rules caught.
    var alpacaFired: Int { alpacaFaults.rules.map(\.fired).reduce(0, +) }
}

@Suite("Broker pipeline against the sandboxes: breaker, retries, writes", .heavyWorld)
struct PipelineFaultTests {
    @Test func aBrokerFailingEveryCallOpensItsBreakerWhileTheOtherBrokerIsUnaffectedThenAProbeClosesIt() async throws {
        try await PipelineWorld.with { world in
            world.alpacaFaults.add(FaultRule(.error(status: 503), pathPrefix: "/v2"))
            // Three reads fail (each after its two retries): the third opens Alpaca's breaker.
            for _ in 0..<3 {
                let read = try await world.gateway.reads.positions(
                    owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                    Gateway.Selection()
                )
                #expect(world.source(read, world.alpaca)?.status == .error)
                #expect(world.source(read, world.tradeogre)?.status == .ok)
            }
            #expect(world.alpacaFired == 9)
            #expect(world.pipeline.health(connectionId: world.alpaca.id, broker: .alpaca).breaker == .open)
            #expect(world.pipeline.health(connectionId: world.tradeogre.id, broker: .tradeogre).breaker == .closed)

            // Open: Alpaca's part fails at once without reaching the sandbox; TradeOgre's still answers.
            let fast = try await world.gateway.reads.positions(owner: try await world.gateway.tenancy.defaultOwner(world.tenant), Gateway.Selection())
            let failure = try #require(world.source(fast, world.alpaca)?.error)
            #expect(failure.code == .upstreamUnavailable)
            #expect(failure.retryable)
            #expect(failure.message.contains("breaker"))
            #expect(world.source(fast, world.tradeogre)?.status == .ok)
            #expect(world.alpacaFired == 9)
            // Failing fast: the dead broker's part costs no more than the healthy broker's (which sets the read's
            // latency), where before the breaker opened it cost three attempts.
            let failedFast = try #require(world.source(fast, world.alpaca)?.latencyMs)
            let healthy = try #require(world.source(fast, world.tradeogre)?.latencyMs)
            #expect(failedFast <= healthy + 5)

            // The broker recovers; after the configured cool-down, the half-open probe succeeds and closes it.
            world.alpacaFaults.removeAll()
            try await Task.sleep(for: .milliseconds(600))
            let recovered = try await world.gateway.reads.positions(
                owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                Gateway.Selection()
            )
            #expect(world.source(recovered, world.alpaca)?.status == .ok)
            #expect(!recovered.partial)
            let health = world.pipeline.health(connectionId: world.alpaca.id, broker: .alpaca)
            #expect(health.breaker == .closed)
            #expect(health.errors >= 9)
            #expect(health.lastError?.code == .upstreamUnavailable)
        }
    }

    @Test func transient503sOnReadsAreRetriedAndTheReadSucceeds() async throws {
        try await PipelineWorld.with { world in
            world.alpacaFaults.add(FaultRule(.error(status: 503), method: "GET", pathPrefix: "/v2/positions", count: 2))
            let read = try await world.gateway.reads.positions(
                owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                Gateway.Selection(connectionId: world.alpaca.id)
            )
            #expect(world.source(read, world.alpaca)?.status == .ok)
            #expect(!read.partial)
            #expect(world.alpacaFaults.rules.isEmpty)  // both firings used up
            let health = world.pipeline.health(connectionId: world.alpaca.id, broker: .alpaca)
            #expect(health.errors == 2)
            #expect(health.breaker == .closed)
        }
    }

    @Test func aPlacementThatMeetsA503IsNotRetried() async throws {
        try await PipelineWorld.with { world in
            let placements = FaultRule(.error(status: 503), method: "POST", pathPrefix: "/v2/orders")
            world.alpacaFaults.add(placements)
            let request = OrderRequest(
                connectionId: world.alpaca.id,
                accountId: AlpacaSandboxAccount.demoAccountID.uuidString.lowercased(),
                instrument: InstrumentReference(symbol: "AAPL"),
                side: .buy,
                type: .limit,
                timeInForce: .day,
                quantity: 1,
                limitPrice: 50
            )
            _ = try? await world.gateway.orders.placeOrder(
                owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                request,
                idempotencyKey: "one-503"
            )
            #expect(world.alpacaFaults.rules.first { $0.id == placements.id }?.fired == 1)
        }
    }
    @Test func aPlacementWhileTheBreakerIsOpenIsRefusedUnsentAndTheSameKeyPlacesItAfterRecovery() async throws {
        try await PipelineWorld.with { world in
            world.alpacaFaults.add(FaultRule(.error(status: 503), pathPrefix: "/v2"))
            for _ in 0..<3 {
                _ = try await world.gateway.reads.positions(
                    owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                    Gateway.Selection(connectionId: world.alpaca.id)
                )
            }
            #expect(world.pipeline.health(connectionId: world.alpaca.id, broker: .alpaca).breaker == .open)
            let fired = world.alpacaFired
            let request = OrderRequest(
                connectionId: world.alpaca.id,
                accountId: AlpacaSandboxAccount.demoAccountID.uuidString.lowercased(),
                instrument: InstrumentReference(symbol: "AAPL"),
                side: .buy,
                type: .limit,
                timeInForce: .day,
                quantity: 1,
                limitPrice: 50
            )
            let refused = await #expect(throws: GatewayError.self) {
                try await world.gateway.orders.placeOrder(
                    owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                    request,
                    idempotencyKey: "breaker-key"
                )
            }
            #expect(refused?.code == .upstreamUnavailable)
            #expect(refused?.retryable == true)
            #expect(refused?.message.contains("circuit breaker is open") == true)
            #expect(world.alpacaFired == fired)  // the sandbox never saw it

            // Recovered and past the cool-down: the same key places the order once (it was never claimed).
            world.alpacaFaults.removeAll()
            try await Task.sleep(for: .milliseconds(600))
            let placed = try await world.gateway.orders.placeOrder(
                owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                request,
                idempotencyKey: "breaker-key"
            )
            #expect(placed.outcome == .accepted)
            #expect(!placed.replayed)
            let again = try await world.gateway.orders.placeOrder(
                owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                request,
                idempotencyKey: "breaker-key"
            )
            #expect(again.replayed)
            #expect(again.order.id == placed.order.id)
        }
    }
}
