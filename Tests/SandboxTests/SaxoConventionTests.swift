import Foundation
import Sandbox
import Testing

@Suite("Saxo sandbox: conventions")
struct SaxoConventionTests {
    @Test("ClientKey/AccountKey must be percent-encoded in queries; a raw '+' arrives as a space and is refused")
    func percentEncodedKeys() async throws {
        try await withSaxo { client, _, _, _ async throws in
            #expect(try await client.get("\(sim)/port/v1/balances?ClientKey=\(saxoClientKeyQuery)&AccountKey=\(saxoAccountKeyQuery)").status == 200)
            let raw = SaxoSandboxClient.demoClientKey  // contains '+', '/' and '='
            let refused = try await client.get("\(sim)/port/v1/balances?ClientKey=\(raw)")
            #expect(refused.status == 400)
            #expect(refused.object["ErrorCode"] as? String == "InvalidModelState")
            #expect((refused.object["ModelState"] as? [String: Any])?["ClientKey"] != nil)
            let missing = try await client.get("\(sim)/port/v1/netpositions")
            #expect(missing.status == 400)
            #expect((missing.object["ModelState"] as? [String: Any])?["ClientKey"] != nil)
            let wrongAccount = try await client.get(
                "\(sim)/port/v1/positions?ClientKey=\(saxoClientKeyQuery)&AccountKey=\(saxoQueryEncode("AAAA+BBBB/CC=="))"
            )
            #expect(wrongAccount.status == 400)
        }
    }

    @Test("a ClientKey with '/' works in a path whether or not the client encoded it (saxo_openapi does not)")
    func keysInPaths() async throws {
        try await withSaxo { client, _, sandbox, _ async throws in
            let bid = try #require(sandbox.market.quote(symbol: "EUR/USD")?.bid)
            let placed = try await client.post(
                "\(sim)/trade/v2/orders",
                saxoOrderBody(orderType: "Limit", price: "\(bid - Decimal(string: "0.05")!)", duration: "GoodTillCancel")
            )
            let orderID = try #require(placed.object["OrderId"] as? String)
            for key in [saxoClientKeyQuery, SaxoSandboxClient.demoClientKey] {
                let reply = try await client.get("\(sim)/port/v1/orders/\(key)/\(orderID)/")
                #expect(reply.status == 200, "\(key)")
                #expect((reply.object["Data"] as? [[String: Any]])?.first?["OrderId"] as? String == orderID)
            }
            #expect(try await client.get("\(sim)/port/v1/accounts/\(SaxoSandboxClient.demoAccountKey)").status == 200)
            #expect(try await client.get("\(sim)/PORT/V1/Clients/Me").status == 200, "routes are case-insensitive")
        }
    }

    @Test("list envelope: __count, Data and an absolute __next built from $top/$skip; bad $top is a ModelState 400")
    func envelopePaging() async throws {
        try await withSaxo { client, _, sandbox, _ async throws in
            let bid = try #require(sandbox.market.quote(symbol: "EUR/USD")?.bid)
            var ids: [String] = []
            for offset in 1...3 {
                let price = bid - Decimal(offset) * Decimal(string: "0.01")!
                let reply = try await client.post(
                    "\(sim)/trade/v2/orders",
                    saxoOrderBody(orderType: "Limit", price: "\(price)", duration: "GoodTillCancel")
                )
                ids.append(try #require(reply.object["OrderId"] as? String))
            }
            var seen: [String] = []
            var path: String? = "\(sim)/port/v1/orders/me?$top=2&FieldGroups=DisplayAndFormat"
            while let next = path {
                let page = try await client.get(next)
                #expect(page.status == 200)
                #expect(page.object["__count"] as? Int == 3)
                let data = try #require(page.object["Data"] as? [[String: Any]])
                #expect(data.allSatisfy { $0["DisplayAndFormat"] != nil }, "other parameters survive into __next")
                seen += data.compactMap { $0["OrderId"] as? String }
                if let url = page.object["__next"] as? String {
                    #expect(url.hasPrefix(client.base.absoluteString))
                    #expect(url.contains("$skip=2"))
                    path = String(url.dropFirst(client.base.absoluteString.count))
                } else {
                    path = nil
                }
            }
            #expect(seen == ids)
            #expect(try await client.get("\(sim)/port/v1/orders/me?$skip=5").object["Data"] as? [Any] != nil)
            let bad = try await client.get("\(sim)/port/v1/orders/me?$top=2s")
            #expect(bad.status == 400)
            #expect((bad.object["ModelState"] as? [String: [String]])?["$top"] == ["Invalid $top query parameter value: 2s"])
            // Instruments: __count only when asked.
            let instruments = try await client.get("\(sim)/ref/v1/instruments?AssetTypes=FxSpot&$top=1&$inlinecount=AllPages")
            #expect((instruments.object["Data"] as? [Any])?.count == 1)
            #expect((instruments.object["__count"] as? Int ?? 0) > 1)
            #expect(instruments.object["__next"] is String)
            #expect(try await client.get("\(sim)/ref/v1/instruments?AssetTypes=FxSpot").object["__count"] == nil)
        }
    }

    @Test("responses carry X-Correlation; null members are omitted; unknown routes are Saxo 404s")
    func headersAndShapes() async throws {
        try await withSaxo { client, _, _, _ async throws in
            let me = try await client.get("\(sim)/port/v1/users/me")
            #expect(me.header("X-Correlation")?.isEmpty == false)
            #expect(!me.text.contains("null"))
            let accounts = try await client.get("\(sim)/port/v1/accounts/me")
            let account = try #require((accounts.object["Data"] as? [[String: Any]])?.first)
            #expect(account["AccountKey"] as? String == SaxoSandboxClient.demoAccountKey)
            #expect(account["ClientKey"] as? String == SaxoSandboxClient.demoClientKey)
            let missing = try await client.get("\(sim)/port/v1/nothing-here")
            #expect(missing.status == 404)
            #expect(missing.object["ErrorCode"] as? String == "NotFound")
            #expect(try await client.get("/openapi/port/v1/clients/me").status == 200, "the LIVE path prefix works too")
        }
    }

    @Test("instruments: search by keyword, asset type and Uics; details; infoprices and infoprices/list")
    func referenceDataAndPrices() async throws {
        try await withSaxo { client, _, _, _ async throws in
            let eur = try await client.get("\(sim)/ref/v1/instruments/?Keywords=EUR&AssetTypes=FxSpot")
            let symbols = (eur.object["Data"] as? [[String: Any]] ?? []).compactMap { $0["Symbol"] as? String }
            #expect(symbols == ["EURDKK", "EURGBP", "EURJPY", "EURUSD"])
            let byUic = try await client.get("\(sim)/ref/v1/instruments?Uics=16,211")
            let items = byUic.object["Data"] as? [[String: Any]] ?? []
            #expect(items.map { $0["Identifier"] as? Int } == [16, 211])
            #expect(items.last?["Symbol"] as? String == "AAPL:xnas")
            #expect(items.last?["AssetType"] as? String == "Stock")
            #expect(try await client.get("\(sim)/ref/v1/instruments?Uics=abc").status == 400)

            let details = try await client.get("\(sim)/ref/v1/instruments/details/16/FxSpot")
            #expect(details.object["Symbol"] as? String == "EURDKK")
            #expect(dec(details.object["TickSize"]) == Decimal(string: "0.00001"))
            #expect(try await client.get("\(sim)/ref/v1/instruments/details/16/Stock").status == 404)

            let info = try await client.get(
                "\(sim)/trade/v1/infoprices?Uic=21&AssetType=FxSpot&FieldGroups=Quote,PriceInfo,DisplayAndFormat,HistoricalChanges"
            )
            #expect(info.status == 200)
            let quote = try #require(info.object["Quote"] as? [String: Any])
            #expect(quote["ErrorCode"] as? String == "None")
            #expect(quote["PriceTypeBid"] as? String == "Tradable")
            #expect(dec(quote["Amount"]) == 100_000)
            #expect((info.object["HistoricalChanges"] as? [String: Any])?["PercentChangeWeekly"] is NSNumber)
            let list = try await client.get("\(sim)/trade/v1/infoprices/list?Uics=21,16&AssetType=FxSpot")
            #expect((list.object["Data"] as? [[String: Any]])?.map { $0["Uic"] as? Int } == [21, 16])
            #expect(try await client.get("\(sim)/trade/v1/infoprices?Uic=21").status == 400)
        }
    }

    @Test("charts: v1 and v3 shapes, Count/Mode/Time, stock bars, validation")
    func charts() async throws {
        try await withSaxo { client, _, sandbox, clock async throws in
            let v3 = try await client.get(
                "\(sim)/chart/v3/charts?AssetType=FxSpot&Uic=21&Horizon=60&Count=5&FieldGroups=ChartInfo,Data,DisplayAndFormat"
            )
            #expect(v3.status == 200)
            let bars = try #require(v3.object["Data"] as? [[String: Any]])
            #expect(bars.count == 5)
            let info = try #require(v3.object["ChartInfo"] as? [String: Any])
            #expect(info["Horizon"] as? Int == 60)
            #expect(info["FirstSampleTime"] as? String == bars.first?["Time"] as? String)
            #expect(v3.object["DisplayAndFormat"] != nil)
            for bar in bars {
                let low = try #require(dec(bar["LowBid"]))
                let high = try #require(dec(bar["HighBid"]))
                #expect(low <= dec(bar["OpenBid"])! && dec(bar["OpenBid"])! <= high)
                #expect(low <= dec(bar["CloseBid"])! && dec(bar["CloseBid"])! <= high)
                #expect(dec(bar["CloseBid"])! < dec(bar["CloseAsk"])!)
            }
            #expect(bars.last?["Time"] as? String == "2025-01-06T15:00:00.000000Z", "the bar in progress comes last")

            let from = try await client.get("\(sim)/chart/v1/charts?AssetType=FxSpot&Uic=21&Horizon=1&Mode=From&Time=2025-01-06T14:58:00Z&Count=100")
            #expect((from.object["Data"] as? [Any])?.count == 3)
            let upTo = try await client.get("\(sim)/chart/v1/charts?AssetType=FxSpot&Uic=21&Horizon=1&Mode=UpTo&Time=2025-01-06T14:00:00Z&Count=2")
            #expect((upTo.object["Data"] as? [[String: Any]])?.last?["Time"] as? String == "2025-01-06T14:00:00.000000Z")
            #expect(upTo.object["ChartInfo"] == nil, "chart/v1 has no ChartInfo")

            let stock = try await client.get("\(sim)/chart/v3/charts?AssetType=Stock&Uic=211&Horizon=1440&Count=3")
            let stockBar = try #require((stock.object["Data"] as? [[String: Any]])?.first)
            for key in ["Open", "High", "Low", "Close", "Volume", "Interest", "Time"] { #expect(stockBar[key] != nil, "\(key)") }

            for bad in ["Horizon=7", "Horizon=60&Count=5000", "Horizon=60&Mode=From", "Horizon=60&Time=yesterday"] {
                #expect(try await client.get("\(sim)/chart/v3/charts?AssetType=FxSpot&Uic=21&\(bad)").status == 400, "\(bad)")
            }
            // An hour later the bar in progress is the next one.
            clock.advance(by: 3600)
            var fresh = client
            fresh.headers = [("Authorization", "Bearer \(sandbox.issueTokens().accessToken)")]
            let later = try await fresh.get("\(sim)/chart/v3/charts?AssetType=FxSpot&Uic=21&Horizon=60&Count=2")
            #expect(
                (later.object["Data"] as? [[String: Any]])?.map { $0["Time"] as? String } == [
                    "2025-01-06T15:00:00.000000Z", "2025-01-06T16:00:00.000000Z",
                ]
            )
        }
    }
}

extension SaxoConventionTests {
    @Test("hostile query strings and path segments are 4xx answers, never a crash or a 500")
    func hostileQueries() async throws {
        try await withSaxo { client, _, _, _ async throws in
            let values = ["", "-1", "9223372036854775807", "-9223372036854775808", "99999999999999999999999", "1e400", "%ZZ", "%00", "abc", "NaN"]
            let templates = [
                "port/v1/orders/me?$top=V", "port/v1/orders/me?$skip=V", "port/v1/netpositions/me?$skip=V&$top=V",
                "port/v1/balances?ClientKey=V", "port/v1/netpositions?ClientKey=V&FieldGroups=V",
                "ref/v1/instruments?Uics=V&AssetTypes=V&Keywords=V", "ref/v1/instruments/details/V/V", "ref/v1/watchlists/V",
                "trade/v1/infoprices?Uic=V&AssetType=FxSpot&Amount=V", "trade/v1/infoprices/list?Uics=V&AssetType=V",
                "chart/v3/charts?AssetType=FxSpot&Uic=21&Horizon=1&Count=V", "chart/v1/charts?AssetType=FxSpot&Uic=V&Horizon=V&Mode=From&Time=V",
                "chart/v3/charts?AssetType=FxSpot&Uic=21&Horizon=1&Mode=UpTo&Time=0001-01-01T00:00:00Z&Count=V",
                "port/v1/orders/V/V", "port/v1/positions/V?ClientKey=V", "port/v1/netpositions/V?ClientKey=V",
            ]
            for template in templates {
                for value in values {
                    let path = "\(sim)/" + template.replacingOccurrences(of: "V", with: value)
                    let reply = try await client.get(path)
                    #expect(reply.status < 500, "\(path) answered \(reply.status): \(reply.text)")
                }
            }
            for value in values {
                let body =
                    #"{"Uic":"\#(value)","AssetType":"FxSpot","BuySell":"Buy","Amount":"\#(value)","OrderType":"Limit","OrderPrice":"\#(value)","OrderDuration":{"DurationType":"GoodTillDate","ExpirationDateTime":"\#(value)"},"ManualOrder":false}"#
                #expect(try await client.post("\(sim)/trade/v2/orders", body).status == 400)
                #expect(try await client.delete("\(sim)/trade/v2/orders/\(value)?AccountKey=\(value)").status < 500)
            }
        }
    }
}

@Suite("Saxo sandbox: rate limits")
struct SaxoRateLimitTests {
    @Test("past the per-minute session limit of a service group: 429 with X-RateLimit-Session-* until the window resets")
    func sessionLimit() async throws {
        try await withSaxo(configuration: saxoTestConfiguration(sessionRequestsPerMinute: 3)) { client, _, _, clock async throws in
            for remaining in [2, 1, 0] {
                let reply = try await client.get("\(sim)/port/v1/clients/me")
                #expect(reply.status == 200)
                #expect(reply.header("X-RateLimit-Session-Limit") == "3")
                #expect(reply.header("X-RateLimit-Session-Remaining") == String(remaining))
            }
            let limited = try await client.get("\(sim)/port/v1/users/me")
            #expect(limited.status == 429)
            #expect(limited.object["ErrorCode"] as? String == "RateLimitExceeded")
            #expect(limited.header("X-RateLimit-Session-Remaining") == "0")
            #expect(limited.header("X-RateLimit-Session-Reset") == "60")
            #expect(limited.header("X-RateLimit-AppDay-Limit") == "10000000")
            // Another service group has its own budget.
            #expect(try await client.get("\(sim)/ref/v1/instruments").status == 200)
            clock.advance(by: 30)
            #expect(try await client.get("\(sim)/port/v1/users/me").header("X-RateLimit-Session-Reset") == "30")
            clock.advance(by: 30)
            #expect(try await client.get("\(sim)/port/v1/users/me").status == 200)
        }
    }

    @Test("one order per second per session: the second order in a second is a 429 with X-RateLimit-SessionOrders-*")
    func orderLimit() async throws {
        try await withSaxo(configuration: saxoTestConfiguration(sessionOrdersPerSecond: 1)) { client, _, _, clock async throws in
            let first = try await client.post("\(sim)/trade/v2/orders", saxoOrderBody())
            #expect(first.status == 200)
            #expect(first.header("X-RateLimit-SessionOrders-Limit") == "1")
            #expect(first.header("X-RateLimit-SessionOrders-Remaining") == "0")
            let second = try await client.post("\(sim)/trade/v2/orders", saxoOrderBody(amount: "20000"))
            #expect(second.status == 429)
            #expect(second.header("X-RateLimit-SessionOrders-Remaining") == "0")
            #expect(second.header("X-RateLimit-SessionOrders-Reset") == "1")
            // Reads and prechecks do not count as orders.
            #expect(try await client.post("\(sim)/trade/v2/orders/precheck", saxoOrderBody()).status == 200)
            #expect(try await client.get("\(sim)/port/v1/orders/me").header("X-RateLimit-SessionOrders-Limit") == nil)
            clock.advance(by: 1)
            #expect(try await client.post("\(sim)/trade/v2/orders", saxoOrderBody(amount: "20000")).status == 200)
        }
    }

    @Test("the default configuration limits orders to one per second; nil turns the limit off")
    func defaults() {
        #expect(SaxoSandboxConfiguration().sessionOrdersPerSecond == 1)
        #expect(SaxoSandboxConfiguration().sessionRequestsPerMinute == 120)
        #expect(SaxoSandboxConfiguration(sessionOrdersPerSecond: nil).sessionOrdersPerSecond == nil)
    }
}
