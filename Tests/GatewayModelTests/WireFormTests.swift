import Foundation
import GatewayModel
import Testing

/// The wire form of every model type whose decimals are strings, pinned: each sample's JSON below was captured from
/// the hand-written `encode(to:)` bodies before they gave way to `@DecimalString` and synthesized `Codable`, so any
/// drift (a key, a decimal's text, `null` instead of an absent key) fails here. Keys are sorted, as every encoder of
/// the gateway writes them (`APIJSON`, `JournalJSON`, the canonical request digest); `JSONEncoder` on Linux keeps no
/// insertion order, so there is no other order to pin. Dates are milliseconds, which round-trip exactly.
@Suite("Model wire form")
struct WireFormTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()

    static let pins: [WirePin] = [
        WirePin(
            "balanceFull",
            WireSamples.balanceFull,
            #"{"accountId":"PA1","accountValue":"15000.75","asOf":1767225600125,"available":"900.25","buyingPower":"2001","connectionId":"conn_1","currency":"USD","held":"100.25","marginAvailable":"0","marginUtilizationPct":"12.5","total":"1000.5"}"#
        ),
        WirePin(
            "balanceSparse",
            WireSamples.balanceSparse,
            #"{"accountId":"a","available":"-0.5","connectionId":"c","currency":"BTC","held":"1.50000001","total":"1.00000001"}"#
        ),
        WirePin(
            "positionFull",
            WireSamples.positionFull,
            #"{"accountId":"PA1","asOf":1767225600125,"averagePrice":"150.125","connectionId":"conn_1","costBasis":"-1501.25","currency":"USD","dayChange":"0.00000001","instrument":{"assetClass":"equity","brokerKey":{"uic":"211"},"currency":"USD","exchange":"XNAS","name":"Apple Inc.","symbol":"AAPL"},"lastPrice":"160","marketValue":"-1600","quantity":"-10","unrealizedPnl":"-98.75"}"#
        ),
        WirePin(
            "positionSparse",
            WireSamples.positionSparse,
            #"{"accountId":"a","connectionId":"c","currency":"BTC","instrument":{"assetClass":"crypto","symbol":"XMR/BTC"},"quantity":"12345678901234567890.123456789"}"#
        ),
        WirePin(
            "quoteFull",
            WireSamples.quoteFull,
            #"{"ask":"150.2","bid":"150.1","connectionId":"conn_1","high":"151","instrument":{"assetClass":"equity","brokerKey":{"uic":"211"},"currency":"USD","exchange":"XNAS","name":"Apple Inc.","symbol":"AAPL"},"last":"150.15","low":"148.5","netChange":"0.65","open":"149","percentChange":"0.4347","previousClose":"149.5","time":1767225600125,"volume":"1200000"}"#
        ),
        WirePin("quoteSparse", WireSamples.quoteSparse, #"{"bid":"0.0025","instrument":{"assetClass":"crypto","symbol":"XMR/BTC"}}"#),
        WirePin(
            "orderFull",
            WireSamples.orderFull,
            #"{"accountId":"PA1","averageFillPrice":"150.01","broker":"alpaca","brokerOrderId":"b1","brokerStatus":"partially_filled","canceledAt":1767229200000,"clientOrderId":"cli-1","connectionId":"conn_1","createdAt":1767225600125,"expiredAt":1767229200000,"expiresAt":1767229200000,"filledAt":1767229200000,"filledQuantity":"1.25","id":"ord_1","instrument":{"assetClass":"equity","brokerKey":{"uic":"211"},"currency":"USD","exchange":"XNAS","name":"Apple Inc.","symbol":"AAPL"},"limitPrice":"150","notional":"375","quantity":"2.5","replacedBy":"ord_2","replaces":"ord_0","side":"sell_short","source":"journal","status":"partially_filled","stopPrice":"149.99","submittedAt":1767225600125,"timeInForce":"gtd","type":"stop_limit","updatedAt":1767229200000}"#
        ),
        WirePin(
            "orderSparse",
            WireSamples.orderSparse,
            #"{"accountId":"a","broker":"saxo","clientOrderId":"cli-2","connectionId":"c","filledQuantity":"0","id":"ord_2","instrument":{"assetClass":"crypto","symbol":"XMR/BTC"},"quantity":"1","side":"buy","status":"open","timeInForce":"day","type":"market"}"#
        ),
        WirePin(
            "bookFull",
            WireSamples.bookFull,
            #"{"asks":[{"price":"0.0026","size":"1"}],"bids":[{"price":"0.0025","size":"10"},{"price":"0.0024","size":"3.5"}],"broker":"tradeogre","connectionId":"conn_1","instrument":{"assetClass":"crypto","symbol":"XMR/BTC"},"time":1767225600125}"#
        ),
        WirePin("bookSparse", WireSamples.bookSparse, #"{"asks":[],"bids":[],"instrument":{"assetClass":"crypto","symbol":"XMR/BTC"}}"#),
        WirePin(
            "series",
            WireSamples.series,
            #"{"candles":[{"close":"2","high":"2.5","low":"0.5","open":"1","time":1767225600125,"volume":"1000"},{"close":"7.45","high":"7.5","low":"7.3","open":"7.4","time":1767229200000}],"connectionId":"conn_1","instrument":{"assetClass":"crypto","symbol":"XMR/BTC"},"interval":"1h"}"#
        ),
        WirePin(
            "goalFull",
            WireSamples.goalFull,
            #"{"allocations":[{"assetClass":"equity","connectionId":"conn_1","quantity":"10","symbol":"AAPL"},{"connectionId":"conn_2","percent":"50","symbol":"XMR/BTC"}],"createdAt":1767225600125,"currency":"EUR","id":"goal_1","name":"House","progress":{"allocations":[{"connectionId":"conn_1","heldQuantity":"10","marketValue":"1600","positionCurrency":"USD","quantity":"10","rate":{"from":"USD","quotes":[{"broker":"saxo","connectionId":"conn_2","inverted":false,"price":"6.85","symbol":"USD/DKK","time":1767225600125},{"broker":"saxo","connectionId":"conn_2","inverted":true,"price":"7.46","symbol":"EUR/DKK"}],"rate":"0.92","to":"EUR","via":"DKK"},"shortfall":"0","symbol":"AAPL","value":"1472"},{"connectionId":"conn_2","problem":"not_held","symbol":"XMR/BTC"}],"complete":false,"currentValue":"1600.5","progress":"0.0032","remaining":"498399.5"},"targetValue":"500000","updatedAt":1767229200000}"#
        ),
        WirePin("goalSparse", WireSamples.goalSparse, #"{"allocations":[],"currency":"USD","id":"goal_2","name":"Car","targetValue":"20000.5"}"#),
        WirePin(
            "overallFull",
            WireSamples.overallFull,
            #"{"currency":"EUR","currentValue":"1600.5","fxRates":[{"from":"USD","quotes":[{"broker":"saxo","connectionId":"conn_2","inverted":false,"price":"6.85","symbol":"USD/DKK","time":1767225600125},{"broker":"saxo","connectionId":"conn_2","inverted":true,"price":"7.46","symbol":"EUR/DKK"}],"rate":"0.92","to":"EUR","via":"DKK"}],"progress":"0.003","remaining":"518400","targetValue":"520000.5","unconverted":["conn_3"]}"#
        ),
        WirePin(
            "overallSparse",
            WireSamples.overallSparse,
            #"{"currency":"EUR","currentValue":"0","fxRates":[],"remaining":"1","targetValue":"1","unconverted":[]}"#
        ),
        WirePin(
            "goalInputFull",
            WireSamples.goalInputFull,
            #"{"allocations":[{"connectionId":"conn_1","quantity":"10","symbol":"AAPL"}],"currency":"EUR","name":"House","targetValue":"500000"}"#
        ),
        WirePin("goalInputSparse", WireSamples.goalInputSparse, #"{"targetValue":"0.5"}"#),
        WirePin(
            "portfolioFull",
            WireSamples.portfolioFull,
            #"{"accounts":[{"accountId":"PA1","broker":"alpaca","cash":"9000.5","connectionId":"conn_1","positionsValue":"1472","totalValue":"10472.5"}],"allocation":{"assetClass":[{"key":"equity","value":"1472","weight":"0.14055"}],"broker":[],"currency":[{"key":"USD","value":"1472"}]},"cash":"9000.5","currency":"EUR","dayChange":"-12.34","dayChangeUnknown":2,"fxRates":[{"from":"USD","quotes":[{"broker":"saxo","connectionId":"conn_2","inverted":false,"price":"6.85","symbol":"USD/DKK","time":1767225600125},{"broker":"saxo","connectionId":"conn_2","inverted":true,"price":"7.46","symbol":"EUR/DKK"}],"rate":"0.92","to":"EUR","via":"DKK"}],"holdings":[{"instrument":{"assetClass":"equity","brokerKey":{"uic":"211"},"currency":"USD","exchange":"XNAS","name":"Apple Inc.","symbol":"AAPL"},"parts":[{"accountId":"PA1","broker":"alpaca","connectionId":"conn_1","currency":"USD","marketValue":"1600","quantity":"10","value":"1472"},{"accountId":"S1","broker":"saxo","connectionId":"conn_2","currency":"USD","quantity":"0"}],"quantity":"10","value":"1472"}],"positionsValue":"1472","totalValue":"10472.5","unconverted":[{"accountId":"T1","amount":"2","broker":"tradeit","connectionId":"conn_3","currency":"XAU","item":"cash","reason":"no_rate"},{"accountId":"T1","broker":"tradeit","connectionId":"conn_3","currency":"USD","item":"AAPL","reason":"no_value"}]}"#
        ),
        WirePin(
            "portfolioSparse",
            WireSamples.portfolioSparse,
            #"{"accounts":[],"allocation":{"assetClass":[],"broker":[],"currency":[]},"cash":"0","currency":"USD","dayChangeUnknown":0,"fxRates":[],"holdings":[],"positionsValue":"0","totalValue":"0","unconverted":[]}"#
        ),
        WirePin(
            "ruleInputFull",
            WireSamples.ruleInputFull,
            #"{"condition":"above","connectionId":"conn_1","instrument":{"symbol":"AAPL"},"on":"filled","threshold":"150.5","type":"price","unknownForSeconds":30,"windowSeconds":60}"#
        ),
        WirePin("ruleInputSparse", WireSamples.ruleInputSparse, #"{"on":"rejected","type":"order"}"#),
        WirePin(
            "alertFull",
            WireSamples.alertFull,
            #"{"armed":false,"channels":{"apns":{"devices":"all"},"webhook":{"url":"https://example.com/hook"}},"createdAt":1767225600125,"enabled":false,"id":"alrt_1","lastFiredAt":1767229200000,"name":"AAPL moves","rearm":"once","rule":{"condition":"percent_move","connectionId":"conn_1","instrument":{"assetClass":"equity","symbol":"AAPL"},"threshold":"2.5","type":"price","windowSeconds":3600},"updatedAt":1767229200000}"#
        ),
        WirePin(
            "notificationFull",
            WireSamples.notificationFull,
            #"{"alertId":"alrt_1","alertName":"AAPL moves","eventId":"evt_1","firedAt":1767229200000,"kind":"price","message":"AAPL moved 2.5 %","orderUpdate":{"at":1767229200000,"broker":"alpaca","connectionId":"conn_1","detail":"done","kind":"filled","order":{"accountId":"a","broker":"saxo","clientOrderId":"cli-2","connectionId":"c","filledQuantity":"0","id":"ord_2","instrument":{"assetClass":"crypto","symbol":"XMR/BTC"},"quantity":"1","side":"buy","status":"open","timeInForce":"day","type":"market"},"orderId":"ord_1","status":"filled"},"price":"153.75","quote":{"bid":"0.0025","instrument":{"assetClass":"crypto","symbol":"XMR/BTC"}},"rule":{"condition":"percent_move","connectionId":"conn_1","instrument":{"assetClass":"equity","symbol":"AAPL"},"threshold":"2.5","type":"price","windowSeconds":3600}}"#
        ),
        WirePin(
            "notificationSparse",
            WireSamples.notificationSparse,
            #"{"alertId":"alrt_2","eventId":"evt_2","firedAt":1767225600125,"kind":"order","message":"unknown","rule":{"on":"unknown","type":"order","unknownForSeconds":60}}"#
        ),
        WirePin(
            "requestFull",
            WireSamples.requestFull,
            #"{"accountId":"PA1","assetClass":"equity","clientOrderId":"cli-1","connectionId":"conn_1","expiresAt":1767229200000,"limitPrice":"150","notional":"300","previewId":"prv_1","quantity":"2","side":"buy","stopPrice":"149.5","symbol":"AAPL","timeInForce":"gtd","type":"stop_limit"}"#
        ),
        WirePin(
            "requestSparse",
            WireSamples.requestSparse,
            #"{"accountId":"a","connectionId":"c","notional":"0.001","side":"sell","symbol":"XMR/BTC","timeInForce":"day","type":"market"}"#
        ),
        WirePin(
            "modificationFull",
            WireSamples.modificationFull,
            #"{"limitPrice":"151","quantity":"3","stopPrice":"150.5","timeInForce":"gtc","type":"limit"}"#
        ),
        WirePin("modificationSparse", WireSamples.modificationSparse, #"{"limitPrice":"151"}"#),
        WirePin(
            "previewFull",
            WireSamples.previewFull,
            #"{"brokerPreviewId":"bp1","buyingPowerAfter":"1700","currency":"USD","estimatedCommission":"0.01","estimatedCost":"300","estimatedPrice":"150","expiresAt":1767229200000,"id":"prv_1","request":{"accountId":"PA1","assetClass":"equity","clientOrderId":"cli-1","connectionId":"conn_1","expiresAt":1767229200000,"limitPrice":"150","notional":"300","previewId":"prv_1","quantity":"2","side":"buy","stopPrice":"149.5","symbol":"AAPL","timeInForce":"gtd","type":"stop_limit"},"warnings":["market closed"]}"#
        ),
        WirePin(
            "previewSparse",
            WireSamples.previewSparse,
            #"{"currency":"BTC","expiresAt":1767225600125,"id":"prv_2","request":{"accountId":"a","connectionId":"c","notional":"0.001","side":"sell","symbol":"XMR/BTC","timeInForce":"day","type":"market"},"warnings":[]}"#
        ),
    ]

    @Test(arguments: pins)
    func encodesAsBefore(_ pin: WirePin) throws {
        #expect(try pin.encoded() == pin.json)
    }

    @Test(arguments: pins)
    func decodesWhatItWrote(_ pin: WirePin) throws {
        #expect(try pin.decodedAndEncoded() == pin.json)
        #expect(try pin.decodesToSample())
    }

    /// Rows the order journal wrote before the change (`JournalJSON`: sorted keys, dates in milliseconds since 1970),
    /// captured from the old encoders: they must still read back, to the same values and the same bytes.
    @Test func journalRowsWrittenBeforeStillRead() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            Date(timeIntervalSince1970: Double(try decoder.singleValueContainer().decode(Int64.self)) / 1000)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
        let orderRow =
            #"{"accountId":"PA1","averageFillPrice":"150.01","broker":"alpaca","brokerOrderId":"b1","brokerStatus":"partially_filled","canceledAt":1767229200000,"clientOrderId":"cli-1","connectionId":"conn_1","createdAt":1767225600125,"expiredAt":1767229200000,"expiresAt":1767229200000,"filledAt":1767229200000,"filledQuantity":"1.25","id":"ord_1","instrument":{"assetClass":"equity","brokerKey":{"uic":"211"},"currency":"USD","exchange":"XNAS","name":"Apple Inc.","symbol":"AAPL"},"limitPrice":"150","notional":"375","quantity":"2.5","replacedBy":"ord_2","replaces":"ord_0","side":"sell_short","source":"journal","status":"partially_filled","stopPrice":"149.99","submittedAt":1767225600125,"timeInForce":"gtd","type":"stop_limit","updatedAt":1767229200000}"#
        let requestRow =
            #"{"accountId":"PA1","assetClass":"equity","clientOrderId":"cli-1","connectionId":"conn_1","expiresAt":1767229200000,"limitPrice":"150","notional":"300","previewId":"prv_1","quantity":"2","side":"buy","stopPrice":"149.5","symbol":"AAPL","timeInForce":"gtd","type":"stop_limit"}"#
        let order = try decoder.decode(Order.self, from: Data(orderRow.utf8))
        let request = try decoder.decode(OrderRequest.self, from: Data(requestRow.utf8))
        #expect(order == WireSamples.orderFull)
        #expect(order.instrument.brokerKey == WireSamples.orderFull.instrument.brokerKey)
        #expect(request == WireSamples.requestFull)
        #expect(String(decoding: try encoder.encode(order), as: UTF8.self) == orderRow)
        #expect(String(decoding: try encoder.encode(request), as: UTF8.self) == requestRow)
    }

    /// What decoding made of each input before the change: the value (as its JSON), or the error's kind, coding path
    /// and description, which the API quotes in its 400 and 422 bodies (`APIJSON.problems(from:)`).
    static let outcomes: [String: String] = [
        "POSITION numbers":
            #"ok {"accountId":"a","averagePrice":"2","connectionId":"c","currency":"USD","instrument":{"assetClass":"equity","symbol":"X"},"lastPrice":"0.001","quantity":"-1.5"}"#,
        "POSITION nulls":
            #"ok {"accountId":"a","connectionId":"c","currency":"USD","instrument":{"assetClass":"equity","symbol":"X"},"quantity":"1"}"#,
        "POSITION prefix": #"dataCorrupted quantity | must be a decimal number, as a string or a number | notADecimal"#,
        "POSITION optionalPrefix": #"dataCorrupted costBasis | must be a decimal number, as a string or a number | notADecimal"#,
        "POSITION missing": #"keyNotFound quantity | No value associated with key CodingKeys(stringValue: "quantity", intValue: nil) ("quantity")."#,
        "POSITION nullRequired": #"valueNotFound String quantity | Cannot get value of type String -- found null value instead"#,
        "POSITION bool": #"dataCorrupted quantity | must be a decimal number, as a string or a number | notADecimal"#,
        "POSITION optionalBool": #"dataCorrupted lastPrice | must be a decimal number, as a string or a number | notADecimal"#,
        "POSITION object": #"dataCorrupted quantity | must be a decimal number, as a string or a number | notADecimal"#,
        "POSITION tooLong":
            #"dataCorrupted quantity | has more than 38 significant digits, more than a decimal holds exactly (it is never rounded) | inexact(problem: "has more than 38 significant digits, more than a decimal holds exactly (it is never rounded)")"#,
        "POSITION longNumber":
            #"dataCorrupted quantity | has 38 or more significant digits as a JSON number, which the JSON reader may have rounded; send it as a string | inexact(problem: "has 38 or more significant digits as a JSON number, which the JSON reader may have rounded; send it as a string")"#,
        "POSITION exponent":
            #"ok {"accountId":"a","connectionId":"c","currency":"USD","instrument":{"assetClass":"equity","symbol":"X"},"marketValue":"5","quantity":"0.00000001"}"#,
        "POSITION empty": #"dataCorrupted quantity | must be a decimal number, as a string or a number | notADecimal"#,
        "REQUEST strings":
            #"ok {"accountId":"a","connectionId":"c","limitPrice":"123.45","quantity":"10","side":"buy","symbol":"AAPL","timeInForce":"day","type":"limit"}"#,
        "REQUEST unknown": #"dataCorrupted stopLoss | is not a field of this request (unknown fields are refused) | -"#,
        "REQUEST badLimit": #"dataCorrupted limitPrice | must be a decimal number, as a string or a number | notADecimal"#,
        "MODIFICATION unknown": #"dataCorrupted qty | is not a field of this request (unknown fields are refused) | -"#,
        "MODIFICATION number": #"ok {"quantity":"2.5"}"#,
        "MODIFICATION null": #"ok {}"#,
        "PREVIEW noWarnings":
            #"ok {"currency":"USD","expiresAt":1767225600000,"id":"p","request":{"accountId":"a","connectionId":"c","quantity":"1","side":"buy","symbol":"S","timeInForce":"day","type":"market"},"warnings":[]}"#,
        "RULEINPUT threshold": #"dataCorrupted threshold | must be a decimal number, as a string or a number | notADecimal"#,
        "RULEINPUT unknown": #"dataCorrupted foo | is not a field of this request (unknown fields are refused) | -"#,
        "GOALINPUT allocation": #"dataCorrupted allocations.0.percent | must be a decimal number, as a string or a number | notADecimal"#,
        "GOALINPUT target": #"ok {"targetValue":"12.5"}"#,
        "CANDLE missing": #"keyNotFound close | No value associated with key CodingKeys(stringValue: "close", intValue: nil) ("close")."#,
        "LEVEL number": #"ok {"price":"0.5","size":"2"}"#,
    ]

    static let position = #""connectionId":"c","accountId":"a","instrument":{"symbol":"X","assetClass":"equity"},"currency":"USD""#
    static let request = #""connectionId":"c","accountId":"a","symbol":"AAPL","side":"buy","type":"limit""#
    static let preview =
        #"{"id":"p","expiresAt":1767225600000,"request":{"connectionId":"c","accountId":"a","symbol":"S","side":"buy","type":"market","quantity":"1"},"currency":"USD"}"#

    static let inputs: [(String, String)] = [
        ("POSITION numbers", "{\(position),\"quantity\":-1.5,\"averagePrice\":2,\"lastPrice\":0.001}"),
        ("POSITION nulls", "{\(position),\"quantity\":\"1\",\"averagePrice\":null,\"dayChange\":null}"),
        ("POSITION prefix", "{\(position),\"quantity\":\"1.5abc\"}"),
        ("POSITION optionalPrefix", "{\(position),\"quantity\":\"1\",\"costBasis\":\"x\"}"),
        ("POSITION missing", "{\(position)}"),
        ("POSITION nullRequired", "{\(position),\"quantity\":null}"),
        ("POSITION bool", "{\(position),\"quantity\":true}"),
        ("POSITION optionalBool", "{\(position),\"quantity\":\"1\",\"lastPrice\":false}"),
        ("POSITION object", "{\(position),\"quantity\":{}}"),
        ("POSITION tooLong", "{\(position),\"quantity\":\"123456789012345678901234567890123456789012\"}"),
        ("POSITION longNumber", "{\(position),\"quantity\":1234567890123456789012345678901234567890}"),
        ("POSITION exponent", "{\(position),\"quantity\":\"1e-8\",\"marketValue\":\"+5\"}"),
        ("POSITION empty", "{\(position),\"quantity\":\"\"}"),
        ("REQUEST strings", "{\(request),\"quantity\":\"10\",\"limitPrice\":\"123.45\"}"),
        ("REQUEST unknown", "{\(request),\"quantity\":\"10\",\"stopLoss\":\"1\"}"),
        ("REQUEST badLimit", "{\(request),\"quantity\":\"10\",\"limitPrice\":\"1,5\"}"),
        ("MODIFICATION unknown", #"{"limitPrice":"1","qty":"2"}"#),
        ("MODIFICATION number", #"{"quantity":2.5}"#),
        ("MODIFICATION null", #"{"quantity":null}"#),
        ("PREVIEW noWarnings", preview),
        ("RULEINPUT threshold", #"{"type":"price","threshold":"abc"}"#),
        ("RULEINPUT unknown", #"{"type":"price","foo":1}"#),
        ("GOALINPUT allocation", #"{"name":"n","allocations":[{"connectionId":"c","symbol":"s","percent":"x"}]}"#),
        ("GOALINPUT target", #"{"targetValue":12.5}"#),
        ("CANDLE missing", #"{"time":1767225600000,"open":"1","high":"1","low":"1"}"#),
        ("LEVEL number", #"{"price":0.5,"size":"2"}"#),
    ]

    @Test func decodingOutcomesAreAsBefore() {
        #expect(Self.inputs.count == Self.outcomes.count)
        for (name, json) in Self.inputs {
            let outcome: String
            switch name.split(separator: " ")[0] {
            case "POSITION": outcome = Self.outcome(Position.self, json)
            case "REQUEST": outcome = Self.outcome(OrderRequest.self, json)
            case "MODIFICATION": outcome = Self.outcome(OrderModification.self, json)
            case "PREVIEW": outcome = Self.outcome(OrderPreview.self, json)
            case "RULEINPUT": outcome = Self.outcome(AlertRuleInput.self, json)
            case "GOALINPUT": outcome = Self.outcome(GoalInput.self, json)
            case "CANDLE": outcome = Self.outcome(Candle.self, json)
            default: outcome = Self.outcome(OrderBookLevel.self, json)
            }
            #expect(outcome == Self.outcomes[name], "\(name)")
        }
    }

    static func outcome<Value: Codable>(_ type: Value.Type, _ json: String) -> String {
        func path(_ keys: [any CodingKey]) -> String { keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") }
        do {
            let value = try decoder.decode(type, from: Data(json.utf8))
            return "ok " + String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch DecodingError.keyNotFound(let key, let context) {
            return "keyNotFound \(path(context.codingPath + [key])) | \(context.debugDescription)"
        } catch DecodingError.valueNotFound(let type, let context) {
            return "valueNotFound \(type) \(path(context.codingPath)) | \(context.debugDescription)"
        } catch DecodingError.typeMismatch(let type, let context) {
            return "typeMismatch \(type) \(path(context.codingPath)) | \(context.debugDescription)"
        } catch DecodingError.dataCorrupted(let context) {
            let underlying = context.underlyingError.map { String(describing: $0) } ?? "-"
            return "dataCorrupted \(path(context.codingPath)) | \(context.debugDescription) | \(underlying)"
        } catch {
            return "other \(error)"
        }
    }
}

/// One sample and the JSON the old encoder wrote for it.
struct WirePin: Sendable, CustomTestStringConvertible {
    let name: String
    let json: String
    let encoded: @Sendable () throws -> String
    let decodedAndEncoded: @Sendable () throws -> String
    let decodesToSample: @Sendable () throws -> Bool

    init<Value: Codable & Hashable & Sendable>(_ name: String, _ value: Value, _ json: String) {
        self.name = name
        self.json = json
        encoded = { String(decoding: try WireFormTests.encoder.encode(value), as: UTF8.self) }
        decodedAndEncoded = {
            let back = try WireFormTests.decoder.decode(Value.self, from: Data(json.utf8))
            return String(decoding: try WireFormTests.encoder.encode(back), as: UTF8.self)
        }
        decodesToSample = { try WireFormTests.decoder.decode(Value.self, from: Data(json.utf8)) == value }
    }

    var testDescription: String { name }
}
