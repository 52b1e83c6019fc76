import Foundation
import GatewayAPI
import GatewayModel
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Sandbox
import Testing

/// Issue 15, item 3 through /v1 against the Alpaca sandbox: a dollar-amount order placed, filled and read back with
/// its notional and Alpaca's times; a change that shows the replace chain.
extension AlpacaEndToEndTests {
    func account(_ client: any TestClientProtocol, _ world: World) async throws -> String {
        let accounts = try await call(client, .get, "/v1/accounts", world)
        return try #require((accounts.body["data"] as? [[String: Any]])?.first?["id"] as? String)
    }

    func post(
        _ client: any TestClientProtocol,
        _ world: World,
        key: String,
        _ json: String
    ) async throws
        -> (status: Int, body: [String: Any])
    {
        var headers = world.auth
        headers[HTTPField.Name("Idempotency-Key")!] = key
        return try await client.execute(uri: "/v1/orders", method: .post, headers: headers, body: ByteBuffer(string: json)) {
            response in
            let data = Data(response.body.readableBytesView)
            return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
        }
    }

    func date(_ value: Any?) -> Date? {
        (value as? String).flatMap(APIJSON.parseTimestamp)
    }

    @Test func aNotionalOrderFillsAndReadsBackWithItsNotionalAndTimes() async throws {
        try await withWorld { world, client in
            let connection = try await link(client, world)
            let accountId = try await account(client, world)
            let body = """
                {"connectionId":"\(connection)","accountId":"\(accountId)","symbol":"AAPL","side":"buy","type":"market",
                 "timeInForce":"day","notional":"500"}
                """
            // A preview costs what the order names.
            let preview = try await call(client, .post, "/v1/orders/preview", world, json: body)
            #expect(preview.status == 200, "\(preview.body)")
            let previewed = try #require(preview.body["data"] as? [String: Any])
            #expect(previewed["estimatedCost"] as? String == "500")
            #expect((previewed["request"] as? [String: Any])?["notional"] as? String == "500")

            let placed = try await post(client, world, key: "notional-1", body)
            #expect(placed.status == 201)
            let order = try #require(placed.body["data"] as? [String: Any])
            let id = try #require(order["id"] as? String)
            #expect(order["notional"] as? String == "500")

            let read = try await call(client, .get, "/v1/orders/\(id)", world)
            #expect(read.status == 200)
            let filled = try #require(read.body["data"] as? [String: Any])
            #expect(filled["status"] as? String == "filled")
            #expect(filled["notional"] as? String == "500")
            let quantity = try #require(DecimalText.parse(filled["quantity"] as? String ?? ""))
            let price = try #require(DecimalText.parse(filled["averageFillPrice"] as? String ?? ""))
            #expect(quantity > 0)
            #expect(DecimalText.parse(filled["filledQuantity"] as? String ?? "") == quantity)
            // The units bought are worth the notional, to the sandbox's rounding of the quantity (9 decimals, down).
            #expect(quantity * price <= 500 && 500 - quantity * price < price / 1_000_000_000 + Decimal(string: "0.000001")!)
            let submittedAt = try #require(date(filled["submittedAt"]))
            let filledAt = try #require(date(filled["filledAt"]))
            #expect(submittedAt <= filledAt)
            #expect(filled["canceledAt"] == nil && filled["expiredAt"] == nil)

            // The broker has a notional order, not a quantity.
            let brokerId = try #require(filled["brokerOrderId"] as? String)
            let atBroker = try #require(try await sandboxGET(world, "/v2/orders/\(brokerId)") as? [String: Any])
            #expect(atBroker["notional"] as? String == "500")
            #expect(atBroker["qty"] is NSNull)

            // The same key with another amount is a different order: a conflict, and nothing more is placed.
            let repeated = try await post(client, world, key: "notional-1", body)
            #expect(repeated.status == 201)
            #expect((repeated.body["data"] as? [String: Any])?["id"] as? String == id)
            let other = try await post(client, world, key: "notional-1", body.replacingOccurrences(of: "\"500\"", with: "\"501\""))
            #expect(other.status == 409)
        }
    }

    @Test func aNotionalOrderAlpacaWouldRefuseIsRefusedNamingTheField() async throws {
        try await withWorld { world, client in
            let connection = try await link(client, world)
            let accountId = try await account(client, world)
            func refusal(_ fields: String) async throws -> (Int, [String]) {
                let answer = try await post(
                    client,
                    world,
                    key: UUID().uuidString,
                    """
                    {"connectionId":"\(connection)","accountId":"\(accountId)","symbol":"AAPL","side":"buy",\(fields)}
                    """
                )
                let details = (answer.body["error"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
                return (answer.status, details.compactMap { $0["field"] as? String })
            }
            // A limit order sized in money.
            var (status, fields) = try await refusal(#""type":"limit","limitPrice":"1","notional":"500""#)
            #expect(status == 422 && fields == ["notional"])
            // Both sizes, or neither.
            (status, fields) = try await refusal(#""type":"market","quantity":"1","notional":"500""#)
            #expect(status == 422 && fields == ["notional"])
            (status, fields) = try await refusal(#""type":"market""#)
            #expect(status == 422 && fields == ["quantity"])
            // An equity notional order that is not a day order.
            (status, fields) = try await refusal(#""type":"market","timeInForce":"gtc","notional":"500""#)
            #expect(status == 422 && fields == ["timeInForce"])
        }
    }

    @Test func aChangeShowsTheReplaceChain() async throws {
        try await withWorld { world, client in
            let connection = try await link(client, world)
            let accountId = try await account(client, world)
            let quotes = try await call(client, .get, "/v1/quotes?symbols=AAPL", world)
            let ask = try #require(DecimalText.parse(((quotes.body["data"] as? [[String: Any]])?.first?["ask"] as? String) ?? ""))
            let placed = try await post(
                client,
                world,
                key: "chain-1",
                """
                {"connectionId":"\(connection)","accountId":"\(accountId)","symbol":"AAPL","side":"buy","type":"limit",
                 "timeInForce":"day","quantity":"1","limitPrice":"\(DecimalText.format(ask / 2, scale: 2))"}
                """
            )
            #expect(placed.status == 201)
            let order = try #require(placed.body["data"] as? [String: Any])
            let id = try #require(order["id"] as? String)
            let first = try #require(order["brokerOrderId"] as? String)
            #expect(order["replaces"] == nil && order["replacedBy"] == nil)
            #expect(date(order["submittedAt"]) != nil)

            let changed = try await call(
                client,
                .patch,
                "/v1/orders/\(id)",
                world,
                json: #"{"quantity":"2"}"#
            )
            #expect(changed.status == 200)
            let replacement = try #require(changed.body["data"] as? [String: Any])
            #expect(replacement["id"] as? String == id)
            let second = try #require(replacement["brokerOrderId"] as? String)
            #expect(second != first)
            #expect(replacement["replaces"] as? String == first)

            // Read again through the gateway's id: the replacement, naming the order it replaced.
            let read = try #require(try await call(client, .get, "/v1/orders/\(id)", world).body["data"] as? [String: Any])
            #expect(read["brokerOrderId"] as? String == second)
            #expect(read["replaces"] as? String == first)
            // The replaced order, listed among all orders, names its replacement.
            let all = try await call(client, .get, "/v1/orders?status=all", world)
            let old = try #require((all.body["data"] as? [[String: Any]])?.first { $0["brokerOrderId"] as? String == first })
            #expect(old["status"] as? String == "replaced")
            #expect(old["replacedBy"] as? String == second)

            // A canceled order says when.
            let canceled = try await call(client, .delete, "/v1/orders/\(id)", world)
            #expect(canceled.status == 200)
            let afterCancel = try #require(try await call(client, .get, "/v1/orders/\(id)", world).body["data"] as? [String: Any])
            #expect(afterCancel["status"] as? String == "canceled")
            #expect(date(afterCancel["canceledAt"]) != nil)
        }
    }
}
