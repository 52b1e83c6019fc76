public import Foundation

/// Strict conversion between `Decimal` and its wire text.
///
/// Foundation's `Decimal(string:)` accepts a prefix ("1.5abc" becomes 1.5), so every broker string and every
/// client string goes through `parse` first, which accepts only a whole, plain decimal literal.
public enum DecimalText {
    /// The longest literal accepted; far beyond any real price or quantity, short enough to bound parsing work.
    public static let maximumLength = 64

    /// Parses `"-12.340"`, `"0.00000001"`, `"1e-8"`, `"+5"`; rejects empty text, spaces, prefixes, `NaN`, hex, commas.
    public static func parse(_ text: String) -> Decimal? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= maximumLength else { return nil }
        var index = utf8.startIndex
        func peek() -> UInt8? { index < utf8.endIndex ? utf8[index] : nil }
        func isDigit(_ c: UInt8?) -> Bool { c.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
        if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index = utf8.index(after: index) }
        var digits = 0
        while isDigit(peek()) { digits += 1; index = utf8.index(after: index) }
        if peek() == UInt8(ascii: ".") {
            index = utf8.index(after: index)
            while isDigit(peek()) { digits += 1; index = utf8.index(after: index) }
        }
        guard digits > 0 else { return nil }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index = utf8.index(after: index)
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index = utf8.index(after: index) }
            var exponentDigits = 0
            while isDigit(peek()) { exponentDigits += 1; index = utf8.index(after: index) }
            guard exponentDigits > 0, exponentDigits <= 3 else { return nil }
        }
        guard index == utf8.endIndex else { return nil }
        guard let value = Decimal(string: text, locale: nil), !value.isNaN else { return nil }
        return value
    }

    /// The canonical text of a decimal: plain notation, no exponent, no trailing zeros ("0.3", "-1.5", "0.00000001").
    public static func format(_ value: Decimal) -> String {
        value.description
    }

    /// Text with exactly `scale` fraction digits (for wires that want "0.02500000"); rounds half-even only when the
    /// value has more digits than the scale allows, so callers that must not round check `fractionDigits` first.
    public static func format(_ value: Decimal, scale: Int) -> String {
        var input = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, scale, .bankers)
        var text = rounded.description
        let negative = text.hasPrefix("-")
        if negative { text.removeFirst() }
        var parts = text.split(separator: ".", maxSplits: 1).map(String.init)
        if parts.count == 1 { parts.append("") }
        if scale > 0 {
            let fraction = parts[1].padding(toLength: scale, withPad: "0", startingAt: 0)
            text = parts[0] + "." + fraction
        } else {
            text = parts[0]
        }
        return (negative && rounded != 0 ? "-" : "") + text
    }

    /// The number of digits after the decimal point that the value needs (0.0100 → 2, 5 → 0, 1e-8 → 8).
    public static func fractionDigits(_ value: Decimal) -> Int {
        let text = value.description
        guard let dot = text.firstIndex(of: ".") else { return 0 }
        return text.distance(from: text.index(after: dot), to: text.endIndex)
    }

    /// Whether `value` is a whole multiple of `increment` (an increment of zero or less allows anything).
    public static func isMultiple(_ value: Decimal, of increment: Decimal) -> Bool {
        guard increment > 0 else { return true }
        let quotient = value / increment
        var copy = quotient
        var whole = Decimal()
        NSDecimalRound(&whole, &copy, 0, .down)
        return whole == quotient
    }
}

extension KeyedDecodingContainer {
    /// Decodes a decimal sent as a JSON string ("0.01") or a JSON number (0.01), strictly.
    public func decodeDecimal(forKey key: Key) throws -> Decimal {
        if let text = try? decode(String.self, forKey: key) {
            guard let value = DecimalText.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: self, debugDescription: "must be a decimal number, as a string or a number")
            }
            return value
        }
        do {
            let value = try decode(Decimal.self, forKey: key)
            guard !value.isNaN else {
                throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "must be a finite decimal number")
            }
            return value
        } catch let error as DecodingError {
            if case .keyNotFound = error { throw error }
            if case .valueNotFound = error { throw error }
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "must be a decimal number, as a string or a number")
        }
    }

    /// Like `decodeDecimal(forKey:)`, but a missing key or `null` gives `nil`.
    public func decodeDecimalIfPresent(forKey key: Key) throws -> Decimal? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeDecimal(forKey: key)
    }
}

extension KeyedEncodingContainer {
    /// Encodes a decimal as a JSON string in canonical text ("123.45").
    public mutating func encodeDecimal(_ value: Decimal, forKey key: Key) throws {
        try encode(DecimalText.format(value), forKey: key)
    }

    /// Encodes a decimal as a JSON string, or nothing when `nil`.
    public mutating func encodeDecimalIfPresent(_ value: Decimal?, forKey key: Key) throws {
        guard let value else { return }
        try encode(DecimalText.format(value), forKey: key)
    }
}
