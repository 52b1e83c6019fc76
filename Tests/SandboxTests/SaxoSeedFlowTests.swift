import Foundation
import Sandbox
import TestWorlds
import Testing

/// The SaxoTraderGO seed app's flow (seeds/004): account summary, watchlists and prices, and positions built with
/// the legacy `trade/v1/orders` endpoint.
@Suite("Saxo sandbox: the seed app's flow", .heavyWorld)
struct SaxoSeedFlowTests {
    /// The seed's order body, verbatim apart from the account key.
    static let seedOrder = """
        {
          "Uic": 16,
          "BuySell": "Buy",
          "AssetType": "FxSpot",
          "Amount": 100000,
          "OrderPrice": 7,
          "OrderType": "Market",
          "OrderRelation": "StandAlone",
          "OrderDuration": {
            "DurationType": "ImmediateOrCancel"
          },
          "AccountKey": "\(SaxoSandboxClient.demoAccountKey)"
        }
        """
    static let toLimit = """
        {"Amount": 100000, "OrderType": "Limit", "OrderDuration": {"DurationType": "GoodTillCancel"}, "AccountKey": "\(SaxoSandboxClient.demoAccountKey)"}
        """
    static let toMarket = """
        {"Amount": 100000, "OrderType": "Market", "OrderDuration": {"DurationType": "ImmediateOrCancel"}, "AccountKey": "\(SaxoSandboxClient.demoAccountKey)"}
        """
    static let netPositionsPath =
        "\(sim)/port/v1/netpositions/?AccountKey=\(saxoAccountKeyQuery)&ClientKey=\(saxoClientKeyQuery)&FieldGroups=DisplayAndFormat,NetPositionBase,NetPositionView"

    @Test("account summary: clients/me gives the keys, balances answers the four figures the app shows")
    func accountSummary() async throws {
        try await withSaxo { client, _, _, _ async throws in
            let me = try await client.get("\(sim)/port/v1/clients/me")
            #expect(me.status == 200)
            #expect(me.object["DefaultAccountId"] as? String == "8496691")
            let clientKey = try #require(me.object["ClientKey"] as? String)
            let accountKey = try #require(me.object["DefaultAccountKey"] as? String)
            #expect(clientKey.contains("+") && clientKey.contains("/") && clientKey.hasSuffix("=="))
            let balances = try await client.get(
                "\(sim)/port/v1/balances/?AccountKey=\(saxoQueryEncode(accountKey))&ClientKey=\(saxoQueryEncode(clientKey))"
            )
            #expect(balances.status == 200)
            let body = balances.object
            #expect(dec(body["CashBalance"]) == 1_000_000)
            #expect(dec(body["TotalValue"]) == 1_000_000)
            #expect(dec(body["MarginAvailableForTrading"]) == 1_000_000)
            #expect(dec(body["MarginUtilizationPct"]) == 0)
            #expect(body["Currency"] as? String == "EUR")
            #expect(body["CashBalance"] is NSNumber, "amounts are JSON numbers")
        }
    }

    @Test("watchlists: the list, the first list's instruments, a price subscription per item (\"Uics\": 18) and a chart")
    func watchlists() async throws {
        try await withSaxo { client, _, _, _ async throws in
            let lists = try await client.get("\(sim)/ref/v1/watchlists")
            #expect(lists.status == 200)
            let first = try #require((lists.object["Data"] as? [[String: Any]])?.first)
            let id = try #require(first["WatchlistId"] as? String)
            #expect(first["Name"] as? String == "FxSpot")

            let detail = try await client.get("\(sim)/ref/v1/watchlists/\(id)")
            #expect(detail.status == 200)
            let items = try #require(detail.object["Instruments"] as? [[String: Any]])
            #expect(items.map { $0["Uic"] as? Int } == [16, 18, 21, 31, 42])
            #expect(items.allSatisfy { $0["AssetType"] as? String == "FxSpot" })

            let subscription = try await client.post(
                "\(sim)/trade/v1/prices/subscriptions",
                """
                {"Arguments": {"Uics": 18, "AssetType": "FxSpot", "RequireTradableQuote": false,
                  "FieldGroups": ["InstrumentPriceDetails","MarketDepth","PriceInfo","PriceInfoDetails","Quote","DisplayAndFormat"]},
                 "RefreshRate": 500, "ContextId": "random_string", "ReferenceId": "random_string"}
                """
            )
            #expect(subscription.status == 201)
            let snapshot = try #require(subscription.object["Snapshot"] as? [String: Any])
            let display = try #require(snapshot["DisplayAndFormat"] as? [String: Any])
            #expect(display["Symbol"] as? String == "EURJPY")
            #expect(display["Description"] as? String == "Euro/Japanese Yen")
            let quote = try #require(snapshot["Quote"] as? [String: Any])
            let priceInfo = try #require(snapshot["PriceInfo"] as? [String: Any])
            let details = try #require(snapshot["PriceInfoDetails"] as? [String: Any])
            #expect(dec(quote["Bid"])! < dec(quote["Ask"])!)
            for key in ["High", "Low", "NetChange", "PercentChange"] { #expect(priceInfo[key] is NSNumber, "\(key)") }
            #expect(details["Open"] is NSNumber)
            #expect(subscription.object["RefreshRate"] as? Int == 500)
            #expect(subscription.object["State"] as? String == "Active")
            #expect(try await client.delete("\(sim)/trade/v1/prices/subscriptions/random_string/random_string").status == 202)

            let chart = try await client.get("\(sim)/chart/v1/charts/?AssetType=FxSpot&Horizon=1&Uic=18&Count=30")
            #expect(chart.status == 200)
            let bars = try #require(chart.object["Data"] as? [[String: Any]])
            #expect(bars.count == 30)
            #expect(bars.allSatisfy { $0["OpenBid"] is NSNumber && $0["Time"] is String })
            #expect(chart.object["DataVersion"] is NSNumber)
        }
    }

    @Test("positions, faithful default: the seed's market order fills at once, so changing it is a 404 OrderNotFound")
    func seedOrderFillsImmediately() async throws {
        try await withSaxo { client, _, _, _ async throws in
            let placed = try await client.post("\(sim)/trade/v1/orders", Self.seedOrder)
            #expect(placed.status == 200)
            let orderID = try #require(placed.object["OrderId"] as? String)

            let change = try await client.patch("\(sim)/trade/v1/orders/\(orderID)", Self.toLimit)
            #expect(change.status == 404)
            #expect(change.errorInfo["ErrorCode"] as? String == "OrderNotFound")

            let net = try await client.get(Self.netPositionsPath)
            #expect(net.status == 200)
            let item = try #require((net.object["Data"] as? [[String: Any]])?.first)
            #expect(item["NetPositionId"] as? String == "EURDKK__FxSpot")
            let base = try #require(item["NetPositionBase"] as? [String: Any])
            #expect(dec(base["Amount"]) == 100_000)
        }
    }

    @Test("positions, with execution latency: market → limit → market with PATCH, then the net position the app lists")
    func seedFlowWithLatency() async throws {
        try await withSaxo(configuration: saxoTestConfiguration(executionLatency: 1)) { client, _, _, clock async throws in
            let placed = try await client.post("\(sim)/trade/v1/orders", Self.seedOrder)
            #expect(placed.status == 200)
            let orderID = try #require(placed.object["OrderId"] as? String)
            let working = try await client.get("\(sim)/port/v1/orders/me")
            #expect((working.object["Data"] as? [[String: Any]])?.first?["OpenOrderType"] as? String == "Market")

            let limit = try await client.patch("\(sim)/trade/v1/orders/\(orderID)", Self.toLimit)
            #expect(limit.status == 200)
            #expect(limit.object["OrderId"] as? String == orderID)
            let asLimit = try await client.get("\(sim)/port/v1/orders/\(saxoClientKeyQuery)/\(orderID)")
            let order = try #require((asLimit.object["Data"] as? [[String: Any]])?.first)
            #expect(order["OpenOrderType"] as? String == "Limit")
            #expect(dec(order["Price"]) == 7, "the price the market order carried is kept")
            #expect((order["Duration"] as? [String: Any])?["DurationType"] as? String == "GoodTillCancel")
            #expect(order["Status"] as? String == "Working")
            // A buy limit at 7 sits far below EURDKK (about 7.46): it waits.
            clock.advance(by: 5)
            #expect(try await client.get("\(sim)/port/v1/orders/me").object["__count"] as? Int == 1)

            let market = try await client.patch("\(sim)/trade/v1/orders/\(orderID)", Self.toMarket)
            #expect(market.status == 200)
            clock.advance(by: 1)

            let net = try await client.get(Self.netPositionsPath)
            #expect(net.status == 200)
            #expect(net.object["__count"] as? Int == 1)
            let item = try #require((net.object["Data"] as? [[String: Any]])?.first)
            #expect(item["NetPositionId"] as? String == "EURDKK__FxSpot")
            let display = try #require(item["DisplayAndFormat"] as? [String: Any])
            #expect(display["Symbol"] as? String == "EURDKK")
            #expect(display["Description"] as? String == "Euro/Danish Krone")
            #expect(display["Currency"] as? String == "DKK")
            #expect(display["Decimals"] as? Int == 4)
            #expect(display["Format"] as? String == "AllowDecimalPips")
            let base = try #require(item["NetPositionBase"] as? [String: Any])
            #expect(dec(base["Amount"]) == 100_000)
            #expect(base["Uic"] as? Int == 16)
            #expect(base["AssetType"] as? String == "FxSpot")
            #expect(base["CanBeClosed"] as? Bool == true)
            let view = try #require(item["NetPositionView"] as? [String: Any])
            #expect(view["Status"] as? String == "Open")
            #expect(view["ExposureCurrency"] as? String == "EUR")
            #expect(dec(view["Exposure"]) == 100_000)
            #expect(view["CurrentPriceType"] as? String == "Bid")
            let current = try #require(dec(view["CurrentPrice"]))
            #expect(current > 7 && current < 8)
            #expect(view["ProfitLossOnTrade"] is NSNumber)
            #expect(try await client.get("\(sim)/port/v1/orders/me").object["__count"] as? Int == 0)

            // The balances move with the position: margin used is 3.33 % of the EUR exposure.
            let balances = try await client.get("\(sim)/port/v1/balances?ClientKey=\(saxoClientKeyQuery)&AccountKey=\(saxoAccountKeyQuery)").object
            #expect(dec(balances["MarginUsedByCurrentPositions"]) == -3330)
            #expect(dec(balances["MarginNetExposure"]) == 100_000)
            let total = try #require(dec(balances["TotalValue"]))
            let available = try #require(dec(balances["MarginAvailableForTrading"]))
            #expect(available == total - 3330)
            #expect(balances["NetPositionsCount"] as? Int == 1)
        }
    }
}
