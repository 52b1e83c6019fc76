import Foundation
import GatewayModel
import Testing

@testable import TradeItAdapter

/// Issue 15, item 4 for TradeIt: TradeIt sends a holding's `costbasis` as its total cost, a positive amount for a
/// `SHORT` holding too; the gateway signs it like the quantity. The wire here is a unit test's (the documented
/// `position/getPositions` fields, /work/shared/brokers/tradeit.md, with `holdingType` SHORT), not a recorded payload:
/// the TradeIt service is gone and no recorded short position was found for a contract case.
@Suite("TradeIt positions: the gateway's signs")
struct PositionSignTests {
    func position(_ json: String) throws -> Position {
        let wire = try JSONDecoder().decode(TradeItPosition.self, from: Data(json.utf8))
        return try Position(tradeIt: wire, connectionId: "c", accountId: "a")
    }

    @Test(arguments: ["12", "-12"])
    func aShortHoldingIsNegativeWithItsCostBasisAndValue(quantity: String) throws {
        let short = try position(
            #"""
            {"symbol":"GE","symbolClass":"EQUITY_OR_ETF","holdingType":"SHORT","quantity":\#(quantity),
             "costbasis":358.08,"lastPrice":29.84,"totalGainLossAbsolute":0}
            """#
        )
        #expect(short.quantity == -12)
        #expect(short.costBasis == DecimalText.parse("-358.08"))
        #expect(short.marketValue == DecimalText.parse("-358.08"))
        #expect(short.averagePrice == DecimalText.parse("29.84"))
        #expect(short.lastPrice == DecimalText.parse("29.84"))
        #expect(short.unrealizedPnl == 0)
    }

    @Test func aLongHoldingKeepsItsSigns() throws {
        let long = try position(
            #"""
            {"symbol":"AAPL","symbolClass":"EQUITY_OR_ETF","holdingType":"LONG","quantity":1,"costbasis":103.34,
             "lastPrice":112.34,"totalGainLossAbsolute":9}
            """#
        )
        #expect(long.quantity == 1 && long.costBasis == DecimalText.parse("103.34"))
        #expect(long.marketValue == DecimalText.parse("112.34") && long.unrealizedPnl == 9)
    }
}
