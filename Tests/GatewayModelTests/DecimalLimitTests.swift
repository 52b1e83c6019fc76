import Foundation
import GatewayModel
import Testing

/// Decimals are never rounded: what `Decimal` cannot hold exactly is refused, what it holds reads back, whatever its
/// length, and each client field has bounds of its own.
@Suite("Decimals: exact or refused, never rounded")
struct DecimalLimitTests {
    @Test(arguments: [
        // 39 digits, one more than 2^128 - 1: Foundation reads it as ...450.
        "340282366920938463463374607431768211456",
        // 42 significant digits: Foundation keeps 39 and drops the rest.
        "1.00000000000000000000000000000000000000001",
        "123456789012345678901234567890123456789012",
        // Beyond the exponent range: Foundation gives nothing, or would give 0.
        "1e-129", "1e166", "1e999", "1e-999", "0.1e-128",
    ])
    func refusesWhatDecimalCannotHoldExactly(_ text: String) {
        guard case .failure(.inexact(let problem)) = DecimalText.read(text) else {
            Issue.record("\(text) was not refused as inexact: \(DecimalText.read(text))")
            return
        }
        #expect(problem.contains("never rounded"))
        #expect(DecimalText.parse(text) == nil)
    }

    @Test(arguments: ["", "1.5abc", "NaN", "1e", "1e1000", "0x10", String(repeating: "1", count: 257)])
    func refusesWhatIsNoDecimalAtAll(_ text: String) {
        #expect(DecimalText.read(text) == .failure(.notADecimal))
    }

    @Test func readsExactlyWhatDecimalHolds() throws {
        let thirtyEight = "12345678901234567890123456789012345678"
        #expect(DecimalText.format(try #require(DecimalText.parse(thirtyEight))) == thirtyEight)
        #expect(DecimalText.format(try #require(DecimalText.parse("0." + thirtyEight))) == "0." + thirtyEight)
        #expect(DecimalText.parse("1e70") == Decimal(sign: .plus, exponent: 70, significand: 1))
        #expect(DecimalText.parse("1.50e-3") == Decimal(sign: .plus, exponent: -4, significand: 15))
        #expect(DecimalText.parse("-000123.4500") == Decimal(sign: .minus, exponent: -2, significand: 12345))
        #expect(DecimalText.parse("0e999") == 0)
        // 39 digits that fit the 128-bit significand are held exactly, so they read.
        #expect(
            DecimalText.format(try #require(DecimalText.parse("340282366920938463463374607431768211455")))
                == "340282366920938463463374607431768211455"
        )
    }

    /// The journal writes `format(value)` for values the gateway computed and reads it back with `read`: every value
    /// `Decimal` holds must survive, however long its text (before, anything past 64 characters did not).
    @Test func theTextOfEveryValueDecimalHoldsReadsBack() throws {
        let sum = try #require(DecimalText.parse("123456789012345678901234567890123456780")) + 9
        let values: [Decimal] = [
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
            Decimal(sign: .plus, exponent: 127, significand: 1), Decimal(sign: .plus, exponent: -128, significand: 1),
            Decimal(1) / Decimal(3), sum, try #require(Decimal(string: "10e127", locale: nil)),
        ]
        for value in values {
            let text = DecimalText.format(value)
            #expect(DecimalText.parse(text) == value, "\(text.count) characters: \(text)")
        }
    }

    @Test func significantDigitsCountWithoutLeadingAndTrailingZeros() throws {
        #expect(DecimalText.significantDigits(0) == 0)
        #expect(DecimalText.significantDigits(try #require(DecimalText.parse("0.00120"))) == 2)
        #expect(DecimalText.significantDigits(try #require(DecimalText.parse("1200"))) == 2)
        #expect(DecimalText.significantDigits(try #require(DecimalText.parse("-10.01"))) == 4)
    }

    struct Holder: Decodable {
        var value: Decimal
        enum CodingKeys: String, CodingKey { case value }
        init(from decoder: any Decoder) throws {
            value = try decoder.container(keyedBy: CodingKeys.self).decodeDecimal(forKey: .value)
        }
    }

    @Test func decodingRefusesAnInexactStringAsSuch() throws {
        let json = Data(#"{"value":"123456789012345678901234567890123456789012"}"#.utf8)
        do {
            _ = try JSONDecoder().decode(Holder.self, from: json)
            Issue.record("decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["value"])
            #expect(context.underlyingError as? DecimalText.Refusal == .inexact(problem: context.debugDescription))
        }
    }

    /// A JSON number is read by the JSON reader, which keeps 38 or 39 digits and drops the rest: one that comes out
    /// that long may have been rounded, so it is refused rather than taken as what the reader made of it.
    @Test func decodingRefusesANumberTheJSONReaderMayHaveRounded() throws {
        let json = Data(#"{"value":123456789012345678901234567890123456789012}"#.utf8)
        do {
            let decoded = try JSONDecoder().decode(Holder.self, from: json)
            Issue.record("decoded as \(decoded.value)")
        } catch DecodingError.dataCorrupted(let context) {
            guard case .inexact? = context.underlyingError as? DecimalText.Refusal else {
                Issue.record("not refused as inexact: \(context)")
                return
            }
        }
        #expect(
            try JSONDecoder().decode(Holder.self, from: Data(#"{"value":0.30000000000000004}"#.utf8)).value
                == DecimalText.parse("0.30000000000000004")
        )
    }

    @Test func boundsPerField() throws {
        let quantity = DecimalBounds.quantity
        #expect(quantity.problem(try #require(DecimalText.parse("1e15"))) == nil)
        #expect(quantity.problem(try #require(DecimalText.parse("1e-18"))) == nil)
        #expect(quantity.problem(try #require(DecimalText.parse("1000000000000000.000000000000000001"))) != nil)
        #expect(quantity.problem(try #require(DecimalText.parse("1e70")))?.contains("1000000000000000") == true)
        #expect(quantity.problem(try #require(DecimalText.parse("1e-19")))?.contains("18 digits") == true)
        let price = DecimalBounds.price
        #expect(price.problem(try #require(DecimalText.parse("1e12"))) == nil)
        #expect(price.problem(try #require(DecimalText.parse("1e100")))?.contains("1000000000000") == true)
        #expect(DecimalBounds.notional.problem(try #require(DecimalText.parse("999999999999999.99"))) == nil)
        // Within the bounds every value is short and exact: at most 34 significant digits.
        let widest = try #require(DecimalText.parse("999999999999999.999999999999999999"))
        #expect(quantity.problem(widest) == nil)
        #expect(DecimalText.significantDigits(widest) == 33)
    }

    @Test func anOrderBeyondItsFieldsBoundsNamesEachField() throws {
        let request = OrderRequest(
            connectionId: "c",
            accountId: "a",
            instrument: InstrumentReference(symbol: "AAPL"),
            side: .buy,
            type: .stopLimit,
            timeInForce: .day,
            quantity: try #require(DecimalText.parse("1e70")),
            limitPrice: try #require(DecimalText.parse("1e100")),
            stopPrice: try #require(DecimalText.parse("1e-19"))
        )
        let problems = Dictionary(uniqueKeysWithValues: request.problems().map { ($0.field, $0.problem) })
        #expect(problems["quantity"]?.contains("at most 1000000000000000") == true)
        #expect(problems["limitPrice"]?.contains("at most 1000000000000") == true)
        #expect(problems["stopPrice"]?.contains("at most 18 digits") == true)
        let change = OrderModification(quantity: try #require(DecimalText.parse("1e16")))
        #expect(change.problems().map(\.field) == ["quantity"])
    }
}
