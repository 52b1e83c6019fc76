import Foundation
import GatewayCore
import Testing

@Suite("Broker text: what a broker says reaches a client bounded, clean, and never quoted from a body")
struct BrokerTextTests {
    @Test("control characters and escapes go, runs of blanks become one space, and the text is cut")
    func sanitized() {
        #expect(BrokerText.sanitized("  insufficient\n\tbuying\u{1B}[31m power \u{0}") == "insufficient buying [31m power")
        #expect(BrokerText.sanitized("a\u{202E}b\u{2028}c") == "a b c")
        let long = BrokerText.sanitized(String(repeating: "x", count: 10_000))
        #expect(long.count == BrokerText.maximumLength + 1)
        #expect(long.hasSuffix("…"))
        #expect(BrokerText.sanitized("short") == "short")
        #expect(BrokerText.sanitized("abcdef", limit: 3) == "abc…")
    }

    struct Position: Decodable {
        var qty: Decimal
        var side: String
    }

    struct Quotes: Decodable {
        var quotes: [String: Quote]
        struct Quote: Decodable { var ap: Decimal }
    }

    static func failure<T: Decodable>(_ type: T.Type, _ json: String) -> String {
        do {
            _ = try JSONDecoder().decode(type, from: Data(json.utf8))
            return "decoded"
        } catch {
            return DecodingFailure.describe(error)
        }
    }

    @Test("a decoding failure names our field and position, never a value or a key the payload chose")
    func decodingFailuresQuoteNothing() {
        // Foundation's reader refuses the number itself (before any field is decoded): said without quoting it.
        let number = Self.failure([Position].self, #"[{"qty": 1, "side": "long"}, {"qty": 1e400, "side": "long"}]"#)
        #expect(["a body that is not readable JSON", "an unreadable value at [1].qty"].contains(number), "\(number)")
        #expect(!number.contains("400"), "\(number)")

        let type = Self.failure([Position].self, #"[{"qty": 1, "side": {"internal-admin-token": "hunter2"}}]"#)
        #expect(type.contains("[0].side"), "\(type)")
        #expect(!type.contains("hunter2") && !type.contains("internal-admin-token"), "\(type)")

        let key = Self.failure(Quotes.self, #"{"quotes": {"SECRET-ACCOUNT-42": {"ap": "not a number"}}}"#)
        #expect(key.contains("quotes.{…}.ap"), "\(key)")
        #expect(!key.contains("SECRET-ACCOUNT-42") && !key.contains("not a number"), "\(key)")

        let missing = Self.failure(Position.self, #"{"qty": 1}"#)
        #expect(missing == "a body without 'side' at the body", "\(missing)")

        let notJSON = Self.failure(Position.self, "<html>internal admin console: root password is hunter2</html>")
        #expect(notJSON == "a body that is not readable JSON", "\(notJSON)")

        var invalidUTF8 = Data(#"{"qty": 1, "side": ""#.utf8)
        invalidUTF8.append(contentsOf: [0xC3, 0x28, 0xFF])
        invalidUTF8.append(contentsOf: Data(#""}"#.utf8))
        let utf8: String
        do {
            _ = try JSONDecoder().decode(Position.self, from: invalidUTF8)
            utf8 = "decoded"
        } catch {
            utf8 = DecodingFailure.describe(error)
        }
        #expect(utf8 != "decoded")
        #expect(!utf8.contains("\u{FFFD}"))

        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(Self.failure([Position].self, deep) == "a body that is not readable JSON")
    }

    @Test("path escaping: '.' and '..' cannot be a segment; everything else is escaped as before")
    func escapeDotSegments() {
        #expect(BrokerURL.escape("..") == "%2E%2E")
        #expect(BrokerURL.escape(".") == "%2E")
        #expect(BrokerURL.escape("...") == "...")
        #expect(BrokerURL.escape("a..b") == "a..b")
        #expect(BrokerURL.escape("../account") == "..%2Faccount")
        #expect(BrokerURL.escape("ord-1.2") == "ord-1.2")
    }
}
