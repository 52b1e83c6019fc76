import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import SaxoAdapter

/// Pure mappings of this issue's Saxo reads: an order's end from its audit entries, and an FX position's market value
/// from its exposure.
@Suite("Saxo mapping: order activities and FX market value")
struct OrderActivityMappingTests {
    static func entries(_ json: String) throws -> [SaxoOrderActivity] {
        try decodeWire(SaxoList<SaxoOrderActivity>.self, json).data
    }

    /// Saxo's guide (developer.saxo/openapi/learn/audit-orderactivities), a market order filled at once, completed
    /// with the members its reference lists (the guide elides them).
    static let marketFilled = #"""
        {"__count": 2, "Data": [
          {"AccountId": "9226397", "ActivityTime": "2018-05-15T15:14:43.908000Z", "Amount": 500, "AssetType": "Stock",
           "BuySell": "Buy", "Duration": {"DurationType": "DayOrder"}, "ExternalReference": "gw-1", "LogId": "34139673",
           "OrderId": "1000001", "OrderType": "Market", "Status": "Placed", "SubStatus": "Confirmed", "Uic": 211,
           "DisplayAndFormat": {"Currency": "USD", "Decimals": 2, "Description": "Apple Inc.", "Symbol": "AAPL:xnas"}},
          {"AccountId": "9226397", "ActivityTime": "2018-05-15T15:14:44.588000Z", "Amount": 500, "AssetType": "Stock",
           "AveragePrice": 99.9, "BuySell": "Buy", "Duration": {"DurationType": "DayOrder"}, "ExecutionPrice": 99.9,
           "ExternalReference": "gw-1", "FillAmount": 500, "FilledAmount": 500, "LogId": "34139674", "OrderId": "1000001",
           "OrderType": "Market", "PositionId": "5027430598", "Status": "FinalFill", "SubStatus": "Confirmed", "Uic": 211,
           "DisplayAndFormat": {"Currency": "USD", "Decimals": 2, "Description": "Apple Inc.", "Symbol": "AAPL:xnas"}}]}
        """#

    @Test("Placed then FinalFill: filled, with quantity, average price and the fill's time")
    func filled() throws {
        let order = try #require(
            try Order(
                saxoActivities: try Self.entries(Self.marketFilled),
                brokerOrderId: "1000001",
                connectionId: "c",
                known: nil
            )
        )
        #expect(order.status == .filled)
        #expect(order.filledQuantity == 500 && order.quantity == 500)
        #expect(order.averageFillPrice == DecimalText.parse("99.9"))
        #expect(order.filledAt == SaxoTimestamp.parse("2018-05-15T15:14:44.588000Z"))
        #expect(order.createdAt == SaxoTimestamp.parse("2018-05-15T15:14:43.908000Z"))
        #expect(order.clientOrderId == "gw-1" && order.accountId == "9226397")
        #expect(order.instrument.symbol == "AAPL" && order.type == .market && order.side == .buy)
        #expect(order.brokerStatus == "FinalFill")
    }

    @Test("entries arriving out of order are read in LogId order")
    func logOrder() throws {
        let reversed = Array(try Self.entries(Self.marketFilled).reversed())
        let order = try #require(try Order(saxoActivities: reversed, brokerOrderId: "1000001", connectionId: "c", known: nil))
        #expect(order.status == .filled)
    }

    @Test(
        "each final activity maps to one state",
        arguments: [
            ("Cancelled", "Confirmed", "DayOrder", 0, OrderStatus.canceled),
            ("Cancelled", "Requested", "DayOrder", 0, .pendingCancel),
            ("Expired", "Confirmed", "DayOrder", 0, .expired),
            ("DoneForDay", "Confirmed", "DayOrder", 0, .expired),
            ("DoneForDay", "Confirmed", "GoodTillCancel", 0, .open),
            ("Fill", "Confirmed", "GoodTillCancel", 200, .partiallyFilled),
            ("FinalFill", "Confirmed", "GoodTillCancel", 500, .filled),
            ("Placed", "Rejected", "DayOrder", 0, .rejected),
            ("Placed", "Requested", "DayOrder", 0, .pendingNew),
            ("Placed", "Confirmed", "DayOrder", 0, .open),
            ("Changed", "Confirmed", "DayOrder", 200, .partiallyFilled),
            ("Working", "Confirmed", "DayOrder", 0, .open),
        ] as [(String, String, String, Decimal, OrderStatus)]
    )
    func states(_ status: String, _ subStatus: String, _ duration: String, _ filled: Decimal, _ expected: OrderStatus) throws {
        #expect(try OrderStatus(saxoActivity: status, subStatus: subStatus, filledAmount: filled, durationType: duration) == expected)
    }

    @Test("an unknown activity status is a malformed answer, not a guess", arguments: ["Filled", "Rejected", ""])
    func unknownStatus(_ status: String) {
        #expect(throws: GatewayError.self) {
            try OrderStatus(saxoActivity: status, subStatus: "Confirmed", filledAmount: 0, durationType: "DayOrder")
        }
    }

    @Test("a refused cancel request leaves the order as it was (still open, at its changed price)")
    func refusedCancel() throws {
        let json = #"""
            {"Data": [
              {"ActivityTime": "2026-01-05T10:00:00Z", "Amount": 1000, "AssetType": "FxSpot", "BuySell": "Sell",
               "LogId": "7", "OrderId": "42", "OrderType": "Limit", "Price": 1.1, "Status": "Placed", "SubStatus": "Confirmed", "Uic": 21},
              {"ActivityTime": "2026-01-05T10:01:00Z", "Amount": 1000, "AssetType": "FxSpot", "BuySell": "Sell",
               "LogId": "8", "OrderId": "42", "OrderType": "Limit", "Price": 1.2, "Status": "Changed", "SubStatus": "Confirmed", "Uic": 21},
              {"ActivityTime": "2026-01-05T10:02:00Z", "Amount": 1000, "AssetType": "FxSpot", "BuySell": "Sell",
               "LogId": "9", "OrderId": "42", "OrderType": "Limit", "Price": 1.2, "Status": "Cancelled", "SubStatus": "Rejected", "Uic": 21},
              {"ActivityTime": "2026-01-05T10:02:00Z", "Amount": 5, "AssetType": "FxSpot", "BuySell": "Buy",
               "LogId": "10", "OrderId": "43", "OrderType": "Market", "Status": "FinalFill", "SubStatus": "Confirmed", "Uic": 21}]}
            """#
        let known = Instrument(symbol: "EUR/USD", assetClass: .fx)
        let order = try #require(try Order(saxoActivities: try Self.entries(json), brokerOrderId: "42", connectionId: "c", known: known))
        #expect(order.status == .open)
        #expect(order.limitPrice == DecimalText.parse("1.2"))
        #expect(order.side == .sell && order.quantity == 1000 && order.timeInForce == .day)
        #expect(order.updatedAt == SaxoTimestamp.parse("2026-01-05T10:02:00Z"))
        #expect(try Order(saxoActivities: try Self.entries(json), brokerOrderId: "44", connectionId: "c", known: known) == nil)
    }

    /// hootnot/saxo_openapi, saxo_openapi/endpoints/portfolio/responses/netpositions.py, `_v3_NetPositionsMe`: the
    /// GBPCAD net position of a 2019 SIM account in EUR, as recorded (no `MarketValue`, as Saxo sends FX).
    static let gbpcad = #"""
        {"NetPositionBase": {"Amount": 100000, "AssetType": "FxSpot", "CanBeClosed": true, "ClientId": "9226397",
                             "IsMarketOpen": true, "NumberOfRelatedOrders": 0, "PositionsAccount": "9226397",
                             "SinglePositionId": "212550210", "SinglePositionStatus": "Open", "Uic": 23,
                             "ValueDate": "2019-03-06T00:00:00.000000Z"},
         "NetPositionId": "GBPCAD__FxSpot",
         "NetPositionView": {"AverageOpenPrice": 1.75824, "CalculationReliability": "Ok", "CurrentPrice": 1.75322,
                             "CurrentPriceDelayMinutes": 0, "CurrentPriceType": "Bid", "Exposure": 100000,
                             "ExposureCurrency": "GBP", "ExposureInBaseCurrency": 116201.5,
                             "InstrumentPriceDayPercentChange": -0.17, "PositionCount": 1, "PositionsNotClosedCount": 1,
                             "ProfitLossOnTrade": -502, "ProfitLossOnTradeInBaseCurrency": -332.64, "Status": "Open",
                             "TradeCostsTotal": -17.56, "TradeCostsTotalInBaseCurrency": -11.64}}
        """#

    @Test("an FX net position without MarketValue is worth its exposure at the current price, in the quote currency")
    func fxMarketValue() throws {
        let position = try #require(
            try Position(
                saxo: try decodeWire(SaxoNetPosition.self, Self.gbpcad),
                connectionId: "c",
                accountId: "9226397"
            )
        )
        #expect(position.currency == "CAD")
        // GBP 100000 × 1.75322 CAD per GBP.
        #expect(position.marketValue == DecimalText.parse("175322"))
        #expect(position.marketValue == position.quantity * (position.lastPrice ?? 0))
    }

    @Test("a short FX position's value is negative, like its quantity")
    func shortFXMarketValue() throws {
        let short = Self.gbpcad.replacingOccurrences(of: #""Amount": 100000"#, with: #""Amount": -100000"#)
            .replacingOccurrences(of: #""Exposure": 100000"#, with: #""Exposure": -100000"#)
        let position = try #require(
            try Position(
                saxo: try decodeWire(SaxoNetPosition.self, short),
                connectionId: "c",
                accountId: "9226397"
            )
        )
        #expect(position.quantity == -100_000)
        #expect(position.marketValue == DecimalText.parse("-175322"))
    }

    @Test("an exposure in a currency that does not connect to the position's gives no value rather than a wrong one")
    func unconnectedExposure() throws {
        let odd = Self.gbpcad.replacingOccurrences(of: #""ExposureCurrency": "GBP""#, with: #""ExposureCurrency": "JPY""#)
        let position = try #require(
            try Position(
                saxo: try decodeWire(SaxoNetPosition.self, odd),
                connectionId: "c",
                accountId: "9226397"
            )
        )
        #expect(position.marketValue == nil)
    }
}
