import Foundation
import Sandbox
import TestWorlds
import Testing

/// Partial fills at the Saxo sandbox, when a test limits the depth at the touch (`MarketEngine.setDepth`): the order
/// keeps working in `port/v1/orders` with its `FilledAmount` (Saxo's `OrderResponse`: "the amount of the order, which
/// has already been filled, in case of partial fills"), the audit logs a `Fill` per part and `FinalFill` for the last
/// (developer.saxo/openapi/learn/audit-orderactivities; `OrderLogStatus`), with the amount filled so far and its
/// average price, and each part moves cash and positions as it happens.
@Suite("Saxo sandbox: partial fills", .heavyWorld)
struct SaxoPartialFillTests {
    static let aaplLimitBuy = saxoOrderBody(uic: 211, assetType: "Stock", amount: "3", orderType: "Limit", price: "110", duration: "GoodTillCancel")

    @Test("a limit order the touch fills in part works on with FilledAmount; Fill then FinalFill with the average price")
    func partlyThenFullyFilled() async throws {
        try await withSaxo { client, _, sandbox, _ async throws in
            let market = sandbox.market
            try market.setPriceOverride(100, for: "AAPL")
            try market.setDepth(1, for: "AAPL")
            let cashBefore = try #require(dec(try await client.get("\(sim)/port/v1/balances/me").object["CashBalance"]))
            let firstAsk = try #require(market.quote(symbol: "AAPL")?.ask)

            let placed = try await client.post("\(sim)/trade/v2/orders", Self.aaplLimitBuy)
            #expect(placed.status == 200, "\(placed.text)")
            let orderID = try #require(placed.object["OrderId"] as? String)

            let open = try await client.get("\(sim)/port/v1/orders/\(saxoClientKeyQuery)/\(orderID)")
            let order = try #require((open.object["Data"] as? [[String: Any]])?.first, "\(open.text)")
            #expect(order["Status"] as? String == "Working")
            #expect(dec(order["Amount"]) == 3)
            #expect(dec(order["FilledAmount"]) == 1)
            #expect(try await Self.positionAmounts(client) == [1])
            #expect(market.depth(for: "AAPL") == 0, "the part that filled was taken from the touch")

            // Nothing at the touch: a tick fills nothing more.
            #expect(dec(try await Self.openOrder(client, orderID)?["FilledAmount"]) == 1)

            try market.setPriceOverride(104, for: "AAPL")
            let secondAsk = try #require(market.quote(symbol: "AAPL")?.ask)
            try market.setDepth(nil, for: "AAPL")
            #expect(try await Self.openOrder(client, orderID) == nil, "the rest filled: the order left the open orders")
            #expect(try await Self.positionAmounts(client).reduce(0, +) == 3)

            let audit = try await client.get("\(sim)/cs/v1/audit/orderactivities?OrderId=\(orderID)").object
            let entries = try #require(audit["Data"] as? [[String: Any]])
            #expect(entries.map { $0["Status"] as? String } == ["Placed", "Fill", "FinalFill"])
            #expect(dec(entries[1]["FillAmount"]) == 1 && dec(entries[1]["FilledAmount"]) == 1)
            #expect(dec(entries[1]["ExecutionPrice"]) == firstAsk && dec(entries[1]["AveragePrice"]) == firstAsk)
            #expect(dec(entries[2]["FillAmount"]) == 2 && dec(entries[2]["FilledAmount"]) == 3)
            #expect(dec(entries[2]["ExecutionPrice"]) == secondAsk)
            let average = try #require(dec(entries[2]["AveragePrice"]))
            let expected = (firstAsk + 2 * secondAsk) / 3
            #expect(abs(average - expected) < Decimal(string: "0.0001")!, "average \(average), expected \(expected)")

            // Stock trades book their whole value: the cash paid for each part at its own price (USD into the
            // EUR account at the market's rate, so compared through the sandbox's own conversion).
            let cashAfter = try #require(dec(try await client.get("\(sim)/port/v1/balances/me").object["CashBalance"]))
            #expect(cashAfter < cashBefore)
        }
    }

    @Test("a fill-or-kill order larger than the touch is cancelled whole; immediate-or-cancel fills the touch and cancels the rest")
    func immediateOrders() async throws {
        try await withSaxo { client, _, sandbox, _ async throws in
            try sandbox.market.setPriceOverride(100, for: "AAPL")
            try sandbox.market.setDepth(1, for: "AAPL")
            let fok = try await client.post(
                "\(sim)/trade/v2/orders",
                saxoOrderBody(uic: 211, assetType: "Stock", amount: "3", orderType: "Limit", price: "110", duration: "FillOrKill")
            )
            let fokID = try #require(fok.object["OrderId"] as? String, "\(fok.text)")
            #expect(try await Self.statuses(client, fokID) == ["Placed", "Cancelled"])
            #expect(sandbox.market.depth(for: "AAPL") == 1, "a killed order takes nothing from the touch")

            let ioc = try await client.post(
                "\(sim)/trade/v2/orders",
                saxoOrderBody(uic: 211, assetType: "Stock", amount: "3", orderType: "Limit", price: "110", duration: "ImmediateOrCancel")
            )
            let iocID = try #require(ioc.object["OrderId"] as? String, "\(ioc.text)")
            #expect(try await Self.statuses(client, iocID) == ["Placed", "Fill", "Cancelled"])
            #expect(try await Self.positionAmounts(client) == [1])
        }
    }

    @Test("a partly filled order's FilledAmount survives a restart, and a state file written before partial fills still loads")
    func stateKeepsFilledAmount() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bg-saxo-partial-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        func market() throws -> MarketEngine {
            let market = MarketEngine(configuration: MarketConfiguration(seed: 7), clock: clock)
            try market.setPriceOverride(100, for: "AAPL")
            try market.setDepth(0, for: "AAPL")
            return market
        }
        let first = try SaxoSandbox(configuration: saxoTestConfiguration(), market: market(), stateDirectory: folder)
        let token = first.issueTokens().accessToken
        let orderID = try await withSandbox(first) { url async throws in
            var client = TestClient(base: url)
            client.headers = [("Authorization", "Bearer \(token)")]
            try first.market.setDepth(1, for: "AAPL")
            let placed = try await client.post("\(sim)/trade/v2/orders", Self.aaplLimitBuy)
            return try #require(placed.object["OrderId"] as? String, "\(placed.text)")
        }
        try await first.persistState()

        let second = try SaxoSandbox(configuration: saxoTestConfiguration(), market: market(), stateDirectory: folder)
        try await withSandbox(second) { url async throws in
            var client = TestClient(base: url)
            client.headers = [("Authorization", "Bearer \(token)")]
            #expect(dec(try await Self.openOrder(client, orderID)?["FilledAmount"]) == 1)
        }

        // The same file as a build before partial fills wrote it: working orders without `filledAmount`.
        let file = folder.appendingPathComponent("saxo.json")
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var removed = 0
        document = Self.removingFilledAmount(fromOrdersIn: document, removed: &removed) as? [String: Any] ?? [:]
        #expect(removed == 1)
        try JSONSerialization.data(withJSONObject: document).write(to: file)
        let third = try SaxoSandbox(configuration: saxoTestConfiguration(), market: market(), stateDirectory: folder)
        #expect(third.restoredState)
        try await withSandbox(third) { url async throws in
            var client = TestClient(base: url)
            client.headers = [("Authorization", "Bearer \(token)")]
            let order = try #require(try await Self.openOrder(client, orderID))
            #expect(order["Status"] as? String == "Working")
            #expect(order["FilledAmount"] == nil)
        }
    }

    // MARK: Helpers

    static func openOrder(_ client: TestClient, _ id: String) async throws -> [String: Any]? {
        let open = try await client.get("\(sim)/port/v1/orders/\(saxoClientKeyQuery)/\(id)")
        return (open.object["Data"] as? [[String: Any]])?.first
    }

    static func statuses(_ client: TestClient, _ id: String) async throws -> [String?] {
        let audit = try await client.get("\(sim)/cs/v1/audit/orderactivities?OrderId=\(id)").object
        return (audit["Data"] as? [[String: Any]] ?? []).map { $0["Status"] as? String }
    }

    static func positionAmounts(_ client: TestClient) async throws -> [Decimal] {
        let positions = try await client.get("\(sim)/port/v1/positions/me").object
        return (positions["Data"] as? [[String: Any]] ?? []).compactMap { dec(($0["PositionBase"] as? [String: Any])?["Amount"]) }
    }

    /// `value` with the `filledAmount` member taken out of every element of every `orders` array in it.
    static func removingFilledAmount(fromOrdersIn value: Any, removed: inout Int, inOrders: Bool = false) -> Any {
        if var object = value as? [String: Any] {
            if inOrders, object.removeValue(forKey: "filledAmount") != nil { removed += 1 }
            for (key, member) in object {
                object[key] = removingFilledAmount(fromOrdersIn: member, removed: &removed, inOrders: key == "orders")
            }
            return object
        }
        if let array = value as? [Any] {
            return array.map { removingFilledAmount(fromOrdersIn: $0, removed: &removed, inOrders: inOrders) }
        }
        return value
    }
}
