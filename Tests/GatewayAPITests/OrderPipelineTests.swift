import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@Suite("Orders: never lost, never doubled")
struct OrderPipelineTests {
    func body(_ connection: String, clientOrderId: String? = nil, quantity: String = "1") -> String {
        let id = clientOrderId.map { #","clientOrderId":"\#($0)""# } ?? ""
        return
            #"{"connectionId":"\#(connection)","accountId":"ACC-1","symbol":"AAPL","side":"buy","type":"limit","quantity":"\#(quantity)","limitPrice":"10"\#(id)}"#
    }

    func headers(_ harness: APIHarness, key: String?) -> HTTPFields {
        var headers = harness.auth
        headers[HTTPField.Name("Idempotency-Key")!] = key
        return headers
    }

    @Test func fiftyConcurrentRequestsWithOneKeyPlaceOneOrder() async throws {
        try await APIHarness.with { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: "https://idem.fake")
            harness.state.set("https://idem.fake", FakeBrokerBehaviour(delay: .milliseconds(50)))
            let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await client.execute(
                            uri: "/v1/orders",
                            method: .post,
                            headers: headers(harness, key: "key-50"),
                            body: .init(string: body(connection.id))
                        ) { response in
                            (Int(response.status.code), String(buffer: response.body))
                        }
                    }
                }
                var all: [(Int, String)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(harness.state.placed.withLock { $0 } == 1)
            #expect(Set(answers.map(\.0)) == [201])
            #expect(Set(answers.map(\.1)).count == 1, "the 50 answers differ")
        }
    }

    @Test func theSameKeyWithAnotherBodyIsAConflict() async throws {
        try await APIHarness.with { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: "https://conflict.fake")
            let first = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "k1"), json: body(connection.id))
            #expect(first.status == 201)
            let again = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "k1"), json: body(connection.id))
            #expect(again.status == 201)
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(again.body.dataObject["id"] as? String == first.body.dataObject["id"] as? String)
            let different = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "k1"), json: body(connection.id, quantity: "2"))
            #expect(different.status == 409)
            #expect(different.body.errorCode == "conflict")
            #expect(harness.state.placed.withLock { $0 } == 1)
        }
    }

    @Test func aKeyOrAClientOrderIdIsRequired() async throws {
        try await APIHarness.with { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: "https://nokey.fake")
            let none = try await client.call(.post, "/v1/orders", headers: headers(harness, key: nil), json: body(connection.id))
            #expect(none.status == 422)
            #expect(none.body.detailFields == ["Idempotency-Key"])
            let byClientId = try await client.call(
                .post,
                "/v1/orders",
                headers: headers(harness, key: nil),
                json: body(connection.id, clientOrderId: "mine-1")
            )
            #expect(byClientId.status == 201)
            let repeated = try await client.call(
                .post,
                "/v1/orders",
                headers: headers(harness, key: nil),
                json: body(connection.id, clientOrderId: "mine-1")
            )
            #expect(repeated.body.dataObject["id"] as? String == byClientId.body.dataObject["id"] as? String)
            #expect(harness.state.placed.withLock { $0 } == 1)
        }
    }

    @Test(arguments: [BrokerKind.alpaca, BrokerKind.saxo])
    func aLostAnswerIsUnknownThenReconciled(_ broker: BrokerKind) async throws {
        try await APIHarness.with(orderSettings: OrderSettings(brokerTimeout: .milliseconds(300))) { harness, client in
            let url = "https://lost-\(broker).fake"
            let connection = try await harness.link(broker, baseURL: url)
            // The broker takes the order, then the answer is lost: a 5xx after acting.
            harness.state.set(url, FakeBrokerBehaviour(failAfterPlacing: GatewayError(.upstreamUnavailable, "502 from the broker")))
            let placed = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "lost-1"), json: body(connection.id))
            // Reconciliation ran at once and found the order at the broker.
            #expect(placed.status == 201)
            let id = try #require(placed.body.dataObject["id"] as? String)
            #expect(placed.body.dataObject["status"] as? String == "open")
            #expect(placed.body.dataObject["brokerOrderId"] as? String == "B1")
            let events = try await client.call(.get, "/v1/orders/\(id)/events", headers: harness.auth)
            #expect(events.body.dataList.compactMap { $0["kind"] as? String } == ["intent", "unknown", "reconciled"])
            // A retry of the same request does not place a second order.
            harness.state.set(url, FakeBrokerBehaviour())
            let retry = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "lost-1"), json: body(connection.id))
            #expect(retry.body.dataObject["id"] as? String == id)
            #expect(harness.state.placed.withLock { $0 } == 1)
        }
    }

    @Test func aTimeoutAnswers202AndAReadResolvesIt() async throws {
        try await APIHarness.with(orderSettings: OrderSettings(brokerTimeout: .milliseconds(200))) { harness, client in
            let url = "https://slow.fake"
            let connection = try await harness.link(.alpaca, baseURL: url)
            harness.state.set(url, FakeBrokerBehaviour(failAfterPlacing: GatewayError(.upstreamTimeout, "late"), unreachableAfterPlacing: true))
            let placed = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "slow-1"), json: body(connection.id))
            #expect(placed.status == 202)
            #expect(placed.body.dataObject["status"] as? String == "unknown")
            let id = try #require(placed.body.dataObject["id"] as? String)
            harness.state.set(url, FakeBrokerBehaviour())
            let read = try await client.call(.get, "/v1/orders/\(id)", headers: harness.auth)
            #expect(read.status == 200)
            #expect(read.body.dataObject["status"] as? String == "open")
            #expect(read.body.dataObject["id"] as? String == id)
            let listed = try await client.call(.get, "/v1/orders?status=all", headers: harness.auth)
            #expect(listed.body.dataList.compactMap { $0["id"] as? String } == [id])
            #expect(harness.state.placed.withLock { $0 } == 1)
        }
    }

    /// A placement the broker refuses answers 422 and names the order the journal kept (`error.orderId`): that order
    /// reads by its id as `rejected`, and a repeat of the key answers the same refusal with the same id.
    @Test func aRefusedPlacementNamesItsOrderWhichReadsRejected() async throws {
        try await APIHarness.with { harness, client in
            let url = "https://poor.fake"
            let connection = try await harness.link(.alpaca, baseURL: url)
            harness.state.set(
                url,
                FakeBrokerBehaviour(failBeforePlacing: GatewayError(.insufficientFunds, "insufficient buying power", broker: .alpaca))
            )
            let placed = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "poor-1"), json: body(connection.id))
            #expect(placed.status == 422)
            let error = try #require(placed.body["error"] as? [String: Any])
            #expect(error["code"] as? String == "insufficient_funds")
            let id = try #require(error["orderId"] as? String, "\(placed.body)")
            let read = try await client.call(.get, "/v1/orders/\(id)", headers: harness.auth)
            #expect(read.status == 200)
            #expect(read.body.dataObject["status"] as? String == "rejected")
            let events = try await client.call(.get, "/v1/orders/\(id)/events", headers: harness.auth)
            #expect(events.body.dataList.last?["kind"] as? String == "rejected")
            let again = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "poor-1"), json: body(connection.id))
            #expect(again.status == 422)
            #expect((again.body["error"] as? [String: Any])?["orderId"] as? String == id)
        }
    }

    @Test func anOrderTheBrokerNeverGotIsRejectedAfterTheGrace() async throws {
        try await APIHarness.with(orderSettings: OrderSettings(reconcileGrace: 0)) { harness, client in
            let url = "https://down.fake"
            let connection = try await harness.link(.alpaca, baseURL: url)
            harness.state.set(url, FakeBrokerBehaviour(failBeforePlacing: GatewayError(.upstreamUnavailable, "down")))
            let placed = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "down-1"), json: body(connection.id))
            #expect(placed.status == 202)
            let id = try #require(placed.body.dataObject["id"] as? String)
            harness.state.set(url, FakeBrokerBehaviour())
            let read = try await client.call(.get, "/v1/orders/\(id)", headers: harness.auth)
            #expect(read.body.dataObject["status"] as? String == "rejected")
            let events = try await client.call(.get, "/v1/orders/\(id)/events", headers: harness.auth)
            #expect(events.body.dataList.last?["kind"] as? String == "not_found_at_broker")
            #expect(harness.state.placed.withLock { $0 } == 0)
        }
    }

    @Test func aRestartBetweenSendingAndReconcilingLosesNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cipher = CredentialCipher.random()
        let broker = FakeBrokerState()
        let url = "https://restart.fake"
        let first = Mutex<(order: String, tenant: String)?>(nil)
        // First life: the answer is lost and the broker is unreachable afterwards, so the order stays unknown.
        try await APIHarness.with(
            orderSettings: OrderSettings(brokerTimeout: .milliseconds(200)),
            directory: directory,
            cipher: cipher,
            brokerState: broker
        ) { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: url)
            harness.state.set(url, FakeBrokerBehaviour(failAfterPlacing: GatewayError(.upstreamTimeout, "late"), unreachableAfterPlacing: true))
            let placed = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "restart-1"), json: body(connection.id))
            #expect(placed.status == 202)
            first.withLock { $0 = (try! #require(placed.body.dataObject["id"] as? String), harness.tenant.id) }
        }
        let (orderId, tenantId) = try #require(first.withLock { $0 })
        broker.set(url, FakeBrokerBehaviour())
        // Second life: a new gateway on the same file; the background reconciler's pass resolves the intent.
        try await APIHarness.with(directory: directory, cipher: cipher, brokerState: broker) { harness, _ in
            let before = try #require(try await harness.store.journaledOrder(tenantId: tenantId, id: orderId))
            #expect(before.state == .unknown)
            await harness.gateway.orders.reconcilePending()
            let after = try #require(try await harness.store.journaledOrder(tenantId: tenantId, id: orderId))
            #expect(after.state == .accepted)
            #expect(after.brokerOrderId == "B1")
            let events = try await harness.store.orderEvents(tenantId: tenantId, orderId: orderId)
            #expect(events.map(\.kind) == [.intent, .unknown, .reconciled])
        }
        #expect(broker.placed.withLock { $0 } == 1)
    }
}
