import Foundation
import Sandbox
import Testing

@Suite("Saxo sandbox: orders")
struct SaxoOrderTests {
    @Test("ManualOrder is required on trade/v2/orders: 400 with ModelState, nested in ErrorInfo")
    func manualOrderRequired() async throws {
        try await withSaxo { client, _, _, _ async throws in
            let reply = try await client.post("\(sim)/trade/v2/orders", saxoOrderBody(manualOrder: nil))
            #expect(reply.status == 400)
            let info = reply.errorInfo
            #expect(info["ErrorCode"] as? String == "InvalidModelState")
            let modelState = try #require(info["ModelState"] as? [String: [String]])
            #expect(modelState["ManualOrder"]?.isEmpty == false)
            #expect(try await client.get("\(sim)/port/v1/orders/me").object["__count"] as? Int == 0)
        }
    }

    @Test(
        "malformed and wrongly typed bodies are 400s with Saxo's error body, never a crash",
        arguments: [
            "", "{", "[]", "null", "{\"Uic\":\"abc\"}", "{\"Amount\":{}}", "{\"OrderDuration\":5}", "\u{0}\u{1}", String(repeating: "[", count: 500),
            "{\"Uic\":99999999999999999999999,\"AssetType\":\"FxSpot\",\"BuySell\":\"Buy\",\"Amount\":1e400,\"OrderType\":\"Market\",\"ManualOrder\":false}",
        ]
    )
    func badBodies(_ body: String) async throws {
        try await withSaxo { client, _, _, _ async throws in
            for path in ["trade/v2/orders", "trade/v1/orders", "trade/v2/orders/precheck"] {
                let reply = try await client.post("\(sim)/\(path)", body)
                #expect(reply.status == 400, "\(path) \(body)")
                #expect(reply.errorInfo["ErrorCode"] is String, "\(path): \(reply.text)")
            }
            let patch = try await client.patch("\(sim)/trade/v2/orders", body)
            #expect(patch.status == 400)
            let subscription = try await client.post("\(sim)/trade/v1/prices/subscriptions", body)
            #expect(subscription.status == 400)
            #expect(subscription.object["ErrorCode"] as? String == "InvalidModelState")
            #expect(subscription.header("X-Correlation") != nil)
        }
    }

    @Test("an identical order within 15 s is a 409 unless its X-Request-ID differs; X-Request-ID is echoed")
    func duplicateOrders() async throws {
        try await withSaxo { client, _, _, clock async throws in
            let body = saxoOrderBody()
            let first = try await client.post("\(sim)/trade/v2/orders", body)
            #expect(first.status == 200)
            clock.advance(by: 14)
            let repeated = try await client.post("\(sim)/trade/v2/orders", body)
            #expect(repeated.status == 409)
            #expect(repeated.errorInfo["ErrorCode"] as? String == "DuplicateOperation")

            let withID = try await client.send("POST", "\(sim)/trade/v2/orders", body: body, headers: [("X-Request-ID", "req-1")])
            #expect(withID.status == 200)
            #expect(withID.header("X-Request-ID") == "req-1")
            let sameID = try await client.send("POST", "\(sim)/trade/v2/orders", body: body, headers: [("X-Request-ID", "req-1")])
            #expect(sameID.status == 409)
            let otherID = try await client.send("POST", "\(sim)/trade/v2/orders", body: body, headers: [("X-Request-ID", "req-2")])
            #expect(otherID.status == 200)

            clock.advance(by: 15)
            #expect(try await client.post("\(sim)/trade/v2/orders", body).status == 200)
            let net = try await client.get("\(sim)/port/v1/netpositions/me").object
            let amount = ((net["Data"] as? [[String: Any]])?.first?["NetPositionBase"] as? [String: Any])?["Amount"]
            #expect(dec(amount) == 40_000)
        }
    }

    @Test("a limit order rests, is listed with Price/Duration/ExternalReference, and fills when the price crosses")
    func limitOrderFills() async throws {
        try await withSaxo { client, _, sandbox, _ async throws in
            let bid = try #require(sandbox.market.quote(symbol: "EUR/USD")?.bid)
            let limit = bid - Decimal(string: "0.01")!
            let placed = try await client.post(
                "\(sim)/trade/v2/orders",
                saxoOrderBody(amount: "25000", orderType: "Limit", price: "\(limit)", duration: "GoodTillCancel", externalReference: "my-ref")
            )
            #expect(placed.status == 200)
            let orderID = try #require(placed.object["OrderId"] as? String)
            #expect(placed.object["ExternalReference"] as? String == "my-ref")

            let listed = try await client.get("\(sim)/port/v1/orders/me?FieldGroups=DisplayAndFormat,ExchangeInfo")
            let order = try #require((listed.object["Data"] as? [[String: Any]])?.first)
            #expect(order["OrderId"] as? String == orderID)
            #expect(dec(order["Price"]) == limit)
            #expect(order["OrderPrice"] == nil && order["OrderDuration"] == nil, "port/v1/orders says Price and Duration")
            #expect((order["Duration"] as? [String: Any])?["DurationType"] as? String == "GoodTillCancel")
            #expect(order["ExternalReference"] as? String == "my-ref")
            #expect(order["AccountKey"] as? String == SaxoSandboxClient.demoAccountKey)
            #expect((order["DisplayAndFormat"] as? [String: Any])?["Symbol"] as? String == "EURUSD")
            #expect((order["Exchange"] as? [String: Any])?["ExchangeId"] as? String == "SBFX")
            #expect(dec(order["DistanceToMarket"])! > 0)
            #expect(order["FilledAmount"] == nil, "null members are left out")

            try sandbox.market.setPriceOverride(limit - Decimal(string: "0.001")!, for: "EUR/USD")
            let after = try await client.get("\(sim)/port/v1/orders/\(saxoClientKeyQuery)/\(orderID)")
            #expect(after.status == 200)
            #expect((after.object["Data"] as? [Any])?.isEmpty == true)
            let positions = try await client.get("\(sim)/port/v1/positions/me").object
            let position = try #require((positions["Data"] as? [[String: Any]])?.first)
            let base = try #require(position["PositionBase"] as? [String: Any])
            #expect(base["SourceOrderId"] as? String == orderID)
            #expect(dec(base["Amount"]) == 25_000)
            #expect(dec(base["OpenPrice"])! <= limit)
        }
    }

    @Test("PATCH trade/v2/orders changes amount, type and price; PATCH or DELETE of a gone order is 404")
    func changeAndCancel() async throws {
        try await withSaxo { client, _, sandbox, _ async throws in
            let bid = try #require(sandbox.market.quote(symbol: "EUR/USD")?.bid)
            let placed = try await client.post(
                "\(sim)/trade/v2/orders",
                saxoOrderBody(orderType: "Limit", price: "\(bid - Decimal(string: "0.02")!)", duration: "GoodTillCancel")
            )
            let orderID = try #require(placed.object["OrderId"] as? String)
            let newPrice = bid - Decimal(string: "0.03")!
            let change = try await client.patch(
                "\(sim)/trade/v2/orders",
                """
                {"AccountKey":"\(SaxoSandboxClient.demoAccountKey)","OrderId":"\(orderID)","AssetType":"FxSpot","Amount":50000,
                 "OrderType":"Limit","OrderPrice":\(newPrice),"OrderDuration":{"DurationType":"DayOrder"},"ManualOrder":true}
                """
            )
            #expect(change.status == 200)
            #expect(change.object["OrderId"] as? String == orderID)
            let order = try #require((try await client.get("\(sim)/port/v1/orders/me").object["Data"] as? [[String: Any]])?.first)
            #expect(dec(order["Amount"]) == 50_000)
            #expect(dec(order["Price"]) == newPrice)
            #expect((order["Duration"] as? [String: Any])?["DurationType"] as? String == "DayOrder")

            let cancel = try await client.delete("\(sim)/trade/v2/orders/\(orderID)?AccountKey=\(saxoAccountKeyQuery)")
            #expect(cancel.status == 200)
            #expect((cancel.object["Orders"] as? [[String: Any]])?.first?["OrderId"] as? String == orderID)
            let again = try await client.delete("\(sim)/trade/v2/orders/\(orderID)?AccountKey=\(saxoAccountKeyQuery)")
            #expect(again.status == 404)
            #expect(((again.object["Orders"] as? [[String: Any]])?.first?["ErrorInfo"] as? [String: Any])?["ErrorCode"] as? String == "OrderNotFound")
            let patchGone = try await client.patch(
                "\(sim)/trade/v2/orders",
                #"{"AccountKey":"\#(SaxoSandboxClient.demoAccountKey)","OrderId":"\#(orderID)","AssetType":"FxSpot","Amount":1000,"OrderType":"Market","ManualOrder":false}"#
            )
            #expect(patchGone.status == 404)
            #expect(patchGone.errorInfo["ErrorCode"] as? String == "OrderNotFound")
            #expect(try await client.delete("\(sim)/trade/v2/orders/\(orderID)").status == 400, "AccountKey is required")
        }
    }

    @Test("trading checks: unknown instrument, bad amount, off-tick price, stop on the wrong side, short stock, margin")
    func tradingErrors() async throws {
        try await withSaxo { client, _, sandbox, _ async throws in
            let ask = try #require(sandbox.market.quote(symbol: "EUR/USD")?.ask)
            let cases: [(String, String)] = [
                (saxoOrderBody(uic: 999_999), "IllegalInstrumentId"),
                (saxoOrderBody(uic: 21, assetType: "Stock"), "IllegalInstrumentId"),
                (saxoOrderBody(amount: "0"), "IllegalAmount"),
                (saxoOrderBody(amount: "10.5"), "IllegalAmount"),
                (saxoOrderBody(orderType: "Limit", price: "1.000001", duration: "GoodTillCancel"), "PriceNotInTickSizeIncrements"),
                (saxoOrderBody(orderType: "Stop", price: "\(ask - Decimal(string: "0.01")!)", duration: "GoodTillCancel"), "OnWrongSideOfMarket"),
                (saxoOrderBody(uic: 211, assetType: "Stock", buySell: "Sell", amount: "5"), "ShortTradeDisabled"),
                (saxoOrderBody(amount: "1000000000"), "WouldExceedMargin"),
                (saxoOrderBody(uic: 211, assetType: "Stock", amount: "100000"), "WouldExceedMargin"),
            ]
            for (body, code) in cases {
                let reply = try await client.post("\(sim)/trade/v2/orders", body)
                #expect(reply.status == 400, "\(code)")
                #expect(reply.errorInfo["ErrorCode"] as? String == code, "\(reply.text)")
            }
            let missingPrice = try await client.post("\(sim)/trade/v2/orders", saxoOrderBody(orderType: "Limit", duration: "GoodTillCancel"))
            #expect((missingPrice.errorInfo["ModelState"] as? [String: Any])?["OrderPrice"] != nil)
        }
    }

    @Test("precheck answers 200 Ok with the cash estimate, or 200 Error with ErrorInfo; nothing is placed")
    func precheck() async throws {
        try await withSaxo { client, _, _, _ async throws in
            let ok = try await client.post("\(sim)/trade/v2/orders/precheck", saxoOrderBody(amount: "100000"))
            #expect(ok.status == 200)
            #expect(ok.object["PreCheckResult"] as? String == "Ok")
            let estimate = try #require(dec(ok.object["EstimatedCashRequired"]))
            #expect(estimate == 3330, "3.33 % of 100,000 EUR")
            #expect(ok.object["EstimatedCashRequiredCurrency"] as? String == "EUR")
            #expect(ok.object["InstrumentToAccountConversionRate"] is NSNumber)

            let error = try await client.post("\(sim)/trade/v2/orders/precheck", saxoOrderBody(amount: "1000000000"))
            #expect(error.status == 200)
            #expect(error.object["PreCheckResult"] as? String == "Error")
            #expect((error.object["ErrorInfo"] as? [String: Any])?["ErrorCode"] as? String == "WouldExceedMargin")

            // Saxo's own sample prechecks a body with a string amount and no duration or ManualOrder.
            let sample = try await client.post(
                "\(sim)/trade/v2/orders/precheck",
                #"{"AccountKey":"\#(SaxoSandboxClient.demoAccountKey)","Amount":"10000","AssetType":"FxSpot","BuySell":"Buy","OrderType":"Market","Uic":31}"#
            )
            #expect(sample.status == 200)
            #expect(sample.object["PreCheckResult"] as? String == "Ok")
            #expect(try await client.get("\(sim)/port/v1/orders/me").object["__count"] as? Int == 0)
            #expect(try await client.get("\(sim)/port/v1/netpositions/me").object["__count"] as? Int == 0)
        }
    }

    @Test("stock trades are cash trades: buying AAPL lowers cash and adds market value; selling closes the position")
    func stockTrades() async throws {
        try await withSaxo { client, _, _, _ async throws in
            let buy = try await client.post("\(sim)/trade/v2/orders", saxoOrderBody(uic: 211, assetType: "Stock", amount: "10"))
            #expect(buy.status == 200)
            let balances = try await client.get("\(sim)/port/v1/balances/me").object
            let cash = try #require(dec(balances["CashBalance"]))
            let stockValue = try #require(dec(balances["NonMarginPositionsValue"]))
            #expect(cash < 1_000_000 && stockValue > 0)
            let total = try #require(dec(balances["TotalValue"]))
            #expect(abs(total - (cash + stockValue + (dec(balances["UnrealizedMarginProfitLoss"]) ?? 0))) <= Decimal(string: "0.01")!)
            let net = try await client.get("\(sim)/port/v1/netpositions/me?FieldGroups=NetPositionView,DisplayAndFormat").object
            let item = try #require((net["Data"] as? [[String: Any]])?.first)
            #expect(item["NetPositionId"] as? String == "AAPL:xnas__Stock")
            #expect((item["NetPositionView"] as? [String: Any])?["MarketValue"] is NSNumber)
            #expect(item["NetPositionBase"] == nil, "only the asked field groups")

            let sell = try await client.post("\(sim)/trade/v2/orders", saxoOrderBody(uic: 211, assetType: "Stock", buySell: "Sell", amount: "10"))
            #expect(sell.status == 200)
            #expect(try await client.get("\(sim)/port/v1/netpositions/me").object["__count"] as? Int == 0)
        }
    }
}
