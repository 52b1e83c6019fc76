import Foundation
import Sandbox
import TestWorlds
import Testing

/// Each sandbox started on a state folder, stopped, and started again on the same folder (the same clock and
/// seed, so prices are the same): every resource a client reads is as it was, the logins a gateway stored still
/// work, and the next order gets an id no earlier order had.
@Suite("Sandboxes keep their state across restarts", .heavyWorld)
struct SandboxRestartTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bg-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func market(_ clock: ManualClock) -> MarketEngine {
        MarketEngine(configuration: MarketConfiguration(seed: 7), clock: clock)
    }

    @Test func alpaca() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        let first = try AlpacaSandbox(market: market(clock), stateDirectory: folder)
        #expect(!first.restoredState)
        let provisioned = try first.provisionAccount()
        let (ids, before) = try await withSandbox(first) { url in
            let client = TestClient(base: url)
            let bought = try await client.post("/v2/orders", #"{"symbol":"TSLA","qty":3,"side":"buy","type":"market","time_in_force":"day"}"#)
            #expect(bought.object["status"] as? String == "filled")
            let resting = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":1,"side":"buy","type":"limit","limit_price":"1.00","time_in_force":"gtc","client_order_id":"keep-me"}"#
            )
            #expect(resting.status == 200)
            _ = try await client.post("/v2/watchlists", #"{"name":"Kept","symbols":["TSLA"]}"#)
            let ids = [bought, resting].compactMap { $0.object["id"] as? String }
            return (ids, try await Self.alpacaReads(client))
        }
        let second = try AlpacaSandbox(market: market(clock), stateDirectory: folder)
        #expect(second.restoredState)
        #expect(second.accepts(keyID: provisioned.keyID, secretKey: provisioned.secretKey))
        try await withSandbox(second) { url in
            let client = TestClient(base: url)
            let after = try await Self.alpacaReads(client)
            for (path, text) in before { #expect(after[path] == text, "\(path) differs after the restart") }
            #expect(after["/v2/positions/TSLA"]?.contains(#""qty":"3""#) == true)
            // The client order id is still taken; the next order is a new one.
            let again = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":1,"side":"buy","type":"limit","limit_price":"1.00","time_in_force":"gtc","client_order_id":"keep-me"}"#
            )
            #expect(again.status != 200, "\(again.text)")
            let next = try await client.post("/v2/orders", #"{"symbol":"TSLA","qty":1,"side":"buy","type":"market","time_in_force":"day"}"#)
            let nextID = try #require(next.object["id"] as? String)
            #expect(!ids.contains(nextID))
            var other = TestClient(base: url)
            other.headers = [("APCA-API-KEY-ID", provisioned.keyID), ("APCA-API-SECRET-KEY", provisioned.secretKey)]
            #expect(try await other.get("/v2/account").status == 200)
        }
    }

    static func alpacaReads(_ client: TestClient) async throws -> [String: String] {
        var reads: [String: String] = [:]
        for path in ["/v2/account", "/v2/orders?status=all", "/v2/positions", "/v2/positions/TSLA", "/v2/watchlists"] {
            reads[path] = try await client.get(path).text
        }
        return reads
    }

    @Test func saxo() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        let first = try SaxoSandbox(configuration: saxoTestConfiguration(), market: market(clock), stateDirectory: folder)
        #expect(!first.restoredState)
        let pair = first.issueTokens()
        let app = try first.provisionApp()
        let (ids, before) = try await withSandbox(first) { url in
            var client = TestClient(base: url)
            client.headers = [("Authorization", "Bearer \(pair.accessToken)")]
            let filled = try await client.post("\(sim)/trade/v2/orders", saxoOrderBody(amount: "25000", externalReference: "kept-fill"))
            let working = try await client.post(
                "\(sim)/trade/v2/orders",
                saxoOrderBody(uic: 211, assetType: "Stock", amount: "2", orderType: "Limit", price: "1.00")
            )
            let ids = [filled, working].compactMap { $0.object["OrderId"] as? String }
            #expect(ids.count == 2)
            return (ids, try await Self.saxoReads(client))
        }
        let second = try SaxoSandbox(configuration: saxoTestConfiguration(), market: market(clock), stateDirectory: folder)
        #expect(second.restoredState)
        #expect(second.accepts(appKey: SaxoSandboxConfiguration.demoAppKey, refreshToken: pair.refreshToken, accessToken: nil))
        #expect(second.accepts(appKey: app.appKey, refreshToken: app.refreshToken, accessToken: nil))
        try await withSandbox(second) { url in
            // The access token issued before the restart still opens the API.
            var client = TestClient(base: url)
            client.headers = [("Authorization", "Bearer \(pair.accessToken)")]
            let after = try await Self.saxoReads(client)
            for (path, text) in before { #expect(after[path] == text, "\(path) differs after the restart") }
            // The refresh token a gateway stored is still good (and single use, as before).
            var anonymous = TestClient(base: url)
            anonymous.headers = []
            let refreshed = try await SaxoAuthTests.token(anonymous, "grant_type=refresh_token&refresh_token=\(pair.refreshToken)")
            #expect(refreshed.status == 201, "\(refreshed.text)")
            let next = try await client.post("\(sim)/trade/v2/orders", saxoOrderBody(amount: "10000"))
            let nextID = try #require(next.object["OrderId"] as? String)
            #expect(!ids.contains(nextID))
            #expect(ids.allSatisfy { (Int($0) ?? .max) < (Int(nextID) ?? 0) })
        }
    }

    static func saxoReads(_ client: TestClient) async throws -> [String: String] {
        var reads: [String: String] = [:]
        for path in ["port/v1/orders/me", "port/v1/positions/me", "port/v1/netpositions/me", "port/v1/balances/me"] {
            let reply = try await client.get("\(sim)/\(path)")
            #expect(reply.status == 200, "\(path): \(reply.text)")
            reads[path] = reply.text
        }
        return reads
    }

    @Test func tradeIt() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        let first = try TradeItSandbox(market: market(clock), stateDirectory: folder)
        #expect(!first.restoredState)
        let (userId, userToken) = first.link(.dummy)
        let account = TradeItPersona.dummy.accountNumber
        let (token, numbers, before) = try await withSandbox(first) { url in
            var client = TestClient(base: url)
            client.headers = []
            let session = try await client.post(
                "/api/v2/user/authenticate",
                #"{"apiKey":"SANDBOX-TRADEIT-API-KEY","userId":"\#(userId)","userToken":"\#(userToken)"}"#
            )
            let token = try #require(session.object["token"] as? String)
            var numbers: [String] = []
            for (symbol, type, price) in [("AAPL", "market", ""), ("MSFT", "limit", #","orderLimitPrice":"1.00""#)] {
                let preview = try await client.post(
                    "/api/v2/order/previewStockOrEtfOrder",
                    #"{"token":"\#(token)","accountNumber":"\#(account)","orderSymbol":"\#(symbol)","orderAction":"buy","orderQuantity":"2","orderPriceType":"\#(type)","orderExpiration":"gtc"\#(price)}"#
                )
                let orderId = try #require(preview.object["orderId"] as? String, "\(preview.text)")
                let placed = try await client.post("/api/v2/order/placeStockOrEtfOrder", #"{"token":"\#(token)","orderId":"\#(orderId)"}"#)
                numbers.append(try #require(placed.object["orderNumber"] as? String, "\(placed.text)"))
            }
            return (token, numbers, try await Self.tradeItReads(client, token: token, account: account))
        }
        let second = try TradeItSandbox(market: market(clock), stateDirectory: folder)
        #expect(second.restoredState)
        #expect(second.accepts(apiKey: TradeItSandboxConfiguration.demoAPIKey, userId: userId, userToken: userToken))
        try await withSandbox(second) { url in
            var client = TestClient(base: url)
            client.headers = []
            // The session opened before the restart is still open.
            let after = try await Self.tradeItReads(client, token: token, account: account)
            for (path, text) in before { #expect(after[path] == text, "\(path) differs after the restart") }
            let preview = try await client.post(
                "/api/v2/order/previewStockOrEtfOrder",
                #"{"token":"\#(token)","accountNumber":"\#(account)","orderSymbol":"AAPL","orderAction":"buy","orderQuantity":"1","orderPriceType":"market","orderExpiration":"day"}"#
            )
            let orderId = try #require(preview.object["orderId"] as? String, "\(preview.text)")
            let placed = try await client.post("/api/v2/order/placeStockOrEtfOrder", #"{"token":"\#(token)","orderId":"\#(orderId)"}"#)
            let number = try #require(placed.object["orderNumber"] as? String, "\(placed.text)")
            #expect(!numbers.contains(number))
        }
    }

    static func tradeItReads(_ client: TestClient, token: String, account: String) async throws -> [String: String] {
        var reads: [String: String] = [:]
        for path in ["/api/v2/order/getAllOrderStatus", "/api/v2/position/getPositions", "/api/v2/balance/getAccountOverview"] {
            let reply = try await client.post(path, #"{"token":"\#(token)","accountNumber":"\#(account)"}"#)
            #expect(reply.object["status"] as? String == "SUCCESS", "\(path): \(reply.text)")
            reads[path] = reply.text
        }
        return reads
    }

    @Test func tradeOgre() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        let first = try TradeOgreSandbox(market: market(clock), stateDirectory: folder)
        #expect(!first.restoredState)
        let provisioned = try first.provisionAccount()
        let (ids, before) = try await withSandbox(first) { url in
            let client = OgreClient(base: url)
            let (_, ask) = try await client.top("XMR-BTC")
            let resting = try await client.place("buy", "XMR-BTC", quantity: "1.5", price: "0.00010000")
            let taken = try await client.place("buy", "XMR-BTC", quantity: "0.25", price: "\(ask)")
            return ([resting, taken], try await Self.ogreReads(client))
        }
        let second = try TradeOgreSandbox(market: market(clock), stateDirectory: folder)
        #expect(second.restoredState)
        #expect(second.accepts(apiKey: provisioned.apiKey, apiSecret: provisioned.apiSecret))
        try await withSandbox(second) { url in
            let client = OgreClient(base: url)
            let after = try await Self.ogreReads(client)
            for (path, text) in before { #expect(after[path] == text, "\(path) differs after the restart") }
            let order = try await client.get("/account/order/\(ids[0])")
            #expect(order.object["success"] as? Bool == true, "\(order.text)")
            let next = try await client.place("buy", "XMR-BTC", quantity: "1", price: "0.00010000")
            #expect(!ids.contains(next))
        }
    }

    static func ogreReads(_ client: OgreClient) async throws -> [String: String] {
        var reads: [String: String] = [:]
        reads["/account/balances"] = try await client.get("/account/balances").text
        reads["/account/orders"] = try await client.post("/account/orders").text
        reads["/orders/XMR-BTC"] = try await client.get("/orders/XMR-BTC").text
        return reads
    }
}
