import Foundation
import GatewayModel
import Testing

/// Issue 15, item 3 in the model: an order sized in money (`notional`), the replace chain and the broker's times.
@Suite("Model: notional orders, the replace chain, order times")
struct NotionalOrderModelTests {
    let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
    let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    func request(_ sizing: String, type: String = "market") throws -> OrderRequest {
        let json = #"{"connectionId":"c","accountId":"a","symbol":"AAPL","side":"buy","type":"\#(type)"\#(sizing)}"#
        return try decoder.decode(OrderRequest.self, from: Data(json.utf8))
    }

    @Test func aNotionalRequestDecodesWithoutAQuantity() throws {
        let request = try request(#","notional":"500""#)
        #expect(request.notional == 500)
        #expect(request.quantity == nil)
        #expect(request.problems().isEmpty)
        let json = try #require(try JSONSerialization.jsonObject(with: encoder.encode(request)) as? [String: Any])
        #expect(json["notional"] as? String == "500")
        #expect(json["quantity"] == nil)
        // As a JSON number too, checked as written.
        #expect(try self.request(#","notional":500.25"#).notional == DecimalText.parse("500.25"))
    }

    @Test(arguments: [
        (#""#, "quantity"),
        (#","quantity":"1","notional":"500""#, "notional"),
        (#","notional":"0""#, "notional"),
        (#","notional":"-5""#, "notional"),
        (#","notional":"10000000000000000""#, "notional"),
        (#","notional":"0.0000000000000000001""#, "notional"),
    ])
    func exactlyOneOfQuantityAndNotionalWithinItsBounds(sizing: String, field: String) throws {
        let problems = try request(sizing).problems()
        #expect(problems.map(\.field) == [field], "\(sizing): \(problems)")
    }

    @Test func theBoundsOfANotionalAreNamedInTheProblem() throws {
        let problem = try #require(try request(#","notional":"10000000000000000""#).problems().first)
        #expect(problem.problem.contains("10^15"))
        let both = try #require(try request(#","quantity":"1","notional":"500""#).problems().first)
        #expect(both.problem.contains("exactly one"))
    }

    @Test func aNotionalIsPartOfTheIdempotencyDigest() throws {
        let five = try request(#","notional":"500""#).canonicalJSON()
        let fiveAgain = try request(#","notional":"500.00""#).canonicalJSON()
        let other = try request(#","notional":"501""#).canonicalJSON()
        let units = try request(#","quantity":"500""#).canonicalJSON()
        #expect(five == fiveAgain)
        #expect(five != other)
        #expect(five != units)
        #expect(String(decoding: five, as: UTF8.self).contains(#""notional":"500""#))
    }

    @Test func anUnknownSizingFieldIsStillRefused() {
        #expect(throws: DecodingError.self) { try request(#","notional":"500","amount":"500""#) }
    }

    @Test func anOrderCarriesItsNotionalChainAndTimes() throws {
        let submitted = Date(timeIntervalSince1970: 1_700_000_000)
        let order = Order(
            id: "ord_1",
            brokerOrderId: "b2",
            clientOrderId: "c1",
            connectionId: "conn",
            broker: .alpaca,
            accountId: "acc",
            instrument: Instrument(symbol: "AAPL", assetClass: .equity),
            side: .buy,
            type: .market,
            timeInForce: .day,
            quantity: try #require(DecimalText.parse("2.5")),
            status: .filled,
            filledQuantity: try #require(DecimalText.parse("2.5")),
            notional: 500,
            replaces: "b1",
            replacedBy: "b3",
            submittedAt: submitted,
            filledAt: submitted.addingTimeInterval(1),
            canceledAt: submitted.addingTimeInterval(2),
            expiredAt: submitted.addingTimeInterval(3)
        )
        let data = try encoder.encode(order)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["notional"] as? String == "500")
        #expect(json["replaces"] as? String == "b1")
        #expect(json["replacedBy"] as? String == "b3")
        #expect(json["submittedAt"] as? String == "2023-11-14T22:13:20Z")
        #expect(json["filledAt"] as? String == "2023-11-14T22:13:21Z")
        #expect(json["canceledAt"] != nil && json["expiredAt"] != nil)
        #expect(try decoder.decode(Order.self, from: data) == order)

        // An order without them writes none of them.
        var plain = order
        (plain.notional, plain.replaces, plain.replacedBy) = (nil, nil, nil)
        (plain.submittedAt, plain.filledAt, plain.canceledAt, plain.expiredAt) = (nil, nil, nil, nil)
        let bare = try #require(try JSONSerialization.jsonObject(with: encoder.encode(plain)) as? [String: Any])
        for key in ["notional", "replaces", "replacedBy", "submittedAt", "filledAt", "canceledAt", "expiredAt"] {
            #expect(bare[key] == nil, "\(key)")
        }
    }
}
