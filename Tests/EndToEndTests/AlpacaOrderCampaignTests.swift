import AlpacaAdapter
import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import Sandbox
import Synchronization
import TestWorlds
import Testing

/// Orders through /v1 while the Alpaca sandbox drops answers after acting, times out, answers 5xx or sends
/// garbage: after reconciliation every intent has exactly one order at the broker or none, and the journal agrees.
@Suite("Orders under faults: Alpaca", .heavyWorld)
struct AlpacaOrderCampaignTests {
    static let seed: UInt64 = 20_261_122

    @Test func aSeededCampaignHasNoDuplicatesAndNoLostOrders() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-campaign-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let faults = FaultInjector(
            seed: Self.seed,
            rules: [
                FaultRule(.dropResponse, method: "POST", pathPrefix: "/v2/orders", probability: 0.08),
                FaultRule(.timeout(afterEffect: true), method: "POST", pathPrefix: "/v2/orders", probability: 0.05),
                FaultRule(.timeout(afterEffect: false), method: "POST", pathPrefix: "/v2/orders", probability: 0.05),
                FaultRule(.error(status: 503), method: "POST", pathPrefix: "/v2/orders", probability: 0.08),
                FaultRule(.malformedBody, method: "POST", pathPrefix: "/v2/orders", probability: 0.05),
            ],
            timeoutHoldLimit: .seconds(5)
        )
        let sandbox = AlpacaSandbox(configuration: AlpacaSandboxConfiguration(requestsPerMinute: 1_000_000), faults: faults)
        try await withSandbox(sandbox) { url in
            let logger = Logger(label: "campaign", factory: { _ in SwiftLogNoOpLogHandler() })
            let store = try await SQLiteStore.opening(
                path: directory.appendingPathComponent("gateway.sqlite").path,
                cipher: .random(),
                logger: logger
            )
            // The campaign is about the journal and idempotency, not the breaker: on a loaded test machine the
            // injected timeouts and slow answers would open it, and every later placement would be refused unsent.
            let registry = AdapterRegistry(
                factories: [AlpacaAdapterFactory()],
                transport: HTTPClientTransport.loopbackForTests,
                logger: logger,
                pipeline: BrokerPipeline(
                    settings: PipelineSettings(
                        breakerConsecutiveFailures: 1_000_000,
                        breakerFailureRatio: 2,
                        breakerMinimumCalls: 1_000_000
                    )
                ),
                egress: .loopbackForTests
            )
            let gateway = Gateway(
                store: store,
                registry: registry,
                router: .unhurried,
                logger: logger,
                orderSettings: OrderSettings(brokerTimeout: .milliseconds(1500), reconcileGrace: 0)
            )
            let tenant = try await store.createTenant(name: "campaign")
            let connection = try await gateway.connections.link(
                owner: try await gateway.tenancy.defaultOwner(tenant),
                NewConnection(
                    broker: .alpaca,
                    displayName: "sandbox",
                    baseURL: url.absoluteString,
                    credentials: BrokerCredentials(["keyId": AlpacaSandboxAccount.demoKeyID, "secretKey": AlpacaSandboxAccount.demoSecretKey])
                )
            )
            let accountId = AlpacaSandboxAccount.demoAccountID.uuidString.lowercased()
            let placements = 200
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in stride(from: worker, to: placements, by: 8) {
                            let request = OrderRequest(
                                connectionId: connection.id,
                                accountId: accountId,
                                instrument: InstrumentReference(symbol: "AAPL"),
                                side: .buy,
                                type: .limit,
                                timeInForce: .day,
                                quantity: 1,
                                limitPrice: Decimal(50 + index % 7)
                            )
                            do {
                                _ = try await gateway.orders.placeOrder(
                                    owner: try await gateway.tenancy.defaultOwner(tenant),
                                    request,
                                    idempotencyKey: "campaign-\(index)"
                                )
                            } catch is GatewayError {
                                // Refusals are checked below, through the idempotent answer.
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            // Clients retry some keys blindly: nothing must double.
            for index in stride(from: 0, to: placements, by: 10) {
                let request = OrderRequest(
                    connectionId: connection.id,
                    accountId: accountId,
                    instrument: InstrumentReference(symbol: "AAPL"),
                    side: .buy,
                    type: .limit,
                    timeInForce: .day,
                    quantity: 1,
                    limitPrice: Decimal(50 + index % 7)
                )
                _ = try? await gateway.orders.placeOrder(
                    owner: try await gateway.tenancy.defaultOwner(tenant),
                    request,
                    idempotencyKey: "campaign-\(index)"
                )
            }
            faults.removeAll()
            await gateway.orders.reconcilePending(limit: 1000)

            var accepted: [Int: String] = [:]
            var rejected = 0
            for index in 0..<placements {
                let request = OrderRequest(
                    connectionId: connection.id,
                    accountId: accountId,
                    instrument: InstrumentReference(symbol: "AAPL"),
                    side: .buy,
                    type: .limit,
                    timeInForce: .day,
                    quantity: 1,
                    limitPrice: Decimal(50 + index % 7)
                )
                // The idempotent answer tells which journal entry the key maps to. A key an earlier attempt released
                // (nothing reached the broker) sends its order now, once.
                let answer: PlacementResult
                do {
                    answer = try await gateway.orders.placeOrder(
                        owner: try await gateway.tenancy.defaultOwner(tenant),
                        request,
                        idempotencyKey: "campaign-\(index)"
                    )
                } catch let error as GatewayError {
                    // A definite refusal: the broker must not have the order.
                    #expect(error.code == .rejected || error.code == .rateLimited || error.code == .unprocessable, "\(index): \(error)")
                    rejected += 1
                    continue
                }
                let journaled = try #require(try await store.journaledOrder(tenantId: tenant.id, id: answer.order.id))
                #expect(journaled.state == .accepted, "intent \(index) is still \(journaled.state)")
                accepted[index] = journaled.clientOrderId
            }

            // The broker's truth, after every answer is known.
            var brokerRequest = HTTPClientRequest(url: url.absoluteString + "/v2/orders?status=all&limit=500")
            brokerRequest.headers.add(name: "APCA-API-KEY-ID", value: AlpacaSandboxAccount.demoKeyID)
            brokerRequest.headers.add(name: "APCA-API-SECRET-KEY", value: AlpacaSandboxAccount.demoSecretKey)
            let response = try await HTTPClient.shared.execute(brokerRequest, timeout: .seconds(10))
            let orders = try #require(
                try JSONSerialization.jsonObject(with: Data(try await response.body.collect(upTo: 1 << 24).readableBytesView)) as? [[String: Any]]
            )
            var perClientId: [String: Int] = [:]
            for order in orders { perClientId[order["client_order_id"] as? String ?? "", default: 0] += 1 }
            #expect(perClientId.values.allSatisfy { $0 == 1 }, "duplicates at the broker: \(perClientId.filter { $0.value > 1 })")
            for (index, clientOrderId) in accepted {
                #expect(perClientId[clientOrderId] == 1, "intent \(index) has no order at the broker")
            }
            // Every broker order belongs to an intent: nothing at the broker the journal does not know.
            let journaledClientIds = try await store.journaledOrders(in: JournalState.allCases, limit: 10_000).map(\.clientOrderId)
            #expect(journaledClientIds.count == placements)
            #expect(Set(perClientId.keys).isSubset(of: Set(journaledClientIds)))
            #expect(accepted.count + rejected == placements)
            #expect(accepted.count == perClientId.count)
            #expect(accepted.count > placements / 2)
        }
    }
}
