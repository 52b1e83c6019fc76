import AlpacaAdapter
import AsyncHTTPClient
import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
@testable import GatewayPostgresStore
import GatewayStore
import GatewayTesting
import Logging
import NIOCore
import NIOHTTP1
import Sandbox
import Testing

/// Two gateway instances (two `Gateway`s, each with its own adapter registry and its own PostgreSQL pool) on one
/// database, in front of one Alpaca sandbox: what clients spread over a load balancer see. Needs
/// `BROKERGATEWAY_TEST_POSTGRES_URL` (`.ci/run` starts a server); skipped without it.
@Suite("Many instances on PostgreSQL: orders", .enabled(if: ProcessInfo.processInfo.environment["BROKERGATEWAY_TEST_POSTGRES_URL"] != nil))
struct MultiInstanceOrderTests {
    @Test("50 concurrent placements with one Idempotency-Key over two instances: one broker order, one answer")
    func oneKeyOverTwoInstances() async throws {
        var settings = try PostgresStoreSettings(
            url: try #require(ProcessInfo.processInfo.environment["BROKERGATEWAY_TEST_POSTGRES_URL"]))
        let schema = "e2e_" + RandomIdentifier.base32(count: 16)
        settings.schema = schema
        settings.maximumConnections = 6
        let cipher = CredentialCipher.random()
        let logger = Logger(label: "multi-instance", factory: { _ in SwiftLogNoOpLogHandler() })
        let sandbox = AlpacaSandbox(configuration: AlpacaSandboxConfiguration(requestsPerMinute: 1_000_000))
        try await withSandbox(sandbox) { url in
            try await PostgresStore.withStore(settings: settings, cipher: cipher, logger: logger) { first in
                try await PostgresStore.withStore(settings: settings, cipher: cipher, logger: logger) { second in
                    func gateway(_ store: PostgresStore) -> Gateway {
                        Gateway(
                            store: store,
                            registry: AdapterRegistry(
                                factories: [AlpacaAdapterFactory()], transport: HTTPClientTransport.loopbackForTests,
                                logger: logger, egress: .loopbackForTests),
                            router: BrokerRouter(), logger: logger)
                    }
                    let instances = [gateway(first), gateway(second)]
                    let tenant = try await first.createTenant(name: "two instances")
                    let connection = try await instances[0].link(
                        owner: try await instances[0].defaultOwner(tenant),
                        NewConnection(
                            broker: .alpaca, displayName: "sandbox", baseURL: url.absoluteString,
                            credentials: BrokerCredentials([
                                "keyId": AlpacaSandboxAccount.demoKeyID, "secretKey": AlpacaSandboxAccount.demoSecretKey,
                            ])))
                    let request = OrderRequest(
                        connectionId: connection.id, accountId: AlpacaSandboxAccount.demoAccountID.uuidString.lowercased(),
                        instrument: InstrumentReference(symbol: "AAPL"), side: .buy, type: .limit, timeInForce: .day,
                        quantity: 1, limitPrice: 50)
                    // A repeat that finds the first request still sending reconciles once the broker timeout has
                    // passed, and on a loaded machine the pipeline's pacing of Alpaca may refuse that look-up with a
                    // retryable `rate_limited`: a refusal to answer yet, never a second order.
                    let orderIds = try await withThrowingTaskGroup(of: String?.self) { group in
                        for index in 0..<50 {
                            let instance = instances[index % 2]
                            group.addTask {
                                let owner = try await instance.defaultOwner(tenant)
                                do {
                                    return try await instance.placeOrder(owner: owner, request, idempotencyKey: "one-key").order.id
                                } catch let error as GatewayError where error.code == .rateLimited {
                                    return nil
                                }
                            }
                        }
                        var ids: [String] = []
                        for try await id in group { if let id { ids.append(id) } }
                        return ids
                    }
                    #expect(!orderIds.isEmpty)
                    #expect(Set(orderIds).count == 1, "answers name \(Set(orderIds).count) orders")

                    // The broker's truth: one order.
                    var brokerRequest = HTTPClientRequest(url: url.absoluteString + "/v2/orders?status=all&limit=500")
                    brokerRequest.headers.add(name: "APCA-API-KEY-ID", value: AlpacaSandboxAccount.demoKeyID)
                    brokerRequest.headers.add(name: "APCA-API-SECRET-KEY", value: AlpacaSandboxAccount.demoSecretKey)
                    let response = try await HTTPClient.shared.execute(brokerRequest, timeout: .seconds(10))
                    let body = try await response.body.collect(upTo: 1 << 24)
                    let orders = try #require(
                        try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [[String: Any]])
                    #expect(orders.count == 1, "\(orders.count) orders at the broker")
                    #expect(try await second.journaledOrders(tenantId: tenant.id, in: JournalState.allCases, limit: 100).count == 1)

                    try await second.write("dropSchema") { db in try await db.execute("DROP SCHEMA \"\(schema)\" CASCADE") }
                }
            }
        }
    }
}
