public import Foundation

/// Strict decimal text in and out.
///
/// `Decimal(string:)` accepts a prefix ("1.5abc" is 1.5) and odd spellings (".5", "5."),
/// so text is checked against a plain grammar first: `-?digits(.digits)?([eE][+-]?digits)?`.
/// The exponent form is accepted because Python's `json.dumps` writes `1e-05` for small floats.
public enum DecimalText {
    /// The value of `text` when all of it matches the grammar above (at most 64 characters, an exponent from −60 to 40);
    /// nil otherwise, never a prefix's value.
    public static func parse(_ text: some StringProtocol) -> Decimal? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        var index = 0
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        guard index > integerStart else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            guard index > fractionStart else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var negative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                negative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            var exponent = 0
            while index < bytes.count, isDigit(bytes[index]) {
                exponent = min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 1000)
                index += 1
            }
            guard index > exponentStart, exponent <= 40 || negative && exponent <= 60 else { return nil }
        }
        guard index == bytes.count else { return nil }
        guard let value = Decimal(string: String(text), locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else {
            return nil
        }
        return value
    }

    /// Plain text without exponent or trailing zeros; never "-0".
    public static func format(_ value: Decimal) -> String {
        if value.isZero { return "0" }
        return shortText(value) ?? value.description
    }

    /// `value.description` for a significand of at most 64 bits, written from that integer (Foundation's divides its
    /// 128-bit significand by ten per digit; an account's 10,000 positions are 160,000 decimals on the wire). The
    /// gateway's `DecimalText` does the same; the simulators import nothing of the gateway. `nil` when wider or NaN.
    public static func shortText(_ value: Decimal) -> String? {
        guard DecimalLayout.isUsable, let (stored, exponent, negative) = DecimalLayout.parts(value) else { return nil }
        if stored == 0 { return "0" }
        return text(significand: stored, exponent: exponent, negative: negative)
    }

    /// The digits of `significand` with the point placed by `exponent`, written once into the string's own storage.
    private static func text(significand: UInt64, exponent: Int, negative: Bool) -> String {
        var digitCount = 1
        var probe = significand
        while probe >= 10 {
            probe /= 10
            digitCount += 1
        }
        let fractionDigits = max(0, -exponent)
        let body =
            if exponent >= 0 {
                digitCount + exponent  // digits, then zeros
            } else if fractionDigits < digitCount {
                digitCount + 1  // digits with a point among them
            } else {
                2 + fractionDigits  // "0.", zeros, digits
            }
        let length = body + (negative ? 1 : 0)
        return String(unsafeUninitializedCapacity: length) { text in
            if negative { text[0] = UInt8(ascii: "-") }
            var end = length
            if exponent > 0 {
                for index in (length - exponent)..<length { text[index] = UInt8(ascii: "0") }
                end -= exponent
            } else if fractionDigits >= digitCount {
                let start = negative ? 1 : 0
                text[start] = UInt8(ascii: "0")
                text[start + 1] = UInt8(ascii: ".")
                for index in (start + 2)..<(length - digitCount) { text[index] = UInt8(ascii: "0") }
            }
            // Digits from the least significant, stepping over the point where it falls among them.
            var remaining = significand
            var position = end - 1
            for written in 0..<digitCount {
                if exponent < 0 && fractionDigits < digitCount && written == fractionDigits {
                    text[position] = UInt8(ascii: ".")
                    position -= 1
                }
                text[position] = UInt8(truncatingIfNeeded: remaining % 10) | 0x30
                remaining /= 10
                position -= 1
            }
            return length
        }
    }

    /// Plain text with at least `minimumFractionDigits` digits after the point ("5" → "5.00").
    public static func format(_ value: Decimal, minimumFractionDigits: Int) -> String {
        let text = format(value)
        guard minimumFractionDigits > 0 else { return text }
        if let dot = text.firstIndex(of: ".") {
            let have = text.distance(from: text.index(after: dot), to: text.endIndex)
            return have >= minimumFractionDigits ? text : text + String(repeating: "0", count: minimumFractionDigits - have)
        }
        return text + "." + String(repeating: "0", count: minimumFractionDigits)
    }

    /// `NSDecimalRound`'s result, through ``FixedDecimal`` where that gives it exactly (Foundation's costs some 10 µs).
    public static func round(_ value: Decimal, scale: Int, _ mode: NSDecimalNumber.RoundingMode = .plain) -> Decimal {
        DecimalMath.fast.round(value, scale: scale, mode)
    }

    /// `NSDecimalRound` itself: the fallback, and the oracle ``FixedDecimal`` is tested against.
    public static func foundationRound(_ value: Decimal, scale: Int, _ mode: NSDecimalNumber.RoundingMode = .plain) -> Decimal {
        var input = value
        var result = Decimal()
        NSDecimalRound(&result, &input, scale, mode)
        return result
    }

    /// Rounds to a multiple of `increment` (a tick size or lot size).
    public static func round(
        _ value: Decimal,
        toMultipleOf increment: Decimal,
        _ mode: NSDecimalNumber.RoundingMode = .plain
    )
        -> Decimal
    {
        guard increment > 0 else { return value }
        return DecimalMath.fast.product(DecimalMath.fast.quotient(value, increment, scale: 0, mode), increment)
    }

    /// Whether `value` is an exact multiple of `increment`.
    public static func isMultiple(_ value: Decimal, of increment: Decimal) -> Bool {
        guard increment > 0 else { return true }
        let ratio = value / increment
        return round(ratio, scale: 0, .plain) == ratio
    }

    /// Digits after the decimal point once trailing zeros are dropped ("1.2300" → 2).
    public static func fractionDigits(_ value: Decimal) -> Int {
        let text = format(value)
        guard let dot = text.firstIndex(of: ".") else { return 0 }
        return text.distance(from: text.index(after: dot), to: text.endIndex)
    }
}
