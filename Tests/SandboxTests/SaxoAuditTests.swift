import Foundation
import Sandbox
import TestWorlds
import Testing

/// `GET cs/v1/audit/orderactivities`: every order's life, kept after it leaves `port/v1/orders`, in the shape and
/// with the filters of Saxo's reference (see `SaxoRoutes+Audit.swift`).
@Suite("Saxo sandbox: the order-activity audit", .heavyWorld)
struct SaxoAuditTests {
    static let audit = "\(sim)/cs/v1/audit/orderactivities"

    func entries(_ reply: TestClient.Reply) -> [[String: Any]] { reply.object["Data"] as? [[String: Any]] ?? [] }

    @Test("a market order that fills at once leaves Placed then FinalFill, with the fill, its price and its position")
    func marketOrder() async throws {
        try await withSaxo { client, _, _, _ async throws in
            let placed = try await client.post("\(sim)/trade/v2/orders", saxoOrderBody(amount: "25000", externalReference: "ref-market"))
            let orderID = try #require(placed.object["OrderId"] as? String)
            // Gone from the open orders…
            #expect(try await client.get("\(sim)/port/v1/orders/me").object["__count"] as? Int == 0)

            // …but not from the audit.
            let reply = try await client.get("\(Self.audit)?OrderId=\(orderID)")
            #expect(reply.status == 200)
            #expect(reply.object["__count"] as? Int == 2)
            let log = entries(reply)
            #expect(log.map { $0["Status"] as? String } == ["Placed", "FinalFill"])
            #expect(log.map { $0["SubStatus"] as? String } == ["Confirmed", "Confirmed"])
            let ids = log.compactMap { ($0["LogId"] as? String).flatMap { Int($0) } }
            #expect(ids.count == 2 && ids[0] < ids[1])
            for entry in log {
                #expect(entry["OrderId"] as? String == orderID)
                #expect(entry["ExternalReference"] as? String == "ref-market")
                #expect(entry["AccountId"] as? String == SaxoSandboxClient.demo.accountId)
                #expect(entry["ClientId"] as? String == SaxoSandboxClient.demo.clientId)
                #expect(entry["Uic"] as? Int == 21)
                #expect(entry["AssetType"] as? String == "FxSpot")
                #expect(entry["BuySell"] as? String == "Buy")
                #expect(entry["OrderType"] as? String == "Market")
                #expect(dec(entry["Amount"]) == 25_000)
                #expect((entry["Duration"] as? [String: Any])?["DurationType"] as? String == "DayOrder")
                #expect((entry["ActivityTime"] as? String)?.hasSuffix("Z") == true)
                #expect(entry["DisplayAndFormat"] == nil)
            }
            #expect(log[0]["HandledBy"] as? String == SaxoSandboxClient.demo.userId)
            #expect(log[0]["FilledAmount"] == nil && log[0]["AveragePrice"] == nil, "\(reply.text)")
            let fill = log[1]
            #expect(fill["HandledBy"] as? String == "System")
            #expect(dec(fill["FillAmount"]) == 25_000)
            #expect(dec(fill["FilledAmount"]) == 25_000)
            let average = try #require(dec(fill["AveragePrice"]))
            #expect(average > 0 && dec(fill["ExecutionPrice"]) == average)
            let positions = try await client.get("\(sim)/port/v1/positions/me").object["Data"] as? [[String: Any]] ?? []
            #expect(positions.compactMap { $0["PositionId"] as? String } == [fill["PositionId"] as? String].compactMap { $0 })

            // The latest state only, and the display group when asked for.
            let last = entries(try await client.get("\(Self.audit)?OrderId=\(orderID)&EntryType=Last&FieldGroups=DisplayAndFormat"))
            #expect(last.count == 1)
            #expect(last.first?["Status"] as? String == "FinalFill")
            #expect((last.first?["DisplayAndFormat"] as? [String: Any])?["Symbol"] as? String == "EURUSD")
        }
    }

    @Test("a limit order's change and cancel, a day order's expiry and a refused placement are logged")
    func lifecycle() async throws {
        // 16:50 in New York: the FX day ends at 17:00, within the access token's 20 minutes.
        let clock = ManualClock(start: ManualClock.defaultStart.addingTimeInterval(6 * 3600 + 50 * 60))
        try await withSaxo(clock: clock) { client, _, sandbox, clock async throws in
            let bid = try #require(sandbox.market.quote(symbol: "EUR/USD")?.bid)
            let resting = bid - Decimal(string: "0.02")!
            let placed = try await client.post(
                "\(sim)/trade/v2/orders",
                saxoOrderBody(orderType: "Limit", price: "\(resting)", duration: "GoodTillCancel")
            )
            let limitID = try #require(placed.object["OrderId"] as? String)
            let change = try await client.patch(
                "\(sim)/trade/v2/orders",
                """
                {"AccountKey":"\(SaxoSandboxClient.demoAccountKey)","OrderId":"\(limitID)","AssetType":"FxSpot","Amount":20000,
                 "OrderType":"Limit","OrderPrice":\(resting),"OrderDuration":{"DurationType":"GoodTillCancel"},"ManualOrder":true}
                """
            )
            #expect(change.status == 200)
            #expect(try await client.delete("\(sim)/trade/v2/orders/\(limitID)?AccountKey=\(saxoAccountKeyQuery)").status == 200)
            let limitLog = entries(try await client.get("\(Self.audit)?OrderId=\(limitID)"))
            #expect(limitLog.map { $0["Status"] as? String } == ["Placed", "Changed", "Cancelled"])
            #expect(limitLog.map { dec($0["Amount"]) } == [10_000, 20_000, 20_000])
            #expect(limitLog.allSatisfy { dec($0["Price"]) == resting })
            #expect(limitLog.last?["HandledBy"] as? String == SaxoSandboxClient.demo.userId)

            let day = try await client.post(
                "\(sim)/trade/v2/orders",
                saxoOrderBody(orderType: "Limit", price: "\(resting)", duration: "DayOrder")
            )
            let dayID = try #require(day.object["OrderId"] as? String)
            clock.advance(by: 15 * 60)
            let dayLog = entries(try await client.get("\(Self.audit)?OrderId=\(dayID)"))
            #expect(dayLog.map { $0["Status"] as? String } == ["Placed", "Expired"])
            #expect(dayLog.last?["HandledBy"] as? String == "System")

            // Refused on trading grounds: a 400 to the client, and a Placed/Rejected entry with an OrderId of its own.
            let refused = try await client.post(
                "\(sim)/trade/v2/orders",
                saxoOrderBody(uic: 211, assetType: "Stock", amount: "100000", externalReference: "ref-too-big")
            )
            #expect(refused.status == 400)
            #expect(refused.errorInfo["ErrorCode"] as? String == "WouldExceedMargin")
            let all = entries(try await client.get("\(Self.audit)?EntryType=Last"))
            let rejected = try #require(all.first { $0["ExternalReference"] as? String == "ref-too-big" })
            #expect(rejected["Status"] as? String == "Placed")
            #expect(rejected["SubStatus"] as? String == "Rejected")
            #expect((rejected["OrderId"] as? String).map { ![limitID, dayID].contains($0) } == true)
            #expect(all.count == 3)
        }
    }

    @Test("filters: Status, time window, CorrelationKey; paging with $top and the __next link's $skiptoken")
    func filtersAndPaging() async throws {
        try await withSaxo { client, _, _, clock async throws in
            var orderIDs: [String] = []
            for index in 0..<3 {
                let placed = try await client.post("\(sim)/trade/v2/orders", saxoOrderBody(amount: "\(10_000 * (index + 1))"))
                orderIDs.append(try #require(placed.object["OrderId"] as? String))
                clock.advance(by: 60)
            }
            let fills = entries(try await client.get("\(Self.audit)?Status=FinalFill"))
            #expect(fills.map { $0["OrderId"] as? String } == orderIDs)
            #expect(entries(try await client.get("\(Self.audit)?Status=Placed,FinalFill")).count == 6)

            let firstTime = try #require(fills.first?["ActivityTime"] as? String)
            let lastTime = try #require(fills.last?["ActivityTime"] as? String)
            let window = entries(try await client.get("\(Self.audit)?FromDateTime=\(firstTime)&ToDateTime=\(firstTime)"))
            #expect(window.allSatisfy { $0["OrderId"] as? String == orderIDs[0] })
            #expect(window.count == 2)
            let later = entries(try await client.get("\(Self.audit)?FromDateTime=\(lastTime)"))
            #expect(later.allSatisfy { $0["OrderId"] as? String == orderIDs[2] })
            // EntryType=Last ignores ToDateTime, as the reference says.
            #expect(entries(try await client.get("\(Self.audit)?EntryType=Last&ToDateTime=2000-01-01")).count == 3)

            let key = try #require(fills[1]["CorrelationKey"] as? String)
            #expect(
                entries(try await client.get("\(Self.audit)?CorrelationKey=\(key)")).map { $0["OrderId"] as? String } == [orderIDs[1], orderIDs[1]]
            )

            // Pages of two, following __next to the end: every entry once, in LogId order.
            var seen: [String] = []
            var path = "\(Self.audit)?AccountKey=\(saxoAccountKeyQuery)&$top=2"
            var pages = 0
            while pages < 10 {
                let page = try await client.get(path)
                #expect(page.status == 200)
                #expect(page.object["__count"] as? Int == 6)
                seen += entries(page).compactMap { $0["LogId"] as? String }
                pages += 1
                guard let next = page.object["__next"] as? String else { break }
                #expect(next.contains("$skiptoken="))
                let start = try #require(next.range(of: sim))
                path = String(next[start.lowerBound...])
            }
            #expect(pages == 3)
            #expect(seen.count == 6 && Set(seen).count == 6)
            #expect(seen.compactMap { Int($0) } == seen.compactMap { Int($0) }.sorted())
        }
    }

    @Test("bad parameters are Saxo's 400s; no token is a 401; another client's key is refused")
    func badRequests() async throws {
        try await withSaxo { client, anonymous, _, _ async throws in
            for query in ["EntryType=Newest", "Status=Filled", "FromDateTime=yesterday", "ToDateTime=2026-13-01", "IncludeSubAccounts=maybe"] {
                let reply = try await client.get("\(Self.audit)?\(query)")
                #expect(reply.status == 400, "\(query)")
                #expect(reply.object["ErrorCode"] as? String == "InvalidModelState", "\(query): \(reply.text)")
            }
            for query in ["$top=-1", "$top=ten", "$skiptoken=abc", "FieldGroups=Greeks"] {
                #expect(try await client.get("\(Self.audit)?\(query)").status == 400, "\(query)")
            }
            #expect(try await client.get("\(Self.audit)?ClientKey=someone-else").status == 400)
            #expect(try await client.get("\(Self.audit)?ClientKey=\(saxoClientKeyQuery)&IncludeSubAccounts=true").status == 200)
            #expect(try await anonymous.get(Self.audit).status == 401)
            let empty = try await client.get("\(Self.audit)?OrderId=12345")
            #expect(empty.status == 200)
            #expect(empty.object["__count"] as? Int == 0)
            #expect(entries(empty).isEmpty)
        }
    }
}
