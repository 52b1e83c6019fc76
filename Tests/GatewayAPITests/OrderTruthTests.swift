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

/// Issue 26, in the gateway: an order the gateway placed reads by its id for good, with the broker's last word on
/// it; a repeat of a known key costs the broker nothing; a broker that started over never rewrites an older order;
/// one change is one journal event.
@Suite("Orders: what the gateway says stays true")
struct OrderTruthTests {
    func body(_ connection: String, symbol: String = "AAPL", type: String = "limit", quantity: String = "1") -> String {
        let price = type == "limit" ? #","limitPrice":"10""# : ""
        return
            #"{"connectionId":"\#(connection)","accountId":"ACC-1","symbol":"\#(symbol)","side":"buy","type":"\#(type)","quantity":"\#(quantity)"\#(price)}"#
    }

    func headers(_ harness: APIHarness, key: String) -> HTTPFields {
        var headers = harness.auth
        headers[HTTPField.Name("Idempotency-Key")!] = key
        return headers
    }

    func eventKinds(_ client: some TestClientProtocol, _ harness: APIHarness, _ id: String) async throws -> [String] {
        try await client.call(.get, "/v1/orders/\(id)/events", headers: harness.auth).body.dataList.compactMap { $0["kind"] as? String }
    }

    /// Before: every repeat checked the order's account at the broker before it found its key, so a retry storm
    /// spent the broker's rate budget (Alpaca answered some of the repeats 429).
    @Test func aRetryStormWithOneKeyCostsOnePlacementAndOneLookup() async throws {
        try await APIHarness.with { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: "https://storm.fake")
            let lookupsBefore = harness.state.accountReads.withLock { $0 }
            harness.state.set("https://storm.fake", FakeBrokerBehaviour(delay: .milliseconds(50)))
            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        try await client.execute(
                            uri: "/v1/orders",
                            method: .post,
                            headers: headers(harness, key: "storm-1"),
                            body: ByteBuffer(string: body(connection.id))
                        ) { Int($0.status.code) }
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(answers.count == 40)
            #expect(answers.allSatisfy { (200..<300).contains($0) }, "\(answers)")
            #expect(harness.state.placed.withLock { $0 } == 1)
            #expect(harness.state.accountReads.withLock { $0 } - lookupsBefore <= 1)
            // Later repeats come from the journal alone.
            let reads = harness.state.orderReads.withLock { $0 }
            let accounts = harness.state.accountReads.withLock { $0 }
            for _ in 0..<5 {
                let again = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "storm-1"), json: body(connection.id))
                #expect(again.status == 201)
            }
            #expect(harness.state.orderReads.withLock { $0 } == reads)
            #expect(harness.state.accountReads.withLock { $0 } == accounts)
        }
    }

    /// Before: an order the broker no longer listed (a Saxo order that filled, a TradeOgre order cancelled) read 404.
    @Test func anOrderTheBrokerForgotReadsAsTheJournalLastConfirmedIt() async throws {
        try await APIHarness.with { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: "https://forgets.fake")
            let placed = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "forget-1"), json: body(connection.id))
            #expect(placed.status == 201)
            let id = try #require(placed.body.dataObject["id"] as? String)
            harness.state.orders.withLock { $0 = [:] }

            let read = try await client.call(.get, "/v1/orders/\(id)", headers: harness.auth)
            #expect(read.status == 200)
            #expect(read.body.dataObject["id"] as? String == id)
            #expect(read.body.dataObject["status"] as? String == "open")
            #expect(read.body.dataObject["source"] as? String == "journal")
            #expect(read.body.dataObject["quantity"] as? String == "1")
            // Nothing is sent for it: the broker would not find it.
            let cancel = try await client.call(.delete, "/v1/orders/\(id)", headers: harness.auth)
            #expect(cancel.status == 409)
            #expect(cancel.body.errorCode == "conflict")
        }
    }

    /// An order the broker reported ended stays ended: its reads and a second cancel cost no broker call, and the
    /// second cancel is the conflict it is, not a 404 from a broker that forgot it.
    @Test func anEndedOrderIsAnsweredFromTheJournal() async throws {
        try await APIHarness.with { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: "https://ended.fake")
            let placed = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "end-1"), json: body(connection.id))
            let id = try #require(placed.body.dataObject["id"] as? String)
            let canceled = try await client.call(.delete, "/v1/orders/\(id)", headers: harness.auth)
            #expect(canceled.status == 200)
            #expect(canceled.body.dataObject["status"] as? String == "canceled")
            harness.state.orders.withLock { $0 = [:] }
            let reads = harness.state.orderReads.withLock { $0 }

            let read = try await client.call(.get, "/v1/orders/\(id)", headers: harness.auth)
            #expect(read.status == 200)
            #expect(read.body.dataObject["status"] as? String == "canceled")
            #expect(read.body.dataObject["source"] == nil)
            let again = try await client.call(.delete, "/v1/orders/\(id)", headers: harness.auth)
            #expect(again.status == 409)
            #expect(harness.state.orderReads.withLock { $0 } == reads)
            #expect(try await eventKinds(client, harness, id) == ["intent", "accepted", "canceled"])
        }
    }

    /// Before: after a broker started over, its first order reused an id the journal held: the placement answered 409
    /// although the broker placed it, and the older order then read with the new order's contents.
    @Test func aBrokerThatReusesAnIdNeverRewritesTheOlderOrder() async throws {
        try await APIHarness.with { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: "https://reuse.fake")
            let first = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "reuse-1"), json: body(connection.id))
            let firstId = try #require(first.body.dataObject["id"] as? String)
            let brokerId = try #require(first.body.dataObject["brokerOrderId"] as? String)
            harness.state.startOver()

            let second = try await client.call(
                .post,
                "/v1/orders",
                headers: headers(harness, key: "reuse-2"),
                json: body(connection.id, symbol: "MSFT", quantity: "3")
            )
            #expect(second.status == 201)
            #expect(second.body.dataObject["brokerOrderId"] as? String == brokerId)
            let secondId = try #require(second.body.dataObject["id"] as? String)
            #expect(secondId != firstId)

            let older = try await client.call(.get, "/v1/orders/\(firstId)", headers: harness.auth)
            #expect(older.status == 200)
            #expect((older.body.dataObject["instrument"] as? [String: Any])?["symbol"] as? String == "AAPL")
            #expect(older.body.dataObject["quantity"] as? String == "1")
            #expect(older.body.dataObject["source"] as? String == "journal")
            let newer = try await client.call(.get, "/v1/orders/\(secondId)", headers: harness.auth)
            #expect((newer.body.dataObject["instrument"] as? [String: Any])?["symbol"] as? String == "MSFT")
            #expect(newer.body.dataObject["quantity"] as? String == "3")
            #expect(try await eventKinds(client, harness, firstId) == ["intent", "accepted"])
        }
    }

    /// Before: a read of the order while its cancel was in flight journaled `canceled` once, and the cancel's own
    /// answer journaled it again: two `canceled` updates on the stream for one cancel.
    @Test func aCancelSeenByAReadMeanwhileIsOneEvent() async throws {
        try await APIHarness.with { harness, client in
            let url = "https://cancel-race.fake"
            let connection = try await harness.link(.alpaca, baseURL: url)
            let placed = try await client.call(.post, "/v1/orders", headers: headers(harness, key: "race-1"), json: body(connection.id))
            let id = try #require(placed.body.dataObject["id"] as? String)
            harness.state.set(url, FakeBrokerBehaviour(holdsCancelAnswer: true))
            async let cancel = client.call(.delete, "/v1/orders/\(id)", headers: harness.auth)
            for await _ in harness.state.canceled { break }
            // The broker has cancelled it and not answered yet: a read (the order watcher's, a client's) sees it.
            let read = try await client.call(.get, "/v1/orders/\(id)", headers: harness.auth)
            #expect(read.body.dataObject["status"] as? String == "canceled")
            harness.state.releaseCancelAnswer()
            let answer = try await cancel
            #expect(answer.status == 200)
            #expect(answer.body.dataObject["status"] as? String == "canceled")
            let kinds = try await eventKinds(client, harness, id)
            #expect(kinds.filter { $0 == "canceled" || $0 == "status_changed" }.count == 1, "\(kinds)")
        }
    }
}
