public import Foundation

/// A `Decimal` held as a 128-bit significand, a sign and a power of ten, for arithmetic that gives exactly what
/// Foundation's gives (the same digits, and the same stored form, so the same text) at a fraction of the cost.
///
/// Foundation's `Decimal` arithmetic on Linux works on arrays of 16-bit words and costs some 10 µs an operation; an
/// Alpaca account's 10,000 positions are some 150,000 of them per `GET /v2/positions`. Here the same operations are a
/// few 128-bit integer steps. Every operation answers `nil` where it cannot promise Foundation's answer (an overflow, an
/// exponent out of Foundation's range, a quotient too close to a rounding boundary to tell how Foundation's own
/// truncated quotient rounds), and ``DecimalMath`` then asks Foundation: results are never different, only sometimes
/// slower.
///
/// What is emulated is swift-foundation's `Decimal` (`Decimal+Math.swift`, release 6.3.1): a sum, difference or product
/// is exact while its significand fits 128 bits and is then compacted (trailing zeros divided out); `NSDecimalRound`
/// rounds the exact value and compacts; a zero operand of a sum is returned as it is.
public struct FixedDecimal: Sendable {
    /// The significand's magnitude, trailing zeros kept as Foundation stores them.
    public var magnitude: UInt128
    /// The power of ten, within Foundation's range (−128...127).
    public var exponent: Int
    /// The sign; never set on zero (a negative zero is Foundation's NaN).
    public var isNegative: Bool
    /// Foundation's "compact" flag (no trailing zeros left to strip), kept so a value converted back is Foundation's
    /// own down to the flag.
    public var isCompact: Bool

    /// A value from its parts, kept as given (``isCompact`` included) except that a zero is never negative. `exponent`
    /// must be within −128...127: ``decimal`` stores it in Foundation's 8 bits.
    public init(magnitude: UInt128, exponent: Int, isNegative: Bool, isCompact: Bool) {
        self.magnitude = magnitude
        self.exponent = exponent
        self.isNegative = isNegative && magnitude != 0
        self.isCompact = isCompact
    }

    /// Foundation's `Decimal.zero` (`Decimal()`), which a product with a zero factor and a difference of equals are.
    public static let zero = FixedDecimal(magnitude: 0, exponent: 0, isNegative: false, isCompact: false)

    /// Whether the value is zero (a zero may carry any exponent).
    public var isZero: Bool { magnitude == 0 }

    // MARK: Conversion

    /// Reads `value` as Foundation stores it; `nil` for NaN, or where the memory layout is not NSDecimal's.
    public init?(_ value: Decimal) {
        guard Self.layoutHolds, let read = Self.read(value) else { return nil }
        self = read
    }

    /// The same value as a Foundation `Decimal`, written in Foundation's own layout.
    public var decimal: Decimal {
        var value = Decimal()
        let words = (UInt128.bitWidth - magnitude.leadingZeroBitCount + 15) / 16
        withUnsafeMutableBytes(of: &value) { raw in
            raw[0] = UInt8(bitPattern: Int8(truncatingIfNeeded: exponent))
            raw[1] = UInt8(truncatingIfNeeded: words << 4) | (isNegative ? 0x08 : 0) | (isCompact ? 0x04 : 0)
            raw[2] = 0
            raw[3] = 0
            for word in 0..<8 {
                raw.storeBytes(of: UInt16(truncatingIfNeeded: magnitude >> (16 * word)), toByteOffset: 4 + 2 * word, as: UInt16.self)
            }
        }
        return value
    }

    private static func read(_ value: Decimal) -> FixedDecimal? {
        withUnsafeBytes(of: value) { raw in
            let length = Int(raw[1] >> 4)
            let negative = raw[1] & 0x08 != 0
            if length == 0 && negative { return nil }  // NaN
            guard length <= 8 else { return nil }
            var magnitude: UInt128 = 0
            for word in 0..<length {
                magnitude |= UInt128(raw.loadUnaligned(fromByteOffset: 4 + 2 * word, as: UInt16.self)) << (16 * word)
            }
            return FixedDecimal(
                magnitude: magnitude,
                exponent: Int(Int8(bitPattern: raw[0])),
                isNegative: negative,
                isCompact: raw[1] & 0x04 != 0
            )
        }
    }

    /// Whether Foundation's `Decimal` is laid out as this type reads and writes it (``DecimalLayout``'s check, plus the
    /// compact flag's place and a round trip of values wider than 64 bits); where it is not, every operation answers
    /// `nil` and Foundation does the arithmetic.
    public static let layoutHolds: Bool = {
        guard DecimalLayout.isUsable else { return false }
        let posix = Locale(identifier: "en_US_POSIX")
        let probes: [(text: String, magnitude: UInt128, exponent: Int, negative: Bool)] = [
            ("15e-1", 15, -1, false), ("-25e-4", 25, -4, true),
            ("99999999999999999999999999999999999999e-40", 99_999_999_999_999_999_999_999_999_999_999_999_999, -40, false),
            ("-18446744073709551617", 18_446_744_073_709_551_617, 0, true),
        ]
        for probe in probes {
            guard let value = Decimal(string: probe.text, locale: posix), let read = read(value),
                read.magnitude == probe.magnitude, read.exponent == probe.exponent, read.isNegative == probe.negative,
                read.decimal == value
            else { return false }
        }
        // Foundation compacts a product (1.5 × 4 is stored as 6) and marks it so; `Decimal()` is not marked.
        guard let factor = Decimal(string: "1.5", locale: posix), let product = read(factor * 4), product.isCompact,
            product.magnitude == 6, product.exponent == 0, read(Decimal())?.isCompact == false
        else { return false }
        return read(Decimal.nan) == nil
    }()

    // MARK: Arithmetic (Foundation's, exactly)

    /// `a + b` as Foundation computes it; `nil` when the aligned significands or their sum do not fit 128 bits.
    public static func sum(_ a: FixedDecimal, _ b: FixedDecimal) -> FixedDecimal? {
        // Foundation returns a zero operand's partner as it is, uncompacted.
        if a.isZero { return b }
        if b.isZero { return a }
        let common = min(a.exponent, b.exponent)
        guard let left = scaled(a.magnitude, by: a.exponent - common), let right = scaled(b.magnitude, by: b.exponent - common) else {
            return nil
        }
        if a.isNegative == b.isNegative {
            let (total, overflow) = left.addingReportingOverflow(right)
            guard !overflow else { return nil }
            return compacted(magnitude: total, exponent: common, isNegative: a.isNegative)
        }
        if left == right { return .zero }
        return left > right
            ? compacted(magnitude: left - right, exponent: common, isNegative: a.isNegative)
            : compacted(magnitude: right - left, exponent: common, isNegative: b.isNegative)
    }

    /// `a - b` as Foundation computes it (the sum with `b`'s sign flipped, a zero `b` left as it is).
    public static func difference(_ a: FixedDecimal, _ b: FixedDecimal) -> FixedDecimal? {
        var negated = b
        negated.isNegative = !b.isNegative && !b.isZero
        return sum(a, negated)
    }

    /// `a * b` as Foundation computes it; `nil` when the product does not fit 128 bits or its exponent Foundation's range.
    public static func product(_ a: FixedDecimal, _ b: FixedDecimal) -> FixedDecimal? {
        if a.isZero || b.isZero { return .zero }
        let (magnitude, overflow) = a.magnitude.multipliedReportingOverflow(by: b.magnitude)
        let exponent = a.exponent + b.exponent
        guard !overflow, exponentRange.contains(exponent) else { return nil }
        return compacted(magnitude: magnitude, exponent: exponent, isNegative: a.isNegative != b.isNegative)
    }

    /// `a / b` as Foundation computes it, only where that is exact without a search: a divisor of ±10ⁿ (a unit, a
    /// percentage, a tick of 0.01) moves the point. `nil` for any other divisor.
    public static func exactQuotient(_ a: FixedDecimal, _ b: FixedDecimal) -> FixedDecimal? {
        guard b.magnitude == 1, a.exponent - b.exponent < normalizingExponentGap else { return nil }
        if a.isZero { return .zero }
        let exponent = a.exponent - b.exponent
        guard exponentRange.contains(exponent) else { return nil }
        return compacted(magnitude: a.magnitude, exponent: exponent, isNegative: a.isNegative != b.isNegative)
    }

    /// `NSDecimalRound(value, scale, mode)`: the exact value rounded to `scale` decimal places, then compacted; a value
    /// with no more places is returned as it is.
    public func rounded(scale: Int, _ mode: Decimal.RoundingMode) -> FixedDecimal? {
        let places = -(scale + exponent)
        guard places > 0 else { return self }
        guard Self.exponentRange.contains(-scale) else { return nil }
        let dropped = Self.drop(magnitude, places: places)
        return Self.finishRounding(
            kept: dropped.kept,
            digit: dropped.digit,
            sticky: dropped.sticky,
            isNegative: isNegative,
            scale: scale,
            mode
        )
    }

    /// `NSDecimalRound(a / b, scale, mode)`, as Foundation computes it: its quotient is truncated to what fits 128
    /// bits (38 or 39 digits) and then rounded, so the answer here is the exact quotient rounded once, given only
    /// where the two cannot differ: the truncated quotient is within 10^-(scale+6) of the exact one (the exponents and
    /// the quotient's size are bounded so), and the exact one is not within that distance of a rounding boundary
    /// (half a unit for `.plain` and `.bankers`, a unit for `.up` and `.down`). Elsewhere, a quotient from 2·10⁻⁶ of
    /// all, `nil`. (Later releases of swift-foundation round their 38 or more digits instead of truncating them; a
    /// quotient that close to the exact one is on the same side of every boundary either way.)
    public static func quotient(_ a: FixedDecimal, _ b: FixedDecimal, scale: Int, _ mode: Decimal.RoundingMode) -> FixedDecimal? {
        guard !b.isZero else { return nil }  // Foundation's NaN.
        if a.isZero { return FixedDecimal.zero.rounded(scale: scale, mode) }
        let gap = a.exponent - b.exponent
        // Foundation rescales the operands first when the gap is 19 or more, which may cost the divisor digits.
        guard gap < normalizingExponentGap, gap <= 38 - scale - guardDigits, exponentRange.contains(-scale) else { return nil }
        // q = ⌊|a/b| · 10^(scale+guard)⌋, from |A|·10^p / |B| (or |A| / (|B|·10^-p)).
        let power = scale + guardDigits + gap
        var divisor = b.magnitude
        var dividend: (high: UInt128, low: UInt128) = (0, a.magnitude)
        if power >= 0 {
            guard power <= 38 else { return nil }
            dividend = a.magnitude.multipliedFullWidth(by: powersOfTen[power])
        } else {
            guard -power <= 38, let widened = scaled(divisor, by: -power) else { return nil }
            divisor = widened
        }
        guard dividend.high < divisor else { return nil }  // the quotient would not fit 128 bits
        let (quotient, remainder) = divisor.dividingFullWidth(dividend)
        // |a/b| < 10^(37-scale-guard): Foundation's quotient then has digits down to 10^-(scale+guard) or finer.
        guard quotient < powersOfTen[37], quotient != 0 else { return nil }
        let guardUnit = powersOfTen[guardDigits]
        let (kept, tail) = quotient.quotientAndRemainder(dividingBy: guardUnit)
        if remainder != 0 {
            // Within one guard unit of a boundary: Foundation's truncated quotient may sit on it.
            let nearBoundary: Bool
            switch mode {
            case .plain, .bankers: nearBoundary = tail == guardUnit / 2 - 1 || tail == guardUnit / 2
            default: nearBoundary = tail == 0 || tail == guardUnit - 1
            }
            if nearBoundary { return nil }
        }
        let digitUnit = guardUnit / 10
        return finishRounding(
            kept: kept,
            digit: UInt8(truncatingIfNeeded: tail / digitUnit),
            sticky: tail % digitUnit != 0 || remainder != 0,
            isNegative: a.isNegative != b.isNegative,
            scale: scale,
            mode
        )
    }

    // MARK: Internals

    /// Foundation's exponent is one signed byte.
    private static let exponentRange = -128...127
    /// `_divide` rescales its operands when the dividend's exponent exceeds the divisor's by this much or more.
    private static let normalizingExponentGap = 19
    /// Digits computed past the rounding place to tell a quotient's side of a boundary (see ``quotient(_:_:scale:_:)``).
    private static let guardDigits = 6

    private static let powersOfTen: [UInt128] = {
        var powers: [UInt128] = [1]
        for _ in 1...38 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    /// `magnitude · 10^places`, or `nil` when it does not fit 128 bits.
    private static func scaled(_ magnitude: UInt128, by places: Int) -> UInt128? {
        if places == 0 || magnitude == 0 { return magnitude }
        guard places <= 38 else { return nil }
        let (result, overflow) = magnitude.multipliedReportingOverflow(by: powersOfTen[places])
        return overflow ? nil : result
    }

    /// Divides `places` digits off `magnitude`: what is kept, the first digit dropped and whether any later one is
    /// nonzero (`_round`'s remainder and "premainder").
    private static func drop(_ magnitude: UInt128, places: Int) -> (kept: UInt128, digit: UInt8, sticky: Bool) {
        if places > 39 { return (0, 0, magnitude != 0) }
        let lower = places - 1
        let (kept, rest) =
            places == 39
            ? (0, magnitude)
            : magnitude.quotientAndRemainder(dividingBy: powersOfTen[places])
        if lower == 0 { return (kept, UInt8(truncatingIfNeeded: rest), false) }
        let (digit, below) = rest.quotientAndRemainder(dividingBy: powersOfTen[lower])
        return (kept, UInt8(truncatingIfNeeded: digit), below != 0)
    }

    /// `_round`'s decision on the digits it divided off, then its compaction: the result has exponent `-scale`.
    private static func finishRounding(
        kept: UInt128,
        digit: UInt8,
        sticky: Bool,
        isNegative: Bool,
        scale: Int,
        _ mode: Decimal.RoundingMode
    ) -> FixedDecimal? {
        // "0.50001 is equivalent to .6": a nonzero tail moves a 0 or a 5 up by one.
        var digit = digit
        if sticky && (digit == 0 || digit == 5) { digit += 1 }
        var up = false
        if digit != 0 {
            switch mode {
            case .plain: up = digit >= 5
            case .bankers: up = digit > 5 || (digit == 5 && kept & 1 == 1)
            // `.down` rounds toward −∞ and `.up` toward +∞: away from zero for one sign only.
            case .down: up = isNegative
            case .up: up = !isNegative
            @unknown default: return nil
            }
        }
        var magnitude = kept
        if up {
            let (next, overflow) = kept.addingReportingOverflow(1)
            guard !overflow else { return nil }
            magnitude = next
        }
        // A zero result keeps the exponent `-scale` (compacting stops at a zero), without sign or compact flag.
        if magnitude == 0 { return FixedDecimal(magnitude: 0, exponent: -scale, isNegative: false, isCompact: false) }
        return compacted(magnitude: magnitude, exponent: -scale, isNegative: isNegative)
    }

    /// Foundation's `compact()`: trailing zeros divided out, the flag set; `nil` if the exponent leaves its range.
    private static func compacted(magnitude: UInt128, exponent: Int, isNegative: Bool) -> FixedDecimal? {
        var magnitude = magnitude
        var exponent = exponent
        if magnitude != 0 {
            if magnitude <= UInt128(UInt64.max) {
                var small = UInt64(magnitude)
                while small % 10 == 0 {
                    small /= 10
                    exponent += 1
                }
                magnitude = UInt128(small)
            } else {
                while true {
                    let (next, digit) = magnitude.quotientAndRemainder(dividingBy: 10)
                    guard digit == 0 else { break }
                    magnitude = next
                    exponent += 1
                }
            }
        }
        guard exponentRange.contains(exponent) else { return nil }
        return FixedDecimal(magnitude: magnitude, exponent: exponent, isNegative: isNegative, isCompact: magnitude != 0)
    }
}
