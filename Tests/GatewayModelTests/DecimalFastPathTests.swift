import Foundation
import Testing

@testable import GatewayModel

/// `DecimalText.format` writes values with a 64-bit significand itself (`shortText`): the text must be exactly
/// `description`'s, whatever the representation.
/// `DecimalText.read` builds short literals' values itself (`readShort`) instead of handing Foundation a string: it
/// must make exactly the `Decimal` the general path (`readAny`, through `Decimal(string:)`) makes, field for field,
/// because the wire text of a value (`description`) follows its representation ("1.50" and "1.5" are equal values).
@Suite("Decimal text: the short path builds what the general path builds")
struct DecimalFastPathTests {
    /// What tells representations apart through the public API: "1.50" and "1.5" are equal values with different
    /// exponents and significands, and different text.
    static func fields(_ value: Decimal) -> [String] {
        [value.description, String(value.exponent), value.significand.description, value.sign == .minus ? "-" : "+"]
    }

    static func expectSame(_ text: String) {
        let short = DecimalText.readShort(text)
        let general = DecimalText.readAny(text)
        switch general {
        case .success(let value):
            if let short {
                #expect(fields(short) == fields(value), "\(text)")
                #expect(short.description == value.description, "\(text)")
            }
        case .failure:
            #expect(short == nil, "\(text) is refused by the general path but read by the short one")
        }
    }

    @Test(arguments: [
        "0", "-0", "+0", "0.0", "00", "1", "-1", "+5", "10", "100", "1000000", "0.1", "0.10", "1.50", "-1.50", ".5", "5.",
        "0.00000001", "1e-8", "1E8", "1e+3", "12e-1", "0.0100", "190.00", "410", "65000", "19660.5738784516887649",
        "9999999999999999999", "10000000000000000000", "18446744073709551615", "18446744073709551616",
        "1234567890123456789", "0.1234567890123456789", "12345678901234567890", "1e127", "1e128", "10e127", "1e-128",
        "1e-129", "0.5e-127", "1e999", "1e1000", "1.5abc", "", " 1", "1 ", "abc", "1,5", "0x10", "NaN", "1e", "--1", ".",
        "1.2.3", "+", "-", "e5", ".e1", "1e+", "1e-", "١", "1.5e2.5",
    ])
    func agreesOn(_ text: String) {
        Self.expectSame(text)
    }

    @Test func agreesOnManyGeneratedLiterals() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var read = 0
        for _ in 0..<20_000 {
            var text = ["", "-", "+"][next(3)]
            text += String(repeating: "0", count: next(3))
            let integerDigits = next(12)
            for _ in 0..<integerDigits { text += String(next(10)) }
            if next(3) > 0 {
                text += "."
                for _ in 0..<next(12) { text += String(next(10)) }
            }
            text += String(repeating: "0", count: next(4))
            if next(5) == 0 { text += ["e", "E"][next(2)] + ["", "-", "+"][next(3)] + String(next(140)) }
            Self.expectSame(text)
            if DecimalText.readShort(text) != nil { read += 1 }
        }
        // The short path must take the common case, or it saves nothing.
        #expect(read > 15_000)
    }

    static func expectSameText(_ value: Decimal) {
        guard let short = DecimalText.shortText(value) else {
            #expect(DecimalLayout.parts(value) == nil, "\(value) was left to description")
            return
        }
        #expect(short == value.description)
    }

    @Test func theLayoutIsFoundations() {
        #expect(DecimalLayout.isUsable)
    }

    @Test func writesWhatDescriptionWrites() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 11) % bound
        }
        var values: [Decimal] = [0, 1, -1, 10, 100, Decimal.nan, Decimal(string: "0.5")!, Decimal(string: "-0.05")!]
        for _ in 0..<5_000 {
            let significand = next(4) == 0 ? UInt64.max - next(1_000) : next(UInt64(1) << (1 + next(63)))
            let exponent = Int(next(60)) - 40
            // Significands as stored, trailing zeros included (Foundation's arithmetic makes such values).
            values.append(DecimalLayout.make(significand: significand, exponent: Int8(exponent), negative: next(2) == 0))
        }
        // What arithmetic makes: products with trailing zeros, quotients with long significands (left to Foundation).
        let price = try #require(DecimalText.parse("190.10"))
        values += [price * 3, price * Decimal(string: "0.05")!, price / 3, price - price, -price * 7, price * 1_000_000]
        for value in values { Self.expectSameText(value) }
        #expect(DecimalText.format(price / 3) == (price / 3).description)
    }
}
