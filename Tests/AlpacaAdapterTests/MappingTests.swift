import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Testing

@testable import AlpacaAdapter

/// Decodes a wire DTO from JSON text, as the adapter does.
func wire<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(json.utf8))
}

/// An order body in Alpaca's form with one field replaced.
func orderJSON(
    status: String = "accepted",
    side: String = "buy",
    type: String = "market",
    tif: String = "day",
    qty: String = "\"1\"",
    symbol: String = "AAPL",
    assetClass: String = "us_equity",
    extra: String = ""
) -> String {
    """
    {"id": "61e69015-8549-4bfd-b9c3-01e75843f47d", "client_order_id": "c-1", "created_at": "2021-03-16T18:38:01.942282Z",
     "updated_at": "2021-03-16T18:38:01.942282Z", "submitted_at": "2021-03-16T18:38:01.937734Z",
     "asset_id": "904837e3-3b76-47ec-b432-046db621571b", "symbol": "\(symbol)", "asset_class": "\(assetClass)",
     "notional": null, "qty": \(qty), "filled_qty": "0", "filled_avg_price": null, "order_class": "simple",
     "order_type": "\(type)", "type": "\(type)", "side": "\(side)", "time_in_force": "\(tif)", "limit_price": null,
     "stop_price": null, "status": "\(status)", "extended_hours": false \(extra)}
    """
}

@Suite("Alpaca enum mapping")
struct EnumMappingTests {
    /// Every order status alpaca-py knows, plus `activated` (ccxt), with the canonical state decided for it.
    static let statuses: [(String, OrderStatus)] = [
        ("new", .open), ("partially_filled", .partiallyFilled), ("filled", .filled), ("done_for_day", .open),
        ("canceled", .canceled), ("expired", .expired), ("replaced", .replaced), ("pending_cancel", .pendingCancel),
        ("pending_replace", .open), ("pending_review", .pendingNew), ("accepted", .pendingNew),
        ("pending_new", .pendingNew), ("accepted_for_bidding", .open), ("stopped", .open), ("rejected", .rejected),
        ("suspended", .open), ("calculated", .open), ("held", .pendingNew), ("activated", .open),
    ]

    @Test("every Alpaca order status maps to exactly one canonical status", arguments: statuses)
    func status(_ raw: String, _ expected: OrderStatus) throws {
        #expect(try OrderStatus(alpaca: raw) == expected)
        let order = try Order(
            alpaca: try wire(AlpacaOrder.self, orderJSON(status: raw)),
            connectionId: "c",
            accountId: "a"
        )
        #expect(order.status == expected)
        #expect(order.brokerStatus == raw)
    }

    @Test("the table covers alpaca-py's whole status set and nothing is left to a default")
    func tableIsComplete() {
        let alpacaPy: Set<String> = [
            "new", "partially_filled", "filled", "done_for_day", "canceled", "expired", "replaced", "pending_cancel",
            "pending_replace", "pending_review", "accepted", "pending_new", "accepted_for_bidding", "stopped", "rejected",
            "suspended", "calculated", "held",
        ]
        #expect(alpacaPy.isSubset(of: Set(alpacaOrderStatuses.keys)))
        #expect(Set(Self.statuses.map(\.0)) == Set(alpacaOrderStatuses.keys))
    }

    @Test("an unknown status is a malformed response, never a default", arguments: ["", "NEW", "open", "cancelled", "pending"])
    func unknownStatus(_ raw: String) throws {
        let error = #expect(throws: GatewayError.self) { try OrderStatus(alpaca: raw) }
        #expect(error?.code == .malformedResponse)
        #expect(error?.broker == .alpaca)
        let order = try wire(AlpacaOrder.self, orderJSON(status: raw))
        #expect(throws: GatewayError.self) { try Order(alpaca: order, connectionId: "c", accountId: "a") }
    }

    @Test("sides, with position intent telling short sales apart")
    func sides() throws {
        #expect(try OrderSide(alpaca: "buy", positionIntent: nil) == .buy)
        #expect(try OrderSide(alpaca: "buy", positionIntent: "buy_to_open") == .buy)
        #expect(try OrderSide(alpaca: "buy", positionIntent: "buy_to_close") == .buyToCover)
        #expect(try OrderSide(alpaca: "sell", positionIntent: nil) == .sell)
        #expect(try OrderSide(alpaca: "sell", positionIntent: "sell_to_close") == .sell)
        #expect(try OrderSide(alpaca: "sell", positionIntent: "sell_to_open") == .sellShort)
        #expect(throws: GatewayError.self) { try OrderSide(alpaca: "sell_short", positionIntent: nil) }
        #expect(OrderSide.sellShort.alpaca == "sell")
        #expect(OrderSide.buyToCover.alpaca == "buy")
    }

    @Test("types and time in force, both ways")
    func typesAndTimeInForce() throws {
        for type in OrderType.allCases { #expect(try OrderType(alpaca: type.alpaca) == type) }
        #expect(try OrderType(alpaca: "trailing_stop") == .stop)
        #expect(throws: GatewayError.self) { try OrderType(alpaca: "bracket") }
        for tif in TimeInForce.allCases where tif != .gtd { #expect(try TimeInForce(alpaca: tif.alpaca!) == tif) }
        #expect(TimeInForce.gtd.alpaca == nil)
        #expect(try TimeInForce(alpaca: "opg") == .day)
        #expect(try TimeInForce(alpaca: "cls") == .day)
        #expect(throws: GatewayError.self) { try TimeInForce(alpaca: "gtd") }
    }

    @Test("asset classes are descriptive")
    func assetClasses() {
        #expect(AssetClass(alpaca: "us_equity") == .equity)
        #expect(AssetClass(alpaca: "crypto") == .crypto)
        #expect(AssetClass(alpaca: "us_option") == .option)
        #expect(AssetClass(alpaca: "something_new") == .other)
    }
}

@Suite("Alpaca wire decoding and mapping")
struct WireMappingTests {
    @Test("decimals are parsed strictly, from strings or numbers", arguments: ["\"1.5abc\"", "\"\"", "\"1,5\"", "\"NaN\"", "\" 1\"", "true"])
    func strictDecimals(_ qty: String) {
        #expect(throws: DecodingError.self) { try wire(AlpacaOrder.self, orderJSON(qty: qty)) }
    }

    @Test("decimal strings and numbers both decode exactly")
    func decimalsBothWays() throws {
        #expect(try wire(AlpacaOrder.self, orderJSON(qty: "\"0.000000001\"")).qty == DecimalText.parse("0.000000001"))
        #expect(try wire(AlpacaOrder.self, orderJSON(qty: "2")).qty == 2)
        #expect(try wire(AlpacaOrder.self, orderJSON(qty: "null")).qty == nil)
    }

    @Test("a body the adapter cannot read is malformed_response, naming the field")
    func malformedBody() async throws {
        let body = orderJSON(qty: "\"1.5abc\"")
        let transport = queued([(200, accountJSON), (200, body)])
        let adapter = try makeAdapter(transport)
        let error = await #expect(throws: GatewayError.self) { try await adapter.order(brokerOrderId: "x") }
        #expect(error?.code == .malformedResponse)
        #expect(error?.message.contains("qty") == true)
    }

    @Test("crypto symbols: BTC/USD in orders and assets, BTCUSD in positions, one canonical instrument")
    func cryptoSymbols() throws {
        #expect(AlpacaSymbol.canonicalCrypto("BTCUSD") == "BTC/USD")
        #expect(AlpacaSymbol.canonicalCrypto("BTC/USD") == "BTC/USD")
        #expect(AlpacaSymbol.canonicalCrypto("ETHUSDT") == "ETH/USDT")
        #expect(AlpacaSymbol.canonicalCrypto("DOGEUSDC") == "DOGE/USDC")
        #expect(AlpacaSymbol.canonicalCrypto("ETHBTC") == "ETH/BTC")
        #expect(AlpacaSymbol.canonicalCrypto("USD") == "USD")

        let position = try Position(
            alpaca: try wire(
                AlpacaPosition.self,
                """
                {"asset_id": "a1", "symbol": "BTCUSD", "exchange": "FTXU", "asset_class": "crypto",
                 "avg_entry_price": "19660.57", "qty": "2.61937", "side": "long", "cost_basis": "51498.3174"}
                """
            ),
            connectionId: "c",
            accountId: "a"
        )
        let order = try Order(
            alpaca: try wire(AlpacaOrder.self, orderJSON(tif: "gtc", symbol: "BTC/USD", assetClass: "crypto")),
            connectionId: "c",
            accountId: "a"
        )
        let asset = Instrument(
            alpaca: try wire(
                AlpacaAsset.self,
                """
                {"id": "a1", "class": "crypto", "exchange": "CRYPTO", "symbol": "BTC/USD", "name": "Bitcoin / US Dollar"}
                """
            )
        )
        for instrument in [position.instrument, order.instrument, asset] {
            #expect(instrument.symbol == "BTC/USD")
            #expect(instrument.assetClass == .crypto)
            #expect(instrument.currency == "USD")
            #expect(instrument.exchange == nil)
        }
        #expect(position.instrument == order.instrument && order.instrument == asset)
        #expect(InstrumentReference(symbol: "BTC/USD").alpacaSymbol == "BTC/USD")
    }

    @Test("equities carry the MIC and the asset id")
    func equityInstrument() throws {
        let asset = Instrument(
            alpaca: try wire(
                AlpacaAsset.self,
                """
                {"id": "904837e3", "class": "us_equity", "exchange": "NASDAQ", "symbol": "AAPL", "name": "Apple Inc."}
                """
            )
        )
        #expect(asset == Instrument(symbol: "AAPL", assetClass: .equity))
        #expect(asset.exchange == "XNAS")
        #expect(asset.brokerKey == ["assetId": "904837e3"])
    }

    @Test("a short position has a negative quantity, whatever sign qty carries", arguments: ["\"-10\"", "\"10\""])
    func shortSign(_ qty: String) throws {
        let position = try Position(
            alpaca: try wire(
                AlpacaPosition.self,
                """
                {"asset_id": "a1", "symbol": "TSLA", "exchange": "NASDAQ", "asset_class": "us_equity",
                 "avg_entry_price": "250", "qty": \(qty), "side": "short", "cost_basis": "-2500"}
                """
            ),
            connectionId: "c",
            accountId: "a"
        )
        #expect(position.quantity == -10)
        let long = try Position(
            alpaca: try wire(
                AlpacaPosition.self,
                """
                {"asset_id": "a1", "symbol": "TSLA", "exchange": "NASDAQ", "asset_class": "us_equity",
                 "avg_entry_price": "250", "qty": "10", "side": "long", "cost_basis": "2500"}
                """
            ),
            connectionId: "c",
            accountId: "a"
        )
        #expect(long.quantity == 10)
    }

    static let balanceAccounts: [(cash: String, buyingPower: String?, nonMarginable: String?)] = [
        ("-23140.2", "262113.632", "98945.02"),  // margin loan (alpaca-py's fixture)
        ("100000", "99500", nil),  // cash account with an open buy order
        ("100000", "400000", "99000"),  // margin account: non-marginable buying power is the cash part
        ("4000.32", nil, nil),  // nothing but cash (alpaca-trade-api's v1 fixture)
        ("500", "0", "0"),  // everything reserved
        ("0", "0", "0"),
        ("100", "-5", nil),  // a negative buying power is capped at zero
    ]

    @Test("balances keep available + held == total", arguments: balanceAccounts)
    func balanceInvariant(_ sample: (cash: String, buyingPower: String?, nonMarginable: String?)) throws {
        var fields = ["\"id\": \"a1\"", "\"account_number\": \"N1\"", "\"status\": \"ACTIVE\"", "\"cash\": \"\(sample.cash)\""]
        if let bp = sample.buyingPower { fields.append("\"buying_power\": \"\(bp)\"") }
        if let nm = sample.nonMarginable { fields.append("\"non_marginable_buying_power\": \"\(nm)\"") }
        let balance = Balance(alpaca: try wire(AlpacaAccount.self, "{" + fields.joined(separator: ",") + "}"), connectionId: "c")
        #expect(balance.available + balance.held == balance.total)
        #expect(balance.total == DecimalText.parse(sample.cash))
        if balance.total > 0 {
            #expect(balance.available >= 0 && balance.available <= balance.total)
            #expect(balance.held >= 0)
        } else {
            #expect(balance.held == 0)
        }
        #expect(balance.currency == "USD")
    }

    @Test("RFC 3339 timestamps with nine fraction digits and offsets")
    func timestamps() throws {
        let nanos = try #require(RFC3339Timestamp.parse("2024-07-18T04:10:33.389152169-04:00"))
        let utc = try #require(RFC3339Timestamp.parse("2024-07-18T08:10:33.389152Z"))
        #expect(abs(nanos.timeIntervalSince(utc)) < 0.000_01)
        #expect(RFC3339Timestamp.parse("2019-08-24T14:15:22Z") == Date(timeIntervalSince1970: 1_566_656_122))
        #expect(RFC3339Timestamp.parse("2019-08-24 14:15:22") == nil)
        #expect(RFC3339Timestamp.parse("2019-08-24T14:15:22.Z") == nil)
        #expect(RFC3339Timestamp.parse("2019-13-24T14:15:22Z") == nil)
        #expect(RFC3339Timestamp.format(Date(timeIntervalSince1970: 1_704_067_200)) == "2024-01-01T00:00:00Z")
        #expect(RFC3339Timestamp.format(Date(timeIntervalSince1970: 1_704_067_200.25)) == "2024-01-01T00:00:00.250Z")
    }
}
