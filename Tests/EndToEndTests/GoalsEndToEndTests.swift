import Foundation
import GatewayModel
import HTTPTypes
import Sandbox
import TestWorlds
import Testing

/// `/v1/goals` over the four sandboxes at once, on one market with pinned prices, checked against figures worked
/// out by hand (issue 16, goals; seed 002).
///
/// What is held (see `PortfolioEndToEndTests`): Alpaca 10 AAPL (2,000 USD) and 5 MSFT (2,000 USD); TradeIt 10 AAPL
/// (2,000 USD); TradeOgre 25 XMR/BTC worth 0.1 BTC. Rates: EUR/USD 1.25 (Saxo), so USD→EUR 0.8; BTC/USD 50,000, so
/// BTC→EUR 40,000 (through USD).
@Suite("End to end: goals across four brokers", .heavyWorld)
struct GoalsEndToEndTests {
    static let prices = [
        "AAPL": "200", "MSFT": "400", "SPY": "500", "BTC/USD": "50000", "EUR/USD": "1.25", "XMR/BTC": "0.004",
        "LTC/BTC": "0.002", "BTC/USDT": "50000",
    ]

    static func decimal(_ value: Any?) -> Decimal? { (value as? String).flatMap { Decimal(string: $0) } }

    /// Each broker's connection id.
    static func connections(_ call: Quartet.Call) async throws -> [String: String] {
        let listed = try await call(.get, "/v1/connections", nil)
        var ids: [String: String] = [:]
        for connection in listed.body["data"] as? [[String: Any]] ?? [] {
            if let broker = connection["broker"] as? String, let id = connection["id"] as? String { ids[broker] = id }
        }
        return ids
    }

    /// "House": 10,000 EUR, with 8 AAPL at Alpaca, 50% of the AAPL at TradeIt and 40% of the XMR at TradeOgre.
    static func house(_ c: [String: String]) -> String {
        """
        {"name":"House","targetValue":"10000","currency":"EUR","allocations":[
          {"connectionId":"\(c["alpaca"] ?? "")","symbol":"AAPL","quantity":"8"},
          {"connectionId":"\(c["tradeit"] ?? "")","symbol":"AAPL","assetClass":"equity","percent":"50"},
          {"connectionId":"\(c["tradeogre"] ?? "")","symbol":"XMR/BTC","percent":"40"}]}
        """
    }

    /// "Car": 5,000 USD, with all 5 MSFT and the 2 AAPL at Alpaca that House leaves.
    static func car(_ c: [String: String]) -> String {
        """
        {"name":"Car","targetValue":5000,"currency":"usd","allocations":[
          {"connectionId":"\(c["alpaca"] ?? "")","symbol":"MSFT","quantity":"5"},
          {"connectionId":"\(c["alpaca"] ?? "")","symbol":"aapl","quantity":2}]}
        """
    }

    @Test func progressPerGoalAndOverallMatchTheHandWorkedFigures() async throws {
        let quartet = try Quartet(prices: Self.prices)
        try await quartet.with { call in
            let c = try await Self.connections(call)
            #expect(c.count == 4, "\(c)")
            let house = try await call(.post, "/v1/goals", Self.house(c))
            #expect(house.status == 201, "\(house.body)")
            #expect(house.body["partial"] as? Bool == false, "\(house.body)")
            let houseData = try #require(house.body["data"] as? [String: Any])
            let houseId = try #require(houseData["id"] as? String)
            #expect(houseId.hasPrefix("goal_"))
            // By hand, in EUR:
            //   Alpaca AAPL 8 of 10: 2,000 USD × 0.8 = 1,600 EUR for the 10, × 8/10      = 1,280
            //   TradeIt AAPL 50% of 10 = 5: 1,600 EUR × 5/10                              =   800
            //   TradeOgre XMR 40% of 25 = 10: 0.1 BTC × 40,000 = 4,000 EUR, × 10/25      = 1,600
            //   currentValue 3,680; progress 3,680 / 10,000 = 0.368; remaining 6,320.
            let progress = try #require(houseData["progress"] as? [String: Any])
            #expect(Self.decimal(progress["currentValue"]) == 3_680, "\(progress)")
            #expect(Self.decimal(progress["progress"]) == Decimal(string: "0.368"), "\(progress)")
            #expect(Self.decimal(progress["remaining"]) == 6_320, "\(progress)")
            #expect(progress["complete"] as? Bool == true)
            let lines = try #require(progress["allocations"] as? [[String: Any]])
            #expect(lines.map { Self.decimal($0["value"]) } == [1_280, 800, 1_600], "\(lines)")
            #expect(lines.map { Self.decimal($0["quantity"]) } == [8, 5, 10], "\(lines)")
            #expect(lines.map { Self.decimal($0["heldQuantity"]) } == [10, 10, 25], "\(lines)")
            #expect(Self.decimal((lines[0]["rate"] as? [String: Any])?["rate"]) == Decimal(string: "0.8"))
            #expect(Self.decimal((lines[2]["rate"] as? [String: Any])?["rate"]) == 40_000)
            #expect((lines[2]["rate"] as? [String: Any])?["via"] as? String == "USD")

            let car = try await call(.post, "/v1/goals", Self.car(c))
            #expect(car.status == 201, "\(car.body)")
            let carData = try #require(car.body["data"] as? [String: Any])
            #expect(carData["currency"] as? String == "USD")
            // By hand, in USD: 5 MSFT × 400 = 2,000; 2 AAPL × 200 = 400 → 2,400; 2,400 / 5,000 = 0.48; 2,600 to go.
            let carProgress = try #require(carData["progress"] as? [String: Any])
            #expect(Self.decimal(carProgress["currentValue"]) == 2_400, "\(carProgress)")
            #expect(Self.decimal(carProgress["progress"]) == Decimal(string: "0.48"))
            #expect(Self.decimal(carProgress["remaining"]) == 2_600)

            // Overall, in the first goal's currency (EUR): targets 10,000 + 5,000 × 0.8 = 14,000; current
            // 3,680 + 2,400 × 0.8 = 5,600; progress 0.4.
            let list = try await call(.get, "/v1/goals", nil)
            #expect(list.status == 200, "\(list.body)")
            #expect(list.body["partial"] as? Bool == false)
            #expect((list.body["data"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["House", "Car"])
            let overall = try #require(list.body["overall"] as? [String: Any])
            #expect(overall["currency"] as? String == "EUR")
            #expect(Self.decimal(overall["targetValue"]) == 14_000, "\(overall)")
            #expect(Self.decimal(overall["currentValue"]) == 5_600, "\(overall)")
            #expect(Self.decimal(overall["progress"]) == Decimal(string: "0.4"))
            #expect(Self.decimal(overall["remaining"]) == 8_400)
            #expect(
                Set((list.body["sources"] as? [[String: Any]] ?? []).compactMap { $0["broker"] as? String }) == ["alpaca", "tradeit", "tradeogre"]
            )
            // In USD (EUR→USD 1.25): targets 12,500 + 5,000 = 17,500; current 4,600 + 2,400 = 7,000.
            let usd = try await call(.get, "/v1/goals?currency=usd", nil)
            let usdOverall = try #require(usd.body["overall"] as? [String: Any])
            #expect(Self.decimal(usdOverall["targetValue"]) == 17_500, "\(usdOverall)")
            #expect(Self.decimal(usdOverall["currentValue"]) == 7_000, "\(usdOverall)")

            // One goal, then a change of its target; then it is gone.
            let one = try await call(.get, "/v1/goals/\(houseId)", nil)
            #expect(one.status == 200)
            #expect(Self.decimal(((one.body["data"] as? [String: Any])?["progress"] as? [String: Any])?["currentValue"]) == 3_680)
            let raised = try await call(.put, "/v1/goals/\(houseId)", #"{"targetValue":"36800"}"#)
            #expect(raised.status == 200, "\(raised.body)")
            let raisedProgress = ((raised.body["data"] as? [String: Any])?["progress"] as? [String: Any])
            #expect(Self.decimal(raisedProgress?["progress"]) == Decimal(string: "0.1"), "\(raised.body)")
            #expect(try await call(.delete, "/v1/goals/\(houseId)", nil).status == 204)
            #expect(try await call(.get, "/v1/goals/\(houseId)", nil).status == 404)
            #expect(try await call(.delete, "/v1/goals/\(houseId)", nil).status == 404)

            // The audit log has each change.
            let audit = try await call(.get, "/v1/audit?limit=50", nil)
            let actions = (audit.body["data"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
            #expect(
                actions.filter { $0.hasPrefix("goal.") }.sorted() == ["goal.created", "goal.created", "goal.deleted", "goal.updated"],
                "\(audit.body)"
            )
        }
    }

    @Test func anAllocationBeyondWhatIsHeldIsRefusedNamingTheHolding() async throws {
        let quartet = try Quartet(prices: Self.prices)
        try await quartet.with { call in
            let c = try await Self.connections(call)
            #expect(try await call(.post, "/v1/goals", Self.house(c)).status == 201)
            #expect(try await call(.post, "/v1/goals", Self.car(c)).status == 201)
            let alpaca = c["alpaca"] ?? ""
            // House has 8 and Car 2 of Alpaca's 10 AAPL: one more is 11 of 10.
            let boat = try await call(
                .post,
                "/v1/goals",
                """
                {"name":"Boat","targetValue":"100","currency":"USD","allocations":[
                  {"connectionId":"\(c["tradeit"] ?? "")","symbol":"MSFT","quantity":"1"},
                  {"connectionId":"\(alpaca)","symbol":"AAPL","quantity":"1"}]}
                """
            )
            #expect(boat.status == 422, "\(boat.body)")
            let details = ((boat.body["error"] as? [String: Any])?["details"] as? [[String: Any]]) ?? []
            #expect(details.compactMap { $0["field"] as? String } == ["allocations[1]"], "\(boat.body)")
            #expect(details.first?["problem"] as? String == "AAPL at \(alpaca): 11 allocated of 10 held (8 by goal 'House', 2 by goal 'Car')")
            // Percents: House has 50% of TradeIt's AAPL; 60% more is 11 of 10.
            let percent = try await call(
                .post,
                "/v1/goals",
                """
                {"name":"Boat","targetValue":"100","currency":"USD","allocations":[
                  {"connectionId":"\(c["tradeit"] ?? "")","symbol":"AAPL","percent":"60"}]}
                """
            )
            #expect(percent.status == 422, "\(percent.body)")
            #expect(
                ((percent.body["error"] as? [String: Any])?["message"] as? String)?.contains("11 allocated of 10 held (5 by goal 'House')") == true,
                "\(percent.body)"
            )
            // Something not held, and a connection that is not the user's.
            let notHeld = try await call(
                .post,
                "/v1/goals",
                """
                {"name":"Boat","targetValue":"100","currency":"USD","allocations":[{"connectionId":"\(c["saxo"] ?? "")","symbol":"AAPL","quantity":"1"}]}
                """
            )
            #expect(notHeld.status == 422, "\(notHeld.body)")
            let stranger = try await call(
                .post,
                "/v1/goals",
                """
                {"name":"Boat","targetValue":"100","currency":"USD","allocations":[{"connectionId":"conn_nobody","symbol":"AAPL","quantity":"1"}]}
                """
            )
            #expect(stranger.status == 422)
            #expect(
                ((stranger.body["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["field"] as? String
                    == "allocations[0].connectionId"
            )
            // Raising Car's AAPL to 3 is refused too; lowering House's to 7 makes room for it.
            let car = try #require(try await call(.get, "/v1/goals", nil).body["data"] as? [[String: Any]]).last
            let carId = try #require(car?["id"] as? String)
            let raise = """
                {"allocations":[{"connectionId":"\(alpaca)","symbol":"MSFT","quantity":"5"},{"connectionId":"\(alpaca)","symbol":"AAPL","quantity":"3"}]}
                """
            #expect(try await call(.put, "/v1/goals/\(carId)", raise).status == 422)
            // Names are unique; bodies are closed; exactly one of quantity and percent.
            let again = try await call(.post, "/v1/goals", Self.car(c))
            #expect(again.status == 409, "\(again.body)")
            let unknown = try await call(
                .post,
                "/v1/goals",
                #"{"name":"X","targetValue":"1","currency":"USD","allocations":[],"deadline":"2030-01-01"}"#
            )
            #expect(unknown.status == 400)
            #expect(((unknown.body["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["field"] as? String == "deadline")
            let both = try await call(
                .post,
                "/v1/goals",
                """
                {"name":"X","targetValue":"0","currency":"US$","allocations":[{"connectionId":"\(alpaca)","symbol":"AAPL","quantity":"1","percent":"5"}]}
                """
            )
            #expect(both.status == 422)
            let fields = Set(((both.body["error"] as? [String: Any])?["details"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["targetValue", "currency", "allocations[0]"], "\(both.body)")
            // Each bad value is named: a percent over 100, a negative quantity, a name too long, a number no decimal
            // holds exactly, an unknown query currency.
            let bad = try await call(
                .post,
                "/v1/goals",
                """
                {"name":"\(String(repeating: "x", count: 101))","targetValue":1e400,"currency":"USD","allocations":[
                  {"connectionId":"\(alpaca)","symbol":"AAPL","percent":"150"},{"connectionId":"\(alpaca)","symbol":"AAPL","quantity":"-1"}]}
                """
            )
            #expect(bad.status == 422, "\(bad.body)")
            #expect(((bad.body["error"] as? [String: Any])?["details"] as? [[String: Any]])?.compactMap { $0["field"] as? String } == ["targetValue"])
            let badAllocations = try await call(
                .post,
                "/v1/goals",
                """
                {"name":"\(String(repeating: "x", count: 101))","targetValue":"1","currency":"USD","allocations":[
                  {"connectionId":"\(alpaca)","symbol":"AAPL","percent":"150"},{"connectionId":"\(alpaca)","symbol":"AAPL","quantity":"-1"}]}
                """
            )
            #expect(badAllocations.status == 422)
            let badFields = ((badAllocations.body["error"] as? [String: Any])?["details"] as? [[String: Any]] ?? []).compactMap {
                $0["field"] as? String
            }
            #expect(badFields == ["name", "allocations[0].percent", "allocations[1].quantity"], "\(badAllocations.body)")
            let badCurrency = try await call(.get, "/v1/goals?currency=US%24", nil)
            #expect(badCurrency.status == 400)
            #expect(((badCurrency.body["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["field"] as? String == "currency")
            #expect(try await call(.put, "/v1/goals/\(carId)", "{}").status == 422)
        }
    }

    @Test func concurrentWritesNeverAllocateMoreThanIsHeld() async throws {
        let quartet = try Quartet(prices: Self.prices)
        try await quartet.with { call in
            let alpaca = try await Self.connections(call)["alpaca"] ?? ""
            // Eight goals at once, each wanting 3 of Alpaca's 10 AAPL: at most three fit (9); each of the others is
            // refused (422, or 409 if it kept losing the race), never written.
            // The group's children end before it returns, so the call does not outlive this closure.
            let statuses = try await withoutActuallyEscaping(call) { call in
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<8 {
                        group.addTask {
                            try await call(
                                .post,
                                "/v1/goals",
                                """
                                {"name":"Goal \(index)","targetValue":"100","currency":"USD",
                                 "allocations":[{"connectionId":"\(alpaca)","symbol":"AAPL","quantity":"3"}]}
                                """
                            ).status
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            #expect(statuses.allSatisfy { [201, 409, 422].contains($0) }, "\(statuses)")
            let created = statuses.filter { $0 == 201 }.count
            #expect((1...3).contains(created), "\(statuses)")
            let goals = try await call(.get, "/v1/goals", nil).body["data"] as? [[String: Any]] ?? []
            #expect(goals.count == created)
        }
    }

    @Test func anotherUsersGoalIsNotFound() async throws {
        let quartet = try Quartet(prices: Self.prices)
        try await quartet.withTwoUsers { call, other in
            let c = try await Self.connections(call)
            let house = try await call(.post, "/v1/goals", Self.house(c))
            let id = try #require((house.body["data"] as? [String: Any])?["id"] as? String)
            #expect(try await other(.get, "/v1/goals/\(id)", nil).status == 404)
            #expect(try await other(.put, "/v1/goals/\(id)", #"{"name":"Mine"}"#).status == 404)
            #expect(try await other(.delete, "/v1/goals/\(id)", nil).status == 404)
            let theirs = try await other(.get, "/v1/goals", nil)
            #expect(theirs.status == 200)
            #expect((theirs.body["data"] as? [Any])?.isEmpty == true)
            // Nor may they allocate the first user's holdings.
            let borrow = try await other(
                .post,
                "/v1/goals",
                """
                {"name":"Borrowed","targetValue":"1","currency":"USD","allocations":[{"connectionId":"\(c["alpaca"] ?? "")","symbol":"AAPL","quantity":"1"}]}
                """
            )
            #expect(borrow.status == 422, "\(borrow.body)")
            #expect(try await call(.get, "/v1/goals/\(id)", nil).status == 200)
        }
    }

    @Test func aFailingBrokerMakesTheReadPartialAndNamesTheAllocation() async throws {
        let quartet = try Quartet(prices: Self.prices)
        try await quartet.with { call in
            let c = try await Self.connections(call)
            #expect(try await call(.post, "/v1/goals", Self.house(c)).status == 201)
            quartet.tradeIt.faults.add(FaultRule(.error(status: 503)))
            let read = try await call(.get, "/v1/goals", nil)
            #expect(read.status == 200)
            #expect(read.body["partial"] as? Bool == true)
            let failed = (read.body["sources"] as? [[String: Any]])?.filter { $0["status"] as? String == "error" }
            #expect(failed?.compactMap { $0["broker"] as? String } == ["tradeit"], "\(read.body)")
            let house = try #require((read.body["data"] as? [[String: Any]])?.first)
            let progress = try #require(house["progress"] as? [String: Any])
            // House less TradeIt's 800: 1,280 + 1,600.
            #expect(Self.decimal(progress["currentValue"]) == 2_880, "\(progress)")
            #expect(progress["complete"] as? Bool == false)
            let lines = progress["allocations"] as? [[String: Any]] ?? []
            #expect(lines.map { $0["problem"] as? String } == [nil, "source_failed", nil], "\(lines)")
            #expect(lines[1]["connectionId"] as? String == c["tradeit"])
            // A write that needs TradeIt's positions is refused, retryable, rather than saved unchecked.
            let refused = try await call(
                .post,
                "/v1/goals",
                """
                {"name":"Later","targetValue":"1","currency":"USD","allocations":[{"connectionId":"\(c["tradeit"] ?? "")","symbol":"SPY","quantity":"1"}]}
                """
            )
            #expect(refused.status >= 500 && refused.status != 500, "\(refused.body)")
            #expect((refused.body["error"] as? [String: Any])?["retryable"] as? Bool == true, "\(refused.body)")
            #expect(try await call(.get, "/v1/goals", nil).body["data"].map { ($0 as? [Any])?.count } == 1)
        }
    }
}
