import Foundation
import Sandbox
import Testing

@Suite("TradeIt sandbox")
struct TradeItSandboxTests {
    func withTradeItSandbox(_ body: (TestClient, TradeItSandbox, ManualClock) async throws -> Void) async throws {
        let clock = ManualClock()
        let sandbox = TradeItSandbox(
            configuration: TradeItSandboxConfiguration(sessionLifetime: 60, positionsPageSize: 2),
            market: MarketEngine(configuration: MarketConfiguration(seed: 3), clock: clock)
        )
        try await withSandbox(sandbox) { url in
            var client = TestClient(base: url)
            client.headers = []
            try await body(client, sandbox, clock)
        }
    }

    func session(_ client: TestClient, _ sandbox: TradeItSandbox) async throws -> String {
        let (userId, userToken) = sandbox.link(.dummy)
        let reply = try await client.post(
            "/api/v2/user/authenticate",
            #"{"apiKey":"SANDBOX-TRADEIT-API-KEY","userId":"\#(userId)","userToken":"\#(userToken)"}"#
        )
        return try #require(reply.object["token"] as? String)
    }

    @Test("bad input: non-JSON is HTTP 400, missing fields are code 500 in a 200 body, unknown paths are not 500")
    func badInput() async throws {
        try await withTradeItSandbox { client, _, _ in
            let garbage = try await client.post("/api/v2/user/authenticate", "not json")
            #expect(garbage.status == 400)
            #expect(garbage.object["code"] as? Int == 500)
            let missing = try await client.post("/api/v2/user/authenticate", "{}")
            #expect(missing.status == 200)
            #expect(missing.object["status"] as? String == "ERROR")
            #expect(missing.object["code"] as? Int == 500)
            let wrongType = try await client.post("/api/v2/order/previewStockOrEtfOrder", #"{"token":[1],"orderQuantity":{}}"#)
            #expect(wrongType.status == 200)
            let unknown = try await client.post("/api/v2/nope", "{}")
            #expect(unknown.status == 404)
        }
    }

    @Test("sessions lapse on the sandbox clock (code 600); keepSessionAlive extends them")
    func sessionLifetime() async throws {
        try await withTradeItSandbox { client, sandbox, clock in
            let token = try await session(client, sandbox)
            let account = TradeItPersona.dummy.accountNumber
            let body = #"{"token":"\#(token)","accountNumber":"\#(account)"}"#
            #expect(try await client.post("/api/v2/balance/getAccountOverview", body).object["status"] as? String == "SUCCESS")
            clock.advance(by: 50)
            #expect(try await client.post("/api/v2/user/keepSessionAlive", #"{"token":"\#(token)"}"#).object["status"] as? String == "SUCCESS")
            clock.advance(by: 50)
            #expect(try await client.post("/api/v2/balance/getAccountOverview", body).object["status"] as? String == "SUCCESS")
            clock.advance(by: 61)
            let expired = try await client.post("/api/v2/balance/getAccountOverview", body)
            #expect(expired.object["code"] as? Int == 600)
        }
    }

    @Test("v1 account overview has its fields at top level; positions page 0-based; a stale orderId cannot be placed")
    func shapes() async throws {
        try await withTradeItSandbox { client, sandbox, clock in
            let token = try await session(client, sandbox)
            let account = TradeItPersona.dummy.accountNumber
            let v1 = try await client.post("/api/v1/balance/getAccountOverview", #"{"token":"\#(token)","accountNumber":"\#(account)"}"#)
            #expect(v1.object["totalValue"] != nil)
            #expect(v1.object["accountOverview"] == nil)
            let page0 = try await client.post("/api/v2/position/getPositions", #"{"token":"\#(token)","accountNumber":"\#(account)","page":0}"#)
            #expect(page0.object["currentPage"] as? Int == 0)
            #expect(page0.object["totalPages"] as? Int == 2)
            #expect((page0.object["positions"] as? [Any])?.count == 2)
            let page1 = try await client.post("/api/v2/position/getPositions", #"{"token":"\#(token)","accountNumber":"\#(account)","page":"1"}"#)
            #expect((page1.object["positions"] as? [Any])?.count == 1)
            let preview = try await client.post(
                "/api/v2/order/previewStockOrEtfOrder",
                #"{"token":"\#(token)","accountNumber":"\#(account)","orderSymbol":"AAPL","orderAction":"buy","orderQuantity":"1","orderPriceType":"market","orderExpiration":"day"}"#
            )
            #expect(preview.object["status"] as? String == "REVIEW_ORDER")
            let orderId = try #require(preview.object["orderId"] as? String)
            clock.advance(by: 30)
            _ = try await client.post("/api/v2/user/keepSessionAlive", #"{"token":"\#(token)"}"#)
            clock.advance(by: 30)
            _ = try await client.post("/api/v2/user/keepSessionAlive", #"{"token":"\#(token)"}"#)
            clock.advance(by: 30)
            _ = try await client.post("/api/v2/user/keepSessionAlive", #"{"token":"\#(token)"}"#)
            // 90 s is within the 5-minute preview lifetime: this one places.
            let placed = try await client.post("/api/v2/order/placeStockOrEtfOrder", #"{"token":"\#(token)","orderId":"\#(orderId)"}"#)
            #expect(placed.object["orderNumber"] is String)
            let again = try await client.post("/api/v2/order/placeStockOrEtfOrder", #"{"token":"\#(token)","orderId":"\#(orderId)"}"#)
            #expect(again.object["code"] as? Int == 500)
        }
    }
}
