import Foundation
import GatewayModel
import Testing

@testable import TradeItAdapter

/// Issue 15, item 3 for TradeIt: its only order times are its fills' `timestamp`s, so a filled order's `filledAt` is
/// its last fill's; an order that is not filled has none. (The wire: `order/getAllOrderStatus` as documented in
/// /work/shared/brokers/tradeit.md, filled in for a unit test.)
@Suite("TradeIt orders: the times TradeIt has")
struct OrderTimesTests {
    func order(status: String, filled: Int) throws -> Order {
        let json = #"""
            {"orderNumber":"8000003","orderStatus":"\#(status)","orderType":"EQUITY_OR_ETF","orderExpiration":"DAY",
             "orderLegs":[{"symbol":"AAPL","action":"BUY","orderedQuantity":2,"filledQuantity":\#(filled),
                           "priceInfo":{"type":"MARKET"},
                           "fills":[{"price":150,"quantity":1,"timestamp":"2024-05-20T13:30:00Z"},
                                    {"price":151,"quantity":\#(filled - 1),"timestamp":"2024-05-20T13:31:00Z"}]}]}
            """#
        let wire = try JSONDecoder().decode(TradeItOrderStatusDetails.self, from: Data(json.utf8))
        return try Order(tradeIt: wire, connectionId: "c", accountId: "a")
    }

    @Test func aFilledOrderFilledAtItsLastFill() throws {
        let filled = try order(status: "FILLED", filled: 2)
        #expect(filled.filledAt == Date(timeIntervalSince1970: 1_716_211_860))
        #expect(filled.submittedAt == nil && filled.canceledAt == nil && filled.notional == nil)
    }

    @Test func aPartlyFilledOrderHasNoFilledAt() throws {
        let partial = try order(status: "PART_FILLED", filled: 1)
        #expect(partial.filledAt == nil)
        #expect(partial.updatedAt == Date(timeIntervalSince1970: 1_716_211_860))
    }
}
