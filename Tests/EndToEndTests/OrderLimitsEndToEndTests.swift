import AlpacaAdapter
import AsyncHTTPClient
import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import Sandbox
import TestWorlds
import Testing
import TradeOgreAdapter

/// Issue 12 against the sandboxes: a definite no-action failure releases the idempotency key (and the same key then
/// places exactly one order), and reconciliation by matching never takes another tenant's order at a shared account.
@Suite("Orders against the sandboxes: released keys, claims across tenants", .heavyWorld)
struct OrderLimitsEndToEndTests {
    func order(_ broker: CampaignBroker, connection: String, account: String, index: Int) -> String {
        #"{"connectionId":"\#(connection)","accountId":"\#(account)","symbol":"\#(broker.symbol)","side":"buy","type":"limit","timeInForce":"gtc","quantity":"\#(broker.quantity)","limitPrice":"\#(broker.price(index))"}"#
    }

    /// Adds one fault rule through the sandbox's own admin API, as an operator (or a test of a deployed gateway) would.
    func injectFault(_ sandboxURL: String, _ rule: String) async throws {
        var request = HTTPClientRequest(url: sandboxURL + "/_sandbox/faults")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: rule))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        #expect(response.status.code == 200 || response.status.code == 201)
        _ = try await response.body.collect(upTo: 1 << 16)
    }

    /// Before: the 429 journaled `rejected`, and every retry with the key replayed a non-retryable 429 for 24 hours
    /// though the broker had done nothing.
    @Test func a429FromTheBrokerReleasesTheKeyAndTheSameKeyPlacesOneOrder() async throws {
        let broker = CampaignBroker.tradeogre
        try await Loopback.with(broker.makeSandbox(FaultInjector())) { world, client in
            let connection = try await broker.link(world, client)
            let account = try #require(try await world.call(client, .get, "/v1/accounts").body.list.first?["id"] as? String)
            try await injectFault(
                world.sandboxURL,
                #"{"kind":"tooManyRequests","method":"POST","pathPrefix":"\#(broker.placementPath)","count":1,"retryAfterSeconds":1}"#
            )
            var headers = world.auth
            headers[HTTPField.Name("Idempotency-Key")!] = "after-429"
            let body = order(broker, connection: connection, account: account, index: 1)

            let refused = try await world.call(client, .post, "/v1/orders", json: body, headers: headers)
            #expect(refused.status == 429)
            #expect((refused.body["error"] as? [String: Any])?["code"] as? String == "rate_limited")
            #expect((refused.body["error"] as? [String: Any])?["retryable"] as? Bool == true)

            let placed = try await world.call(client, .post, "/v1/orders", json: body, headers: headers)
            #expect(placed.status == 201)
            #expect(placed.headers[HTTPField.Name("Idempotent-Replayed")!] == nil)
            let id = try #require(placed.body.data["id"] as? String)
            let replayed = try await world.call(client, .post, "/v1/orders", json: body, headers: headers)
            #expect(replayed.status == 201)
            #expect(replayed.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(replayed.body.data["id"] as? String == id)

            // Exactly one order at the broker, and it is this key's.
            let atBroker = try await world.call(client, .get, "/v1/orders?status=open&limit=500").body.list
            #expect(atBroker.compactMap { $0["id"] as? String } == [id])
            let events = try await world.call(client, .get, "/v1/orders/\(id)/events").body.list
            #expect(events.compactMap { $0["kind"] as? String } == ["intent", "released", "intent", "accepted"])
        }
    }

    /// The release opens no window: many requests retrying one released key at once send the order once.
    @Test func concurrentRetriesOfAReleasedKeySendTheOrderOnce() async throws {
        let broker = CampaignBroker.tradeogre
        try await Loopback.with(broker.makeSandbox(FaultInjector())) { world, client in
            let connection = try await broker.link(world, client)
            let account = try #require(try await world.call(client, .get, "/v1/accounts").body.list.first?["id"] as? String)
            try await injectFault(
                world.sandboxURL,
                #"{"kind":"tooManyRequests","method":"POST","pathPrefix":"\#(broker.placementPath)","count":1}"#
            )
            var keyed = world.auth
            keyed[HTTPField.Name("Idempotency-Key")!] = "released-race"
            let headers = keyed
            let body = order(broker, connection: connection, account: account, index: 2)
            #expect(try await world.call(client, .post, "/v1/orders", json: body, headers: headers).status == 429)

            let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let answer = try await world.call(client, .post, "/v1/orders", json: body, headers: headers)
                        return (answer.status, answer.body.data["id"] as? String)
                    }
                }
                var all: [(Int, String?)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(Set(answers.map(\.0)) == [201])
            #expect(Set(answers.map(\.1)).count == 1)
            let atBroker = try await world.call(client, .get, "/v1/orders?status=open&limit=500").body.list
            #expect(atBroker.count == 1)
            #expect(atBroker.first?["id"] as? String == answers.first?.1)
        }
    }

    /// Before: a 401 journaled `rejected` and burned the key; after a relink the order could not be placed with it.
    @Test func a401ReleasesTheKeyThroughTheGateway() async throws {
        try await PipelineWorld.with { world in
            world.alpacaFaults.add(FaultRule(.error(status: 401), method: "POST", pathPrefix: "/v2/orders", count: 1))
            let request = OrderRequest(
                connectionId: world.alpaca.id,
                accountId: AlpacaSandboxAccount.demoAccountID.uuidString.lowercased(),
                instrument: InstrumentReference(symbol: "AAPL"),
                side: .buy,
                type: .limit,
                timeInForce: .day,
                quantity: 1,
                limitPrice: 51
            )
            let refused = await #expect(throws: GatewayError.self) {
                try await world.gateway.orders.placeOrder(
                    owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                    request,
                    idempotencyKey: "after-401"
                )
            }
            #expect(refused?.code == .unauthorized)
            let placed = try await world.gateway.orders.placeOrder(
                owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                request,
                idempotencyKey: "after-401"
            )
            #expect(placed.outcome == .accepted)
            #expect(!placed.replayed)
            let events = try await world.gateway.orderHistory.orderEvents(
                owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                id: placed.order.id
            )
            #expect(events.map(\.kind) == [.intent, .released, .intent, .accepted])
            #expect(events.map(\.state) == [.submitting, .released, .submitting, .accepted])
            // One order at the broker under the key's client order id.
            let orders = try await world.gateway.orderHistory.orders(
                owner: try await world.gateway.tenancy.defaultOwner(world.tenant),
                Gateway.Selection(connectionId: world.alpaca.id),
                OrderQuery(state: .all)
            )
            #expect(orders.data.filter { $0.clientOrderId == placed.order.clientOrderId }.count == 1)
        }
    }

    /// Two tenants link the same TradeOgre account (no client order ids: reconciliation matches orders by their
    /// fields). Tenant B's order is at the broker; tenant A's identical order never got there and its outcome is
    /// unknown. Before: A's reconciliation claimed B's order (claims were kept per tenant and connection), so A
    /// believed it had an order it never placed. Now B's order is claimed at the account for every tenant.
    @Test func matchingNeverClaimsAnotherTenantsOrderAtASharedAccount() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let faults = FaultInjector()
        try await withSandbox(TradeOgreSandbox(faults: faults)) { url in
            let logger = Logger(label: "shared-account", factory: { _ in SwiftLogNoOpLogHandler() })
            let store = try await SQLiteStore.opening(
                path: directory.appendingPathComponent("gateway.sqlite").path,
                cipher: .random(),
                logger: logger
            )
            let registry = AdapterRegistry(
                factories: [TradeOgreAdapterFactory()],
                transport: HTTPClientTransport.loopbackForTests,
                logger: logger,
                egress: .loopbackForTests
            )
            let gateway = Gateway(
                store: store,
                registry: registry,
                router: .unhurried,
                logger: logger,
                orderSettings: OrderSettings(brokerTimeout: .seconds(2), reconcileGrace: 0)
            )
            func link(_ tenant: Tenant) async throws -> ConnectionDescriptor {
                try await gateway.connections.link(
                    owner: try await gateway.tenancy.defaultOwner(tenant),
                    NewConnection(
                        broker: .tradeogre,
                        displayName: "shared",
                        baseURL: url.absoluteString + "/api/v1",
                        credentials: BrokerCredentials([
                            "apiKey": TradeOgreSandboxAccount.demoAPIKey, "apiSecret": TradeOgreSandboxAccount.demoAPISecret,
                        ])
                    )
                )
            }
            let tenantA = try await store.createTenant(name: "A")
            let tenantB = try await store.createTenant(name: "B")
            let connectionA = try await link(tenantA)
            let connectionB = try await link(tenantB)
            func request(_ connection: ConnectionDescriptor) -> OrderRequest {
                OrderRequest(
                    connectionId: connection.id,
                    accountId: TradeOgreAdapter.accountId,
                    instrument: InstrumentReference(symbol: "XMR/BTC"),
                    side: .buy,
                    type: .limit,
                    timeInForce: .gtc,
                    quantity: 1,
                    limitPrice: Decimal(string: "0.0001")!
                )
            }

            let theirs = try await gateway.orders.placeOrder(
                owner: try await gateway.tenancy.defaultOwner(tenantB),
                request(connectionB),
                idempotencyKey: "b-1"
            )
            #expect(theirs.outcome == .accepted)
            let theirBrokerId = try #require(theirs.order.brokerOrderId)

            // A's identical order is refused before the sandbox acts, with an answer that leaves the outcome unknown.
            faults.add(FaultRule(.error(status: 503), method: "POST", pathPrefix: "/api/v1/order/buy", count: 1))
            let mine = try await gateway.orders.placeOrder(
                owner: try await gateway.tenancy.defaultOwner(tenantA),
                request(connectionA),
                idempotencyKey: "a-1"
            )
            #expect(mine.outcome == .unknown)
            #expect(mine.order.brokerOrderId == nil)
            await gateway.orders.reconcilePending()

            let journaledA = try #require(try await store.journaledOrder(tenantId: tenantA.id, id: mine.order.id))
            #expect(journaledA.state == .unknown)
            #expect(journaledA.brokerOrderId == nil)
            let journaledB = try #require(try await store.journaledOrder(tenantId: tenantB.id, id: theirs.order.id))
            #expect(journaledB.brokerOrderId == theirBrokerId)
            #expect(
                try await store.claimedBrokerOrderIds(
                    tenantId: tenantA.id,
                    connectionId: connectionA.id,
                    accountId: TradeOgreAdapter.accountId,
                    since: .distantPast
                )
                    == [theirBrokerId]
            )
            // The account has B's order only.
            let atBroker = try await gateway.orderHistory.orders(
                owner: try await gateway.tenancy.defaultOwner(tenantA),
                Gateway.Selection(),
                OrderQuery(state: .open)
            )
            #expect(atBroker.data.compactMap(\.brokerOrderId) == [theirBrokerId])
        }
    }
}
