import Foundation
import Testing

@testable import SandboxKit

/// The wire writers rewritten for issue 29 (JSON into one byte array, decimals written once into their string) held to
/// what they replaced: Foundation's `description`, and the former `String`-appending serializer, kept here as the oracle.
@Suite("Wire bytes: the faster writers give the same text")
struct WireBytesTests {
    /// The serializer as it was: appended to a `String`, escaped scalar by scalar.
    private func former(_ value: JSON) -> String {
        func string(_ s: String) -> String {
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let text): return text
        case .string(let text): return string(text)
        case .array(let items): return "[" + items.map(former).joined(separator: ",") + "]"
        case .object(let members): return "{" + members.map { string($0.key) + ":" + former($0.value) }.joined(separator: ",") + "}"
        }
    }

    @Test("JSON: every control character, quotes, backslashes and multi-byte text escape as before")
    func json() {
        let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let texts = [
            "", "plain", controls, "quote \" and \\ backslash", "é, 日本, 🚀 and \u{7F}", "tab\tnew\nline\r", "\u{1F}end",
            "a\"b\\c\u{0}d",
        ]
        let value: JSON = .object(
            texts.map { JSON.Member(key: $0, value: .array([.string($0), .number("-0.5"), .null, .bool(true), .bool(false), [:]])) }
        )
        #expect(value.serialized == former(value))
        #expect(value.serializedBytes == Array(former(value).utf8))
        #expect(JSON.array([]).serialized == "[]")
    }

    @Test("decimals: the text written from the significand is Foundation's description, trailing zeros and all")
    func decimals() {
        var state: UInt64 = 150
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
        for _ in 0..<20_000 {
            let magnitude = UInt128(next() >> (next() % 64))
            let exponent = Int(next() % 100) - 70
            // Stored as given: not compacted, so trailing zeros in the significand are kept as Foundation keeps them.
            let value = FixedDecimal(magnitude: magnitude, exponent: exponent, isNegative: next() % 3 == 0, isCompact: false).decimal
            guard let text = DecimalText.shortText(value) else { continue }
            #expect(text == value.description, "\(magnitude)e\(exponent)")
        }
    }
}
