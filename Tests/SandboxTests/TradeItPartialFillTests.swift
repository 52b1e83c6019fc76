import Foundation
import Sandbox
import Testing

@testable import SandboxKit
@testable import TradeItSandbox

/// Partial fills at the TradeIt sandbox: an order fills as far as the venue's depth at the touch goes, reads
/// `PART_FILLED` with its leg's cumulative `filledQuantity` and one `fills` entry per execution (TradeItIosEmsApi
/// `TradeItOrderLeg`, `TradeItOrderFill`), moves cash and holdings per fill, and can be cancelled keeping its fills.
@Suite("TradeIt sandbox: partial fills")
struct TradeItPartialFillTests {
    @Test func anOrderFillsAsFarAsTheDepthGoesAndReadsPartFilled() async throws {
        let market = MarketEngine(configuration: MarketConfiguration(seed: 3), clock: ManualClock())
        try market.setPriceOverride(100, for: "AAPL")
        let sandbox = TradeItSandbox(market: market)
        try await withSandbox(sandbox) { url in
            var client = TestClient(base: url)
            client.headers = []
            let (userId, userToken) = sandbox.link(.dummy)
            let session = try await client.post(
                "/api/v2/user/authenticate",
                #"{"apiKey":"SANDBOX-TRADEIT-API-KEY","userId":"\#(userId)","userToken":"\#(userToken)"}"#
            )
            let token = try #require(session.object["token"] as? String)
            let account = TradeItPersona.dummy.accountNumber
            let overview = #"{"token":"\#(token)","accountNumber":"\#(account)"}"#
            let valueBefore = try #require(
                (try await client.post("/api/v2/balance/getAccountOverview", overview).object["accountOverview"] as? [String: Any])?[
                    "totalValue"
                ] as? NSNumber
            )

            try market.setDepth(2, for: "AAPL")
            let preview = try await client.post(
                "/api/v2/order/previewStockOrEtfOrder",
                #"{"token":"\#(token)","accountNumber":"\#(account)","orderSymbol":"AAPL","orderAction":"buy","orderQuantity":"5","orderPriceType":"limit","orderLimitPrice":"110","orderExpiration":"gtc"}"#
            )
            let orderId = try #require(preview.object["orderId"] as? String, "\(preview.object)")
            let placed = try await client.post("/api/v2/order/placeStockOrEtfOrder", #"{"token":"\#(token)","orderId":"\#(orderId)"}"#)
            let number = try #require(placed.object["orderNumber"] as? String, "\(placed.object)")
            let single = #"{"token":"\#(token)","accountNumber":"\#(account)","orderNumber":"\#(number)"}"#

            var leg = try await self.leg(client.post("/api/v2/order/getSingleOrderStatus", single).object, status: "PART_FILLED")
            #expect(leg["orderedQuantity"] as? NSNumber == 5)
            #expect(leg["filledQuantity"] as? NSNumber == 2)
            var fills = try #require(leg["fills"] as? [[String: Any]])
            #expect(fills.count == 1)
            #expect(fills.first?["quantity"] as? NSNumber == 2)
            #expect(fills.first?["timestamp"] as? String != nil)
            #expect(market.depth(for: "AAPL") == 0, "the fill took what was at the touch")

            // A little more at the touch: a second execution.
            try market.setDepth(1, for: "AAPL")
            leg = try await self.leg(client.post("/api/v2/order/getSingleOrderStatus", single).object, status: "PART_FILLED")
            #expect(leg["filledQuantity"] as? NSNumber == 3)
            fills = try #require(leg["fills"] as? [[String: Any]])
            #expect(fills.map { $0["quantity"] as? NSNumber } == [2, 1])

            // Holdings moved per fill: the persona's 10 AAPL and the 3 bought.
            let positions = try await client.post("/api/v2/position/getPositions", #"{"token":"\#(token)","accountNumber":"\#(account)","page":0}"#)
            let aapl = (positions.object["positions"] as? [[String: Any]])?.first { $0["symbol"] as? String == "AAPL" }
            #expect(aapl?["quantity"] as? NSNumber == 13, "\(positions.object)")

            // Cancelled, the order keeps what filled; cash no longer reserved for the rest.
            let canceled = try await client.post("/api/v2/order/cancelOrder", single)
            leg = try self.leg(canceled.object, status: "CANCELED")
            #expect(leg["filledQuantity"] as? NSNumber == 3)
            let after = try await client.post("/api/v2/balance/getAccountOverview", overview).object
            let total = try #require((after["accountOverview"] as? [String: Any])?["totalValue"] as? NSNumber)
            // Valued at the last price, the account lost what the shares cost over it (the spread) and one commission
            // of 4.95 for the order, not one per fill.
            let lost = valueBefore.decimalValue - total.decimalValue
            #expect(lost >= Decimal(string: "4.95")! && lost < 6, "lost \(lost)")
            let again = try await client.post("/api/v2/order/cancelOrder", single)
            #expect(again.object["code"] as? Int == 200, "an ended order cannot be cancelled: \(again.object)")
        }
    }

    /// State files written before partial fills have no `fills`: a filled order then had one fill, rebuilt from its
    /// `filledQuantity`, `fillPrice` and `fillTime`.
    @Test func anOrderSavedBeforePartialFillsReadsItsOneFill() throws {
        let saved = """
            {"orderNumber":"8000001","symbol":"AAPL","isCrypto":false,"side":"buy","priceType":"market","quantity":2,
             "expiration":"day","status":"FILLED","filledQuantity":2,"fillPrice":100.5,"fillTime":0,"placedAt":0,
             "resting":{"triggered":false}}
            """
        let order = try JSONDecoder().decode(TradeItOrder.self, from: Data(saved.utf8))
        #expect(order.executions == [TradeItExecution(quantity: 2, price: Decimal(string: "100.5")!, time: Date(timeIntervalSinceReferenceDate: 0))])
        #expect(order.remainingQuantity == 0)
        let open = try JSONDecoder().decode(
            TradeItOrder.self,
            from: Data(
                saved.replacingOccurrences(of: #""FILLED","filledQuantity":2,"fillPrice":100.5,"fillTime":0"#, with: #""OPEN","filledQuantity":0"#)
                    .utf8
            )
        )
        #expect(open.executions.isEmpty)
        #expect(open.status == .open)
    }

    /// The first order of a status answer, checked to have `status`, and its first leg.
    func leg(_ answer: [String: Any], status: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let details = try #require((answer["orderStatusDetailsList"] as? [[String: Any]])?.first, "\(answer)", sourceLocation: sourceLocation)
        #expect(details["orderStatus"] as? String == status, "\(details)", sourceLocation: sourceLocation)
        return try #require((details["orderLegs"] as? [[String: Any]])?.first, "\(details)", sourceLocation: sourceLocation)
    }
}
