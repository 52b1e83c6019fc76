import Foundation
import GatewayModel
import Testing

@testable import SaxoAdapter

/// Issue 15, item 4 for Saxo: a short net position reads with the gateway's signs, whatever sign Saxo wrote its
/// `MarketValue` in. The wire here is a unit test's (the documented NetPositionBase/NetPositionView fields, with a
/// negative Amount), not a recorded payload: no recorded Saxo short position was found for a contract case.
@Suite("Saxo positions: the gateway's signs")
struct PositionSignTests {
    @Test(arguments: ["-35390", "35390"])
    func aShortStockPositionsMarketValueIsNegative(marketValue: String) throws {
        let wire = try decodeWire(
            SaxoNetPosition.self,
            #"""
            {"NetPositionBase": {"AccountId": "1", "Amount": -100, "AssetType": "Stock", "Uic": 211},
             "NetPositionId": "211__Stock",
             "DisplayAndFormat": {"Currency": "USD", "Symbol": "AAPL:xnas", "Description": "Apple Inc."},
             "NetPositionView": {"AverageOpenPrice": 350.0, "CurrentPrice": 353.9, "ExposureCurrency": "USD",
                                 "MarketValue": \#(marketValue), "ProfitLossOnTrade": -390}}
            """#
        )
        let position = try #require(try Position(saxo: wire, connectionId: "c", accountId: "fallback"))
        #expect(position.quantity == -100)
        #expect(position.marketValue == -35390)
        // The price rose: the short lost, and Saxo's P/L says so as sent.
        #expect(position.unrealizedPnl == -390)
        #expect(position.averagePrice == 350 && position.lastPrice == DecimalText.parse("353.9"))
        #expect(position.costBasis == nil)
    }

    @Test func aLongPositionKeepsItsSigns() throws {
        let wire = try decodeWire(
            SaxoNetPosition.self,
            #"""
            {"NetPositionBase": {"AccountId": "1", "Amount": 100, "AssetType": "Stock", "Uic": 211},
             "NetPositionId": "211__Stock",
             "DisplayAndFormat": {"Currency": "USD", "Symbol": "AAPL:xnas", "Description": "Apple Inc."},
             "NetPositionView": {"AverageOpenPrice": 350.0, "CurrentPrice": 353.9, "ExposureCurrency": "USD",
                                 "MarketValue": 35390, "ProfitLossOnTrade": 390}}
            """#
        )
        let position = try #require(try Position(saxo: wire, connectionId: "c", accountId: "fallback"))
        #expect(position.quantity == 100 && position.marketValue == 35390 && position.unrealizedPnl == 390)
    }
}
