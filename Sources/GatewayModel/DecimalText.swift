public import Foundation

/// Strict conversion between `Decimal` and its wire text.
///
/// Foundation's `Decimal(string:)` accepts a prefix ("1.5abc" becomes 1.5) and silently rounds what it cannot hold
/// (a 40th significant digit is dropped; "1e-130" is no number at all), so every broker string and every client string
/// goes through `read` first, which accepts only a whole, plain decimal literal whose value `Decimal` holds exactly.
/// Nothing is ever rounded here: text `Decimal` cannot hold is refused, and the caller says so (a client's 422, a
/// broker's `malformed_response`).
///
/// What a field may hold beyond that (a quantity's largest value, a price's fraction digits) is the field's rule:
/// see ``DecimalBounds``. The text of every value `Decimal` holds reads back here, so the gateway's own stored text
/// (the order journal) always does, whatever a field allows.
public enum DecimalText {
    /// The longest literal accepted: longer than the canonical text of any value `Decimal` holds (at most 169
    /// characters: 39 digits and 127 zeros, or "0." with 127 digits after it), short enough to bound the work.
    public static let maximumLength = 256
    /// `Decimal` keeps a 128-bit significand: every 38-digit integer fits, not every 39-digit one. More significant
    /// digits than this are refused, except 39-digit values that do fit (the gateway's own sums can make them, and
    /// its journal must read back whatever it wrote).
    public static let maximumSignificantDigits = 38
    /// The exponent range of `Decimal`'s significand (value = significand × 10^exponent).
    public static let exponentRange = -128...127

    /// Why a text is not a decimal the gateway takes.
    public enum Refusal: Error, Sendable, Hashable {
        /// Not a plain decimal literal: empty, spaces, a prefix, `NaN`, hex, commas, or longer than ``maximumLength``.
        case notADecimal
        /// A well-formed decimal that `Decimal` cannot hold exactly; `problem` says why, for a client's field problem
        /// ("has more than 38 significant digits …").
        case inexact(problem: String)

        /// The refusal as a field problem's text, ready for a client's 422.
        public var problem: String {
            switch self {
            case .notADecimal: "must be a decimal number, as a string or a number"
            case .inexact(let problem): problem
            }
        }
    }

    /// Parses `"-12.340"`, `"0.00000001"`, `"1e-8"`, `"+5"`; `nil` for what ``read(_:)`` refuses.
    public static func parse(_ text: String) -> Decimal? {
        switch read(text) {
        case .success(let value): value
        case .failure: nil
        }
    }

    /// Reads a plain decimal literal (`"-12.340"`, `".5"`, `"1e-8"`, `"+5"`) into the value it names, exactly; refuses
    /// empty text, spaces, prefixes, `NaN`, hex and commas (``Refusal/notADecimal``), and a value with more than 38
    /// significant digits or beyond `Decimal`'s exponent range (``Refusal/inexact(problem:)``).
    public static func read(_ text: String) -> Result<Decimal, Refusal> {
        if let value = readShort(text) { return .success(value) }
        return readAny(text)
    }

    /// The common case without allocating: a literal of at most 19 significant digits (a `UInt64`) whose value's
    /// exponent is in range, built straight into the `Decimal` that `Decimal(string:)` makes of the canonical form
    /// ``readAny(_:)`` would hand it (significand stripped of leading and trailing zeros, compact). `nil` for
    /// anything else, valid or not: ``readAny(_:)`` decides those. A broker's answer of 10,000 positions carries
    /// 60,000 decimals, so this is the gateway's hottest parse.
    static func readShort(_ text: String) -> Decimal? {
        guard DecimalLayout.isUsable else { return nil }
        var utf8 = text
        return utf8.withUTF8 { bytes -> Decimal? in
            let count = bytes.count
            guard count > 0, count <= maximumLength else { return nil }
            var index = 0
            var negative = false
            if bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-") {
                negative = bytes[0] == UInt8(ascii: "-")
                index = 1
            }
            var significand: UInt64 = 0
            var significantDigits = 0
            // Zeros read since the last non-zero digit (after the first one): kept out of the significand until a
            // non-zero digit follows them, so trailing zeros are stripped.
            var pendingZeros = 0
            var digitCount = 0
            var fractionDigits = 0
            var inFraction = false
            while index < count {
                let c = bytes[index]
                if c >= 0x30 && c <= 0x39 {
                    digitCount += 1
                    if inFraction { fractionDigits += 1 }
                    let digit = UInt64(c - 0x30)
                    if digit == 0 {
                        if significantDigits > 0 { pendingZeros += 1 }
                    } else {
                        guard significantDigits + pendingZeros + 1 <= 19 else { return nil }
                        for _ in 0..<pendingZeros { significand = significand &* 10 }
                        significand = significand &* 10 &+ digit
                        significantDigits += pendingZeros + 1
                        pendingZeros = 0
                    }
                } else if c == UInt8(ascii: "."), !inFraction {
                    inFraction = true
                } else {
                    break
                }
                index += 1
            }
            guard digitCount > 0 else { return nil }
            var exponent = 0
            if index < count {
                // An exponent: 1 to 3 digits after `e`, optionally signed; anything else is for readAny.
                guard bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") else { return nil }
                index += 1
                var exponentNegative = false
                if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    exponentNegative = bytes[index] == UInt8(ascii: "-")
                    index += 1
                }
                let start = index
                while index < count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - start < 3 {
                    exponent = exponent * 10 + Int(bytes[index] - 0x30)
                    index += 1
                }
                guard index > start, index == count else { return nil }
                if exponentNegative { exponent = -exponent }
            }
            if significantDigits == 0 { return 0 }
            let scale = exponent - fractionDigits + pendingZeros
            guard exponentRange.contains(scale) else { return nil }
            return DecimalLayout.make(significand: significand, exponent: Int8(scale), negative: negative)
        }
    }

    /// ``read(_:)`` for every literal: any length up to ``maximumLength``, 39 significant digits, exponents moved
    /// into the significand.
    static func readAny(_ text: String) -> Result<Decimal, Refusal> {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= maximumLength else { return .failure(.notADecimal) }
        var index = utf8.startIndex
        func peek() -> UInt8? { index < utf8.endIndex ? utf8[index] : nil }
        func isDigit(_ c: UInt8?) -> Bool { c.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
        var negative = false
        if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") {
            negative = peek() == UInt8(ascii: "-")
            index = utf8.index(after: index)
        }
        // The digits without the point, and how many of them came after it.
        var digits: [UInt8] = []
        var fractionDigits = 0
        while isDigit(peek()) {
            digits.append(peek()!)
            index = utf8.index(after: index)
        }
        if peek() == UInt8(ascii: ".") {
            index = utf8.index(after: index)
            while isDigit(peek()) {
                digits.append(peek()!)
                fractionDigits += 1
                index = utf8.index(after: index)
            }
        }
        guard !digits.isEmpty else { return .failure(.notADecimal) }
        var exponent = 0
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index = utf8.index(after: index)
            var exponentNegative = false
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") {
                exponentNegative = peek() == UInt8(ascii: "-")
                index = utf8.index(after: index)
            }
            var exponentDigits = 0
            while let c = peek(), isDigit(c) {
                exponent = exponent * 10 + Int(c - 0x30)
                exponentDigits += 1
                index = utf8.index(after: index)
            }
            guard exponentDigits > 0, exponentDigits <= 3 else { return .failure(.notADecimal) }
            if exponentNegative { exponent = -exponent }
        }
        guard index == utf8.endIndex else { return .failure(.notADecimal) }

        // value = significant × 10^scale, with the significant digits stripped of leading and trailing zeros.
        guard let first = digits.firstIndex(where: { $0 != UInt8(ascii: "0") }) else { return .success(0) }
        let last = digits.lastIndex(where: { $0 != UInt8(ascii: "0") })!
        var significant = Array(digits[first...last])
        var scale = exponent - fractionDigits + (digits.count - 1 - last)
        // Decimal's significand holds every 38-digit integer and the 39-digit ones up to 2^128 - 1; a value with a
        // larger exponent than it takes may still fit with zeros moved into the significand (10 × 10^127).
        while scale > exponentRange.upperBound, significant.count < maximumSignificand.count {
            significant.append(UInt8(ascii: "0"))
            scale -= 1
        }
        guard significant.count <= maximumSignificantDigits || Self.fitsSignificand(significant) else {
            return .failure(
                .inexact(
                    problem: "has more than \(maximumSignificantDigits) significant digits, more than a decimal holds exactly (it is never rounded)"
                )
            )
        }
        guard exponentRange.contains(scale) else {
            return .failure(.inexact(problem: "is beyond the range a decimal holds exactly (about 10^-128 to 10^165; it is never rounded)"))
        }
        // A significand Decimal holds and an exponent in range: Foundation reads this form exactly.
        let canonical = (negative ? "-" : "") + String(decoding: significant, as: UTF8.self) + "e" + String(scale)
        guard let value = Decimal(string: canonical, locale: nil), !value.isNaN else { return .failure(.notADecimal) }
        return .success(value)
    }

    /// 2^128 - 1, the largest significand `Decimal` holds (39 digits).
    static let maximumSignificand = Array("340282366920938463463374607431768211455".utf8)

    /// Whether a significand of 39 digits or fewer is at most ``maximumSignificand``.
    static func fitsSignificand(_ digits: [UInt8]) -> Bool {
        digits.count < maximumSignificand.count
            || (digits.count == maximumSignificand.count && !maximumSignificand.lexicographicallyPrecedes(digits))
    }

    /// The number of significant digits of a value: its digits without leading and trailing zeros (0 has none).
    public static func significantDigits(_ value: Decimal) -> Int {
        let digits = format(value).utf8.filter { $0 >= 0x30 && $0 <= 0x39 }
        guard let first = digits.firstIndex(where: { $0 != UInt8(ascii: "0") }),
            let last = digits.lastIndex(where: { $0 != UInt8(ascii: "0") })
        else { return 0 }
        return last - first + 1
    }

    /// The canonical text of a decimal: plain notation, no exponent, no trailing zeros ("0.3", "-1.5", "0.00000001").
    public static func format(_ value: Decimal) -> String {
        shortText(value) ?? value.description
    }

    /// `value.description` for a value whose significand fits in 64 bits (every price and quantity in practice),
    /// written from that integer: Foundation's own divides its 128-bit significand by ten per digit, and a response of
    /// 10,000 positions writes 60,000 decimals. The same text: the significand's digits as stored (trailing zeros
    /// kept), the point placed by the exponent, "0." before a fraction with no integer part, zeros after an integer
    /// with a positive exponent. `nil` for wider significands and NaN.
    static func shortText(_ value: Decimal) -> String? {
        guard DecimalLayout.isUsable, let (stored, exponent, negative) = DecimalLayout.parts(value) else { return nil }
        if stored == 0 { return "0" }
        var significand = stored
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while significand > 0 {
                buffer[23 - count] = UInt8(truncatingIfNeeded: significand % 10) | 0x30
                significand /= 10
                count += 1
            }
        }
        let total =
            (negative ? 1 : 0)
            + (exponent >= 0 ? count + exponent : (-exponent < count ? count + 1 : 2 - exponent))
        return withUnsafeBytes(of: &digits) { buffer in
            let digitBytes = buffer[(24 - count)...]
            return String(unsafeUninitializedCapacity: total) { out in
                var i = 0
                if negative {
                    out[i] = UInt8(ascii: "-")
                    i += 1
                }
                if exponent >= 0 {
                    for byte in digitBytes {
                        out[i] = byte
                        i += 1
                    }
                    for _ in 0..<exponent {
                        out[i] = UInt8(ascii: "0")
                        i += 1
                    }
                } else if -exponent < count {
                    let integerDigits = count + exponent
                    for (index, byte) in digitBytes.enumerated() {
                        if index == integerDigits {
                            out[i] = UInt8(ascii: ".")
                            i += 1
                        }
                        out[i] = byte
                        i += 1
                    }
                } else {
                    out[i] = UInt8(ascii: "0")
                    out[i + 1] = UInt8(ascii: ".")
                    i += 2
                    for _ in 0..<(-exponent - count) {
                        out[i] = UInt8(ascii: "0")
                        i += 1
                    }
                    for byte in digitBytes {
                        out[i] = byte
                        i += 1
                    }
                }
                return i
            }
        }
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

extension DecimalText.Refusal {
    /// The refusal as the decoding error of `key`: `dataCorrupted` with the problem as its description and the refusal
    /// itself as the underlying error, so the API can tell a decimal it cannot hold exactly (a 422 naming the field)
    /// from a value it cannot read at all (a 400), and an adapter's decoding still fails the usual way
    /// (`malformed_response`).
    public func decodingError(codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: problem, underlyingError: self))
    }
}

extension KeyedDecodingContainer {
    /// Decodes a decimal sent as a JSON string ("0.01") or a JSON number (0.01), strictly: never rounded.
    ///
    /// A string goes through ``DecimalText/read(_:)``. A number is read by the JSON reader itself, which keeps at most
    /// 38 or 39 significant digits and drops the rest without a word; as its text is gone by then, a number that comes
    /// out with 38 or more significant digits is refused as possibly rounded (send such a value as a string). The
    /// client API checks the literal text of its numbers before decoding (`DecimalLiterals` in GatewayAPI).
    public func decodeDecimal(forKey key: Key) throws -> Decimal {
        let text: String
        do {
            text = try decode(String.self, forKey: key)
        } catch DecodingError.typeMismatch {
            return try decodeDecimalNumber(forKey: key)
        }
        switch DecimalText.read(text) {
        case .success(let value): return value
        case .failure(let refusal): throw refusal.decodingError(codingPath: codingPath + [key])
        }
    }

    /// Like `decodeDecimal(forKey:)`, but a missing key or `null` gives `nil`.
    public func decodeDecimalIfPresent(forKey key: Key) throws -> Decimal? {
        // One lookup for the usual string (a decoder reads a key each time it is asked), numbers as above.
        let text: String?
        do {
            text = try decodeIfPresent(String.self, forKey: key)
        } catch DecodingError.typeMismatch {
            return try decodeDecimalNumber(forKey: key)
        }
        guard let text else { return nil }
        switch DecimalText.read(text) {
        case .success(let value): return value
        case .failure(let refusal): throw refusal.decodingError(codingPath: codingPath + [key])
        }
    }

    private func decodeDecimalNumber(forKey key: Key) throws -> Decimal {
        let value: Decimal
        do {
            value = try decode(Decimal.self, forKey: key)
        } catch let error as DecodingError {
            if case .keyNotFound = error { throw error }
            if case .valueNotFound = error { throw error }
            throw DecimalText.Refusal.notADecimal.decodingError(codingPath: codingPath + [key])
        }
        guard !value.isNaN else { throw DecimalText.Refusal.notADecimal.decodingError(codingPath: codingPath + [key]) }
        guard DecimalText.significantDigits(value) < DecimalText.maximumSignificantDigits else {
            throw DecimalText.Refusal.inexact(
                problem:
                    "has \(DecimalText.maximumSignificantDigits) or more significant digits as a JSON number, which the JSON reader may have rounded; send it as a string"
            ).decodingError(codingPath: codingPath + [key])
        }
        return value
    }
}

extension SingleValueDecodingContainer {
    /// A decimal that is the whole value (a candle's array element), read by the rules of
    /// `KeyedDecodingContainer.decodeDecimal(forKey:)`.
    public func decodeDecimal() throws -> Decimal {
        let text: String
        do {
            text = try decode(String.self)
        } catch DecodingError.typeMismatch {
            let value: Decimal
            do {
                value = try decode(Decimal.self)
            } catch let error as DecodingError {
                if case .valueNotFound = error { throw error }
                throw DecimalText.Refusal.notADecimal.decodingError(codingPath: codingPath)
            }
            guard !value.isNaN else { throw DecimalText.Refusal.notADecimal.decodingError(codingPath: codingPath) }
            guard DecimalText.significantDigits(value) < DecimalText.maximumSignificantDigits else {
                throw DecimalText.Refusal.inexact(
                    problem:
                        "has \(DecimalText.maximumSignificantDigits) or more significant digits as a JSON number, which the JSON reader may have rounded; send it as a string"
                ).decodingError(codingPath: codingPath)
            }
            return value
        }
        switch DecimalText.read(text) {
        case .success(let value): return value
        case .failure(let refusal): throw refusal.decodingError(codingPath: codingPath)
        }
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
