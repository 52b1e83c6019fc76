import Foundation

/// A `Decimal`'s significand, exponent and sign read through its memory layout, for ``DecimalText/format(_:)``:
/// Foundation keeps the field accessors internal, and its own `description` on Linux divides the 128-bit significand
/// by ten per digit. The layout is NSDecimal's, which swift-foundation keeps (`Decimal.Storage`): byte 0 the exponent,
/// byte 1 the length in 16-bit words (high four bits) and the negative flag (bit 3), then from byte 4 the significand
/// as eight 16-bit words, least significant first. Checked once against Foundation's parsing (``isUsable``); where it
/// does not hold, `description` is used. (The gateway's `GatewayModel` has its own: simulators import nothing of it.)
enum DecimalLayout {
    static let isUsable: Bool = {
        guard MemoryLayout<Decimal>.size == 20 else { return false }
        let probes: [(text: String, significand: UInt64, exponent: Int, negative: Bool)] = [
            ("15e-1", 15, -1, false), ("-25e-4", 25, -4, true), ("7", 7, 0, false), ("3e2", 3, 2, false),
            ("-65537", 65_537, 0, true), ("4294967297e-3", 4_294_967_297, -3, false),
            ("18446744073709551615e-20", 18_446_744_073_709_551_615, -20, false),
        ]
        for probe in probes {
            guard let value = Decimal(string: probe.text, locale: nil), let read = parts(value),
                read.significand == probe.significand, read.exponent == probe.exponent, read.negative == probe.negative
            else { return false }
        }
        return parts(Decimal.nan) == nil
    }()

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
