import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import SaxoAdapter

func decodeWire<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(json.utf8))
}

@Suite("Saxo mapping")
struct MappingTests {
    // MARK: Order status

    @Test(
        "every Saxo order status maps to exactly one canonical status",
        arguments: [
            ("Working", OrderStatus.open), ("WorkingLockedChangePending", .open), ("NotWorking", .pendingNew),
            ("Parked", .pendingNew), ("LockedPlacementPending", .pendingNew), ("NotWorkingLockedChangePending", .pendingNew),
            ("WorkingLockedCancelPending", .pendingCancel), ("NotWorkingLockedCancelPending", .pendingCancel),
            ("Filled", .filled),
        ]
    )
    func statusTable(_ raw: String, _ expected: OrderStatus) throws {
        #expect(try OrderStatus(saxo: raw, filledAmount: 0) == expected)
    }

    @Test("the table holds exactly the statuses Saxo documents")
    func statusTableComplete() {
        let documented: Set<String> = [
            "Working", "NotWorking", "Filled", "Parked", "LockedPlacementPending", "WorkingLockedCancelPending",
            "WorkingLockedChangePending", "NotWorkingLockedCancelPending", "NotWorkingLockedChangePending",
        ]
        #expect(Set(saxoOrderStatuses.keys) == documented)
    }

    @Test("a working order with fills is partially filled")
    func partiallyFilled() throws {
        #expect(try OrderStatus(saxo: "Working", filledAmount: 5000) == .partiallyFilled)
        #expect(try OrderStatus(saxo: "WorkingLockedChangePending", filledAmount: 1) == .partiallyFilled)
        #expect(try OrderStatus(saxo: "WorkingLockedCancelPending", filledAmount: 1) == .pendingCancel)
    }

    @Test("an unknown status, Saxo's own Unknown included, is a malformed response", arguments: ["Unknown", "Cancelled", "working", ""])
    func unknownStatus(_ raw: String) {
        let error = #expect(throws: GatewayError.self) { try OrderStatus(saxo: raw, filledAmount: 0) }
        #expect(error?.code == .malformedResponse)
    }

    @Test("order types and durations read and write")
    func typesAndDurations() throws {
        #expect(try OrderType(saxo: "StopIfTraded") == .stop)
        #expect(try OrderType(saxo: "TrailingStop") == .stop)
        #expect(try OrderType(saxo: "StopLimit") == .stopLimit)
        #expect(throws: GatewayError.self) { try OrderType(saxo: "Algorithmic") }
        #expect(OrderType.stop.saxo(assetType: "FxSpot") == "Stop")
        #expect(OrderType.stop.saxo(assetType: "Stock") == "StopIfTraded")
        #expect(try TimeInForce(saxo: "AtTheClose") == .day)
        #expect(try TimeInForce(saxo: "GoodTillDate") == .gtd)
        let gtd = TimeInForce.gtd.saxoDuration(expiresAt: Date(timeIntervalSince1970: 1_719_763_200))
        #expect(gtd == SaxoDuration(durationType: "GoodTillDate", expirationDateTime: "2024-06-30T16:00:00", expirationDateContainsTime: true))
    }

    // MARK: Symbols

    @Test(
        "symbols normalise to the canonical form",
        arguments: [
            ("EURDKK", "FxSpot", "EUR/DKK", nil as String?), ("eurusd", "FxForwards", "EUR/USD", nil),
            ("AAPL:xnas", "Stock", "AAPL", "XNAS"), ("NOVOb:xcse", "Stock", "NOVOB", "XCSE"), ("SPY:arcx", "Etf", "SPY", "ARCX"),
            ("US500.I", "CfdOnIndex", "US500.I", nil),
        ]
    )
    func symbolNormalisation(_ raw: String, _ assetType: String, _ symbol: String, _ exchange: String?) {
        let result = SaxoSymbol.canonical(raw, assetType: assetType)
        #expect(result.symbol == symbol)
        #expect(result.exchange == exchange)
    }

    @Test("FX instruments compare equal to the canonical pair, with the Saxo identity in brokerKey")
    func fxInstrument() {
        let instrument = Instrument(saxoSymbol: "EURDKK", assetType: "FxSpot", uic: 16, name: "Euro/Danish Krone", currency: "DKK")
        #expect(instrument == Instrument(symbol: "EUR/DKK", assetClass: .fx))
        #expect(instrument.brokerKey == ["uic": "16", "assetType": "FxSpot"])
        #expect(instrument.saxoIdentity?.uic == 16)
        #expect(SaxoSymbol.fromNetPositionId("GBPCAD__FxSpot") == "GBPCAD")
        #expect(SaxoSymbol.keyword(for: InstrumentReference(symbol: "EUR/USD")) == "EURUSD")
        #expect(AssetClass(saxoAssetType: "CfdOnStock") == .cfd)
        #expect(AssetClass(saxoAssetType: "FxVanillaOption") == .option)
        #expect(AssetClass(saxoAssetType: "Something") == .other)
    }

    // MARK: Balances

    @Test(
        "available + held == total for every shape of balance",
        arguments: [
            #"{"CashBalance": 999956.74, "Currency": "EUR", "TotalValue": 996715.04}"#,
            #"{"CashBalance": 1000.10, "CashBlocked": 250.05, "Currency": "USD"}"#,
            #"{"CashBalance": 1000.10, "CashAvailableForTrading": 600.3, "CashBlocked": 250.05, "Currency": "USD"}"#,
            #"{"CashBalance": -12.5, "CashAvailableForTrading": 0, "Currency": "DKK"}"#,
        ]
    )
    func balanceInvariant(_ json: String) throws {
        let balance = try Balance(
            saxo: try decodeWire(SaxoBalance.self, json),
            connectionId: "c",
            accountId: "a",
            fallbackCurrency: "EUR",
            asOf: nil
        )
        #expect(balance.available + balance.held == balance.total)
    }

    @Test("balance fields map as documented")
    func balanceFields() throws {
        let wire = try decodeWire(
            SaxoBalance.self,
            #"{"CashBalance": 1000.10, "CashBlocked": 250.05, "Currency": "USD", "TotalValue": 1500.5, "MarginAvailableForTrading": 900.25, "MarginUtilizationPct": 1.78}"#
        )
        let balance = try Balance(saxo: wire, connectionId: "c", accountId: "a", fallbackCurrency: "EUR", asOf: nil)
        #expect(balance.total == Decimal(string: "1000.10"))
        #expect(balance.available == Decimal(string: "750.05"))
        #expect(balance.held == Decimal(string: "250.05"))
        #expect(balance.accountValue == Decimal(string: "1500.5"))
        #expect(balance.marginAvailable == Decimal(string: "900.25"))
        #expect(balance.marginUtilizationPct == Decimal(string: "1.78"))
        #expect(balance.buyingPower == nil)
        #expect(balance.currency == "USD")
    }

    // MARK: Decimals

    @Test("JSON numbers decode to the exact decimal, never through a double")
    func strictDecimals() throws {
        let wire = try decodeWire(
            SaxoBalance.self,
            #"{"CashBalance": 0.1, "TotalValue": 999956.74, "MarginUtilizationPct": 1.78, "CashBlocked": 0.30000000000000004}"#
        )
        #expect(wire.cashBalance == Decimal(string: "0.1"))
        #expect(wire.totalValue == Decimal(string: "999956.74"))
        #expect(wire.cashBlocked == Decimal(string: "0.30000000000000004"))
        #expect(DecimalText.format(wire.marginUtilizationPct!) == "1.78")
    }

    @Test("a decimal with trailing garbage, sent as a string, is refused")
    func strictDecimalStrings() {
        #expect(throws: (any Error).self) { try decodeWire(SaxoBalance.self, #"{"CashBalance": "1.5abc"}"#) }
        #expect(throws: (any Error).self) { try decodeWire(SaxoBalance.self, #"{"CashBalance": true}"#) }
    }

    @Test("order amounts and prices are sent as exact JSON numbers")
    func requestDecimals() throws {
        let request = OrderRequest(
            connectionId: "c",
            accountId: "a",
            instrument: InstrumentReference(symbol: "EUR/USD"),
            side: .sellShort,
            type: .stopLimit,
            timeInForce: .gtc,
            quantity: Decimal(string: "10000.1")!,
            limitPrice: Decimal(string: "1.10015")!,
            stopPrice: Decimal(string: "1.1002")!,
            clientOrderId: "gw-1"
        )
        let body = SaxoOrderRequest(request, accountKey: "k", uic: 21, assetType: "FxSpot", externalReference: "gw-1")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(body), as: UTF8.self)
        #expect(text.contains(#""Amount":10000.1"#))
        #expect(text.contains(#""OrderPrice":1.1002"#))
        #expect(text.contains(#""StopLimitPrice":1.10015"#))
        #expect(text.contains(#""BuySell":"Sell""#))
        #expect(text.contains(#""OrderType":"StopLimit""#))
        #expect(text.contains(#""ManualOrder":false"#))
    }

    // MARK: Orders and positions

    @Test("a stop-limit order reads its stop from Price and its limit from StopLimitPrice")
    func stopLimitOrder() throws {
        let wire = try decodeWire(
            SaxoOrder.self,
            #"""
            {"OrderId": "1", "AccountId": "9226397", "Uic": 211, "AssetType": "Stock", "BuySell": "Sell", "Amount": 10,
             "FilledAmount": 4, "Price": 150.5, "StopLimitPrice": 150.25, "OpenOrderType": "StopLimit",
             "Duration": {"DurationType": "GoodTillDate", "ExpirationDateTime": "2024-06-30T16:00:00"},
             "Status": "Working", "OrderTime": "2024-06-01T10:00:00.1234567Z", "ExternalReference": "gw-9",
             "DisplayAndFormat": {"Symbol": "AAPL:xnas", "Currency": "USD", "Description": "Apple Inc."}}
            """#
        )
        let order = try Order(saxo: wire, connectionId: "c", known: nil)
        #expect(order.instrument == Instrument(symbol: "AAPL", assetClass: .equity))
        #expect(order.instrument.exchange == "XNAS")
        #expect(order.type == .stopLimit)
        #expect(order.stopPrice == Decimal(string: "150.5"))
        #expect(order.limitPrice == Decimal(string: "150.25"))
        #expect(order.status == .partiallyFilled)
        #expect(order.filledQuantity == 4)
        #expect(order.timeInForce == .gtd)
        #expect(order.expiresAt == Date(timeIntervalSince1970: 1_719_763_200))
        #expect(order.clientOrderId == "gw-9")
        #expect(abs((order.createdAt?.timeIntervalSince1970 ?? 0) - 1_717_236_000.1234567) < 0.000_01)
    }

    @Test("an order without DisplayAndFormat and no known instrument is malformed")
    func orderWithoutInstrument() throws {
        let wire = try decodeWire(
            SaxoOrder.self,
            #"{"OrderId": "1", "Uic": 16, "AssetType": "FxSpot", "BuySell": "Buy", "Amount": 1, "OpenOrderType": "Market", "Status": "Working"}"#
        )
        let error = #expect(throws: GatewayError.self) { try Order(saxo: wire, connectionId: "c", known: nil) }
        #expect(error?.code == .malformedResponse)
    }

    @Test("a short net position is negative; a flat one is left out")
    func positions() throws {
        let short = try decodeWire(
            SaxoNetPosition.self,
            #"""
            {"NetPositionBase": {"AccountId": "1", "Amount": -100000, "AssetType": "FxSpot", "Uic": 21},
             "NetPositionId": "EURUSD__FxSpot", "NetPositionView": {"AverageOpenPrice": 1.13715, "ExposureCurrency": "EUR"}}
            """#
        )
        let position = try #require(try Position(saxo: short, connectionId: "c", accountId: "fallback"))
        #expect(position.quantity == -100000)
        #expect(position.instrument.symbol == "EUR/USD")
        #expect(position.currency == "USD")
        #expect(position.accountId == "1")
        let flat = try decodeWire(
            SaxoNetPosition.self,
            #"{"NetPositionBase": {"Amount": 0, "AssetType": "FxSpot", "Uic": 21}, "NetPositionId": "EURUSD__FxSpot"}"#
        )
        #expect(try Position(saxo: flat, connectionId: "c", accountId: "a") == nil)
    }

    // MARK: Candles

    /// hootnot/saxo_openapi chart/responses/charts.py _v3_GetChartData, first sample.
    @Test("an FX chart sample becomes mid prices")
    func fxCandle() throws {
        let sample = try decodeWire(
            SaxoChart.Sample.self,
            #"{"CloseAsk": 1.6321, "CloseBid": 1.6302, "HighAsk": 1.633, "HighBid": 1.63091, "LowAsk": 1.6316, "LowBid": 1.62974, "OpenAsk": 1.63237, "OpenBid": 1.6306, "Time": "2019-09-05T21:00:00.000000Z"}"#
        )
        let candle = try #require(Candle(saxo: sample))
        #expect(candle.open == Decimal(string: "1.631485"))
        #expect(candle.high == Decimal(string: "1.631955"))
        #expect(candle.low == Decimal(string: "1.63067"))
        #expect(candle.close == Decimal(string: "1.63115"))
        #expect(candle.volume == nil)
        #expect(candle.time == Date(timeIntervalSince1970: 1_567_717_200))
    }

    @Test("an exchange-traded chart sample maps field by field")
    func listedCandle() throws {
        let sample = try decodeWire(
            SaxoChart.Sample.self,
            #"{"Time": "2024-01-02T14:30:00.000000Z", "Open": 187.15, "High": 188.44, "Low": 183.89, "Close": 185.64, "Volume": 82488700, "Interest": 0}"#
        )
        let candle = try #require(Candle(saxo: sample))
        #expect(candle.close == Decimal(string: "185.64"))
        #expect(candle.volume == 82_488_700)
    }

    // MARK: Errors

    @Test("trading error codes map through the table")
    func errorTable() {
        func error(_ status: Int, _ body: String, headers: [(name: String, value: String)] = []) -> GatewayError {
            SaxoErrors.error(for: BrokerResponse(status: status, headers: headers, body: Data(body.utf8)))
        }
        #expect(error(400, #"{"ErrorInfo": {"ErrorCode": "InsufficentCash", "Message": "Insufficient cash"}}"#).code == .insufficientFunds)
        #expect(error(400, #"{"ErrorCode": "WouldExceedMargin", "Message": "Would exceed margin"}"#).code == .insufficientFunds)
        let wrongSide = error(
            400,
            #"{"Orders": [{"ErrorInfo": {"ErrorCode": "OnWrongSideOfMarket", "Message": "Price is on wrong side of market"}}]}"#
        )
        #expect(wrongSide.code == .unprocessable)
        #expect(wrongSide.brokerCode == "OnWrongSideOfMarket")
        #expect(wrongSide.details == [FieldProblem(field: "limitPrice", problem: "Price is on wrong side of market")])
        let model = error(
            400,
            #"{"Message": "One or more properties of the request are invalid!", "ModelState": {"Orders[0].Amount": ["'Amount' must be greater than '0'."]}, "ErrorCode": "InvalidModelState"}"#
        )
        #expect(model.code == .unprocessable)
        #expect(model.details.first?.field == "Orders[0].Amount")
        #expect(error(403, "").code == .forbidden)
        #expect(error(404, "").code == .notFound)
        #expect(error(409, "").code == .conflict)
        #expect(error(503, "<html>").code == .upstreamUnavailable)
        #expect(error(504, "").code == .upstreamTimeout)
        let limited = error(
            429,
            "",
            headers: [
                ("X-RateLimit-SessionOrders-Remaining", "0"), ("X-RateLimit-SessionOrders-Reset", "1"),
                ("X-RateLimit-Session-Remaining", "3"), ("X-RateLimit-Session-Reset", "50"),
            ]
        )
        #expect(limited.code == .rateLimited)
        #expect(limited.retryAfter == 1)
        #expect(limited.retryable)
    }

    // MARK: Configuration

    @Test("the auth host follows the base URL unless configured")
    func authBaseURL() throws {
        #expect(SaxoConfiguration.defaultAuthBaseURL(for: "https://gateway.saxobank.com/sim/openapi") == "https://sim.logonvalidation.net")
        #expect(SaxoConfiguration.defaultAuthBaseURL(for: "https://gateway.saxobank.com/openapi") == "https://live.logonvalidation.net")
        #expect(SaxoConfiguration.defaultAuthBaseURL(for: "http://127.0.0.1:8123/sim/openapi") == "http://127.0.0.1:8123")
        let configured = try SaxoConfiguration(
            baseURL: "https://gateway.saxobank.com/sim/openapi/",
            settings: ["authBaseURL": "https://auth.example/"],
            credentials: BrokerCredentials(Fixture.appCredentials)
        )
        #expect(configured.baseURL == "https://gateway.saxobank.com/sim/openapi")
        #expect(configured.authBaseURL == "https://auth.example")
        #expect(throws: GatewayError.self) {
            try SaxoConfiguration(baseURL: Fixture.baseURL, settings: [:], credentials: BrokerCredentials(["refreshToken": "r"]))
        }
        #expect(throws: GatewayError.self) {
            try SaxoConfiguration(baseURL: Fixture.baseURL, settings: [:], credentials: BrokerCredentials([:]))
        }
    }

    @Test("times with seven fraction digits, local times and .NET's empty date")
    func timestamps() throws {
        let precise = try #require(SaxoTimestamp.parse("2019-03-07T14:54:17.423333Z"))
        #expect(abs(precise.timeIntervalSince1970 - 1_551_970_457.423333) < 0.000_01)
        #expect(SaxoTimestamp.parse("2022-01-01T13:00") == Date(timeIntervalSince1970: 1_641_042_000))
        #expect(SaxoTimestamp.parse("2022-01-01") == Date(timeIntervalSince1970: 1_640_995_200))
        #expect(SaxoTimestamp.parse("0001-01-01T00:00:00Z") == nil)
        #expect(SaxoTimestamp.parse("yesterday") == nil)
    }
}
