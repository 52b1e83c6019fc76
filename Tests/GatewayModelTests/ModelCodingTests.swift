import Foundation
import GatewayModel
import Testing

@Suite("Model JSON")
struct ModelCodingTests {
    let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
    let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func balanceWritesDecimalsAsStrings() throws {
        let balance = Balance(
            connectionId: "c1",
            accountId: "a1",
            currency: "BTC",
            total: try #require(DecimalText.parse("1.00000001")),
            available: try #require(DecimalText.parse("0.5")),
            held: try #require(DecimalText.parse("0.50000001"))
        )
        let json = try object(try encoder.encode(balance))
        #expect(json["total"] as? String == "1.00000001")
        #expect(json["available"] as? String == "0.5")
        #expect(json["held"] as? String == "0.50000001")
        #expect(json["buyingPower"] == nil)
        let back = try decoder.decode(Balance.self, from: try encoder.encode(balance))
        #expect(back == balance)
        #expect(back.available + back.held == back.total)
    }

    @Test func orderRequestAcceptsStringsAndNumbers() throws {
        let strings = #"{"connectionId":"c","accountId":"a","symbol":"AAPL","side":"buy","type":"limit","quantity":"10","limitPrice":"123.45"}"#
        let numbers = #"{"connectionId":"c","accountId":"a","symbol":"AAPL","side":"buy","type":"limit","quantity":10,"limitPrice":123.45}"#
        let a = try decoder.decode(OrderRequest.self, from: Data(strings.utf8))
        let b = try decoder.decode(OrderRequest.self, from: Data(numbers.utf8))
        #expect(a == b)
        #expect(a.limitPrice == DecimalText.parse("123.45"))
        #expect(a.timeInForce == .day)
        let json = try object(try encoder.encode(a))
        #expect(json["quantity"] as? String == "10")
        #expect(json["limitPrice"] as? String == "123.45")
    }

    @Test func orderRequestRejectsPrefixDecimalsAndUnknownEnums() {
        let prefix = #"{"connectionId":"c","accountId":"a","symbol":"AAPL","side":"buy","type":"market","quantity":"1.5abc"}"#
        #expect(throws: DecodingError.self) { try decoder.decode(OrderRequest.self, from: Data(prefix.utf8)) }
        let side = #"{"connectionId":"c","accountId":"a","symbol":"AAPL","side":"hold","type":"market","quantity":"1"}"#
        do {
            _ = try decoder.decode(OrderRequest.self, from: Data(side.utf8))
            Issue.record("an unknown side decoded")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map(\.stringValue) == ["side"])
            #expect(context.debugDescription.contains("buy, sell, sell_short, buy_to_cover"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func orderRequestRules() {
        var request = OrderRequest(
            connectionId: "c",
            accountId: "a",
            instrument: .init(symbol: "AAPL"),
            side: .buy,
            type: .limit,
            timeInForce: .day,
            quantity: 0
        )
        let fields = Set(request.problems().map(\.field))
        #expect(fields == ["quantity", "limitPrice"])
        request.quantity = -1
        request.type = .market
        request.limitPrice = 5
        #expect(Set(request.problems().map(\.field)) == ["quantity", "limitPrice"])
        request.quantity = 1
        request.limitPrice = nil
        #expect(request.problems().isEmpty)
        request.type = .stopLimit
        #expect(Set(request.problems().map(\.field)) == ["limitPrice", "stopPrice"])
        request.type = .market
        request.timeInForce = .gtd
        #expect(request.problems().map(\.field) == ["expiresAt"])
    }

    @Test func orderRoundTrips() throws {
        let order = Order(
            id: "ord_1",
            brokerOrderId: "b1",
            clientOrderId: "c1",
            connectionId: "conn",
            broker: .alpaca,
            accountId: "acc",
            instrument: Instrument(symbol: "BTC/USD", assetClass: .crypto),
            side: .sellShort,
            type: .stopLimit,
            timeInForce: .gtc,
            quantity: try #require(DecimalText.parse("0.00000001")),
            limitPrice: 100,
            stopPrice: 101,
            status: .partiallyFilled,
            filledQuantity: 0,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000)
        )
        let data = try encoder.encode(order)
        let json = try object(data)
        #expect(json["side"] as? String == "sell_short")
        #expect(json["status"] as? String == "partially_filled")
        #expect(json["quantity"] as? String == "0.00000001")
        #expect(try decoder.decode(Order.self, from: data) == order)
    }

    @Test func sameInstrumentFromTwoBrokersIsEqual() {
        let saxo = Instrument(symbol: "EUR/USD", assetClass: .fx, name: "Euro/US Dollar", brokerKey: ["uic": "21", "assetType": "FxSpot"])
        let other = Instrument(symbol: "EUR/USD", assetClass: .fx, brokerKey: ["market": "EUR-USD"])
        #expect(saxo == other)
        #expect(Set([saxo, other]).count == 1)
        #expect(saxo != Instrument(symbol: "EUR/USD", assetClass: .crypto))
        #expect(saxo.pair?.base == "EUR")
    }

    @Test func impliedAssetClass() {
        #expect(InstrumentReference(symbol: "EUR/DKK").impliedAssetClass == .fx)
        #expect(InstrumentReference(symbol: "BTC/USD").impliedAssetClass == .crypto)
        #expect(InstrumentReference(symbol: "AAPL").impliedAssetClass == .equity)
        #expect(InstrumentReference(symbol: "AAPL", assetClass: .etf).impliedAssetClass == .etf)
    }

    @Test func orderStatusIsClosed() {
        #expect(OrderStatus.allCases.count == 10)
        #expect(OrderStatus(rawValue: "working") == nil)
        #expect(OrderStatus.allCases.filter(\.isActive) == [.pendingNew, .open, .partiallyFilled, .pendingCancel, .unknown])
    }
}
