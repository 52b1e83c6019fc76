import Foundation

/// A `Decimal`'s fields read and written through its memory layout, for the two hot paths that need them
/// (``DecimalText/read(_:)`` and ``DecimalText/format(_:)`` of prices and quantities): Foundation keeps the field
/// accessors internal, and its own text conversions on Linux divide the 128-bit significand by ten per digit.
///
/// The layout is NSDecimal's, which swift-foundation keeps (`Decimal.Storage`): byte 0 the exponent (`Int8`), byte 1
/// the length in 16-bit words (high four bits), the negative flag (bit 3) and the compact flag (bit 2), bytes 2–3
/// reserved, then the significand as eight 16-bit words, least significant first. It is checked once against
/// Foundation's own parsing and printing (``isUsable``); where it does not hold, callers take Foundation's paths.
enum DecimalLayout {
    /// Whether values made and read here agree with Foundation's on probes of every shape (signs, exponents, one to
    /// four words, zero).
    static let isUsable: Bool = {
        guard MemoryLayout<Decimal>.size == 20 else { return false }
        let probes: [(text: String, significand: UInt64, exponent: Int8, negative: Bool)] = [
            ("15e-1", 15, -1, false), ("-25e-4", 25, -4, true), ("7", 7, 0, false), ("3e2", 3, 2, false),
            ("-65537", 65_537, 0, true), ("4294967297e-3", 4_294_967_297, -3, false),
            ("18446744073709551615e-20", 18_446_744_073_709_551_615, -20, false), ("-123456789012345e-100", 123_456_789_012_345, -100, true),
        ]
        for probe in probes {
            guard let foundation = Decimal(string: probe.text, locale: nil) else { return false }
            let made = make(significand: probe.significand, exponent: probe.exponent, negative: probe.negative)
            guard made == foundation, made.description == foundation.description,
                let read = parts(foundation), read.significand == probe.significand,
                read.exponent == Int(probe.exponent), read.negative == probe.negative
            else { return false }
        }
        return parts(Decimal(0)).map { $0.significand == 0 && !$0.negative } == true && parts(Decimal.nan) == nil
    }()

    /// The compact value `significand × 10^exponent` (a significand without trailing zeros is compact).
    static func make(significand: UInt64, exponent: Int8, negative: Bool) -> Decimal {
        var value = Decimal()
        guard significand != 0 else { return value }
        let words = (64 - significand.leadingZeroBitCount + 15) / 16
        withUnsafeMutableBytes(of: &value) { raw in
            raw[0] = UInt8(bitPattern: exponent)
            raw[1] = UInt8(words << 4) | (negative ? 0x08 : 0) | 0x04
            raw[2] = 0
            raw[3] = 0
            for word in 0..<4 {
                raw.storeBytes(of: UInt16(truncatingIfNeeded: significand >> (16 * word)), toByteOffset: 4 + 2 * word, as: UInt16.self)
            }
        }
        return value
    }

    /// The significand as stored (trailing zeros kept), the exponent and the sign; `nil` for NaN and for significands
    /// wider than 64 bits.
    static func parts(_ value: Decimal) -> (significand: UInt64, exponent: Int, negative: Bool)? {
        withUnsafeBytes(of: value) { raw in
            let length = Int(raw[1] >> 4)
            let negative = raw[1] & 0x08 != 0
            if length == 0 { return negative ? nil : (0, 0, false) }
            guard length <= 4 else { return nil }
            var significand: UInt64 = 0
            for word in 0..<4 {
                significand |= UInt64(raw.loadUnaligned(fromByteOffset: 4 + 2 * word, as: UInt16.self)) << (16 * word)
            }
            return (significand, Int(Int8(bitPattern: raw[0])), negative)
        }
    }
}
