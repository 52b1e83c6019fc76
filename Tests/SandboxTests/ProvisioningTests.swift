import Foundation
import Sandbox
import Testing

/// Accounts opened at run time, one per tenant of the gateway, each in its simulator's own dialect: a key pair
/// (Alpaca, TradeOgre), an app with its own client and refresh token (Saxo), an API key whose accounts are its own
/// (TradeIt). Each sees nothing of another account and stops working once released; the demo's never does.
@Suite("Sandboxes: accounts opened at run time")
struct ProvisioningTests {
    @Test func anAlpacaKeyPairReachesItsOwnAccountOnly() async throws {
        try await withAlpaca { demo, sandbox, _ in
            let demoOrder = try await demo.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":"1","side":"buy","type":"limit","limit_price":"1.00","time_in_force":"gtc"}"#
            )
            let demoOrderId = try #require(demoOrder.object["id"] as? String)

            let account = try sandbox.provisionAccount()
            #expect(account.keyID.hasPrefix("PK") && account.keyID.count == 20)
            #expect(account.secretKey.count == 40)
            var mine = demo
            mine.headers = [("APCA-API-KEY-ID", account.keyID), ("APCA-API-SECRET-KEY", account.secretKey)]
            let own = try await mine.get("/v2/account")
            #expect(own.status == 200)
            #expect(own.object["id"] as? String == account.id.uuidString.lowercased())
            #expect(own.object["id"] as? String != (try await demo.get("/v2/account")).object["id"] as? String)
            #expect(try await mine.get("/v2/orders?status=all").array.isEmpty)
            #expect(try await mine.get("/v2/orders/\(demoOrderId)").status == 404)
            #expect(try await mine.delete("/v2/orders/\(demoOrderId)").status == 404)
            #expect(try await demo.get("/v2/orders/\(demoOrderId)").object["status"] as? String != "canceled")
            // It starts as the template says (the demo's holdings by default).
            #expect(try await mine.get("/v2/positions").array.compactMap { $0["symbol"] as? String }.sorted() == ["AAPL", "BTCUSD", "MSFT"])

            sandbox.releaseAccount(keyID: account.keyID)
            #expect(try await mine.get("/v2/account").status == 401)
            sandbox.releaseAccount(keyID: AlpacaSandboxAccount.demoKeyID)
            #expect(try await demo.get("/v2/account").status == 200, "the demo account is never released")
        }
    }

    @Test func aTradeOgreKeyHasItsOwnWalletAndOrders() async throws {
        try await withTradeOgre { demo, sandbox, _ in
            let demoOrder = try await demo.place("buy", "XMR-BTC", quantity: "1", price: "0.00000100")
            let account = try sandbox.provisionAccount()
            var mine = demo
            mine.credentials = (account.apiKey, account.apiSecret)
            #expect(try await mine.balance("BTC").total == TradeOgreSandboxAccount.demo.balances["BTC"])
            let open = try await mine.post("/account/orders")
            #expect(open.array.isEmpty)
            let theirs = try await mine.get("/account/order/\(demoOrder)")
            #expect(theirs.object["success"] as? Bool == false)
            let cancel = try await mine.post("/order/cancel", [("uuid", demoOrder)])
            #expect(cancel.object["success"] as? Bool == false)
            #expect(try await demo.get("/account/order/\(demoOrder)").object["success"] as? Bool != false)

            sandbox.releaseAccount(apiKey: account.apiKey)
            let gone = try await mine.get("/account/balances")
            #expect(gone.object["success"] as? Bool == false)
            #expect(gone.object["error"] as? String == "Must be authorized")
            #expect(try await demo.get("/account/balances").object["success"] as? Bool == true)
        }
    }

    @Test func aSaxoAppSignsInItsOwnClient() async throws {
        try await withSaxo { demo, anonymous, sandbox, _ in
            let placed = try await demo.post("\(sim)/trade/v2/orders", saxoOrderBody(orderType: "Limit", price: "0.5", duration: "GoodTillCancel"))
            let demoOrderId = try #require(placed.object["OrderId"] as? String)

            let app = try sandbox.provisionApp()
            #expect(app.appKey != SaxoSandboxConfiguration.demoAppKey)
            let basic = Data("\(app.appKey):\(app.appSecret)".utf8).base64EncodedString()
            let form = "grant_type=refresh_token&refresh_token=\(app.refreshToken)"
            let token = try await anonymous.send(
                "POST",
                "/token",
                body: form,
                headers: [("Authorization", "Basic \(basic)"), ("Content-Type", "application/x-www-form-urlencoded")]
            )
            #expect(token.status == 201)
            let access = try #require(token.object["access_token"] as? String)
            var mine = anonymous
            mine.headers = [("Authorization", "Bearer \(access)")]
            let client = try await mine.get("\(sim)/port/v1/clients/me")
            #expect(client.object["ClientKey"] as? String == app.clientKey)
            #expect(app.clientKey != SaxoSandboxClient.demoClientKey)
            let accounts = try await mine.get("\(sim)/port/v1/accounts/me")
            #expect((accounts.object["Data"] as? [[String: Any]])?.first?["AccountKey"] as? String == app.accountKey)
            #expect((try await mine.get("\(sim)/port/v1/orders/me").object["Data"] as? [Any])?.isEmpty == true)
            // The demo's order is not this client's to cancel, even with the demo's AccountKey.
            let cancel = try await mine.delete("\(sim)/trade/v2/orders/\(demoOrderId)?AccountKey=\(saxoQueryEncode(app.accountKey))")
            #expect(cancel.status == 404)
            let theirs = try await mine.delete("\(sim)/trade/v2/orders/\(demoOrderId)?AccountKey=\(saxoAccountKeyQuery)")
            #expect(theirs.status == 400)
            #expect((try await demo.get("\(sim)/port/v1/orders/me").object["Data"] as? [Any])?.count == 1)
            // Its refresh token is for its app only: the demo app cannot use it, nor it the demo's bootstrap token.
            let demoBasic = Data("\(SaxoSandboxConfiguration.demoAppKey):\(SaxoSandboxConfiguration.demoAppSecret)".utf8).base64EncodedString()
            let crossed = try await anonymous.send(
                "POST",
                "/token",
                body: form,
                headers: [("Authorization", "Basic \(demoBasic)"), ("Content-Type", "application/x-www-form-urlencoded")]
            )
            #expect(crossed.status == 400)
            let bootstrap = try await anonymous.send(
                "POST",
                "/token",
                body: "grant_type=refresh_token&refresh_token=\(SaxoSandboxConfiguration.demoBootstrapRefreshToken)",
                headers: [("Authorization", "Basic \(basic)"), ("Content-Type", "application/x-www-form-urlencoded")]
            )
            #expect(bootstrap.status == 400)

            sandbox.releaseApp(appKey: app.appKey)
            #expect(try await mine.get("\(sim)/port/v1/clients/me").status == 401)
            sandbox.releaseApp(appKey: SaxoSandboxConfiguration.demoAppKey)
            #expect(try await demo.get("\(sim)/port/v1/clients/me").status == 200, "the demo app is never released")
        }
    }

    @Test func aTradeItKeysUsersTradeInAccountsOfTheirOwn() async throws {
        let sandbox = TradeItSandbox(market: MarketEngine(configuration: MarketConfiguration(seed: 3), clock: ManualClock()))
        try await withSandbox(sandbox) { url in
            var client = TestClient(base: url)
            client.headers = []
            func session(_ apiKey: String) async throws -> (token: String, account: String) {
                let (userId, userToken) = sandbox.link(.dummy, apiKey: apiKey)
                let reply = try await client.post(
                    "/api/v2/user/authenticate",
                    #"{"apiKey":"\#(apiKey)","userId":"\#(userId)","userToken":"\#(userToken)"}"#
                )
                let account = try #require((reply.object["accounts"] as? [[String: Any]])?.first?["accountNumber"] as? String)
                return (try #require(reply.object["token"] as? String), account)
            }
            let demo = try await session(TradeItSandboxConfiguration.demoAPIKey)
            #expect(demo.account == TradeItPersona.dummy.accountNumber)
            let preview = try await client.post(
                "/api/v2/order/previewStockOrEtfOrder",
                #"{"token":"\#(demo.token)","accountNumber":"\#(demo.account)","orderSymbol":"AAPL","orderAction":"buy","orderQuantity":"1","orderPriceType":"limit","orderLimitPrice":"1","orderExpiration":"gtc"}"#
            )
            let previewId = try #require(preview.object["orderId"] as? String)
            let placed = try await client.post("/api/v2/order/placeStockOrEtfOrder", #"{"token":"\#(demo.token)","orderId":"\#(previewId)"}"#)
            let demoOrder = try #require(placed.object["orderNumber"] as? String)

            let key = try sandbox.provisionAPIKey()
            #expect(try await client.post("/api/v2/preference/getBrokerList", #"{"apiKey":"\#(key)"}"#).object["status"] as? String == "SUCCESS")
            let mine = try await session(key)
            #expect(mine.account != demo.account)
            #expect(mine.account == sandbox.accountNumber(apiKey: key, persona: .dummy))
            // The demo's account is not this session's, and its orders are not in this account.
            let theirs = try await client.post(
                "/api/v2/order/getAllOrderStatus",
                #"{"token":"\#(mine.token)","accountNumber":"\#(demo.account)"}"#
            )
            #expect(theirs.object["status"] as? String == "ERROR")
            let own = try await client.post(
                "/api/v2/order/getAllOrderStatus",
                #"{"token":"\#(mine.token)","accountNumber":"\#(mine.account)"}"#
            )
            #expect((own.object["orderStatusDetailsList"] as? [Any])?.isEmpty != false)
            let cancel = try await client.post(
                "/api/v2/order/cancelOrder",
                #"{"token":"\#(mine.token)","accountNumber":"\#(mine.account)","orderNumber":"\#(demoOrder)"}"#
            )
            #expect(cancel.object["status"] as? String != "SUCCESS")

            sandbox.releaseAPIKey(key)
            let gone = try await client.post("/api/v2/preference/getBrokerList", #"{"apiKey":"\#(key)"}"#)
            #expect(gone.object["status"] as? String == "ERROR")
            let lapsed = try await client.post("/api/v2/user/keepSessionAlive", #"{"token":"\#(mine.token)"}"#)
            #expect(lapsed.object["code"] as? Int == 600)
        }
    }
}
