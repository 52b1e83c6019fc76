public import Foundation

/// Random identifiers and tokens, all from the system's CSPRNG: the one place the gateway makes them.
///
/// - `prefixed("ord_")`: `ord_` + 24 lowercase hex digits (96 bits), the gateway's order, preview and link ids.
/// - `hex(byteCount:)`: bare lowercase hex (state nonces, API key secrets).
/// - `base32(count:)`: lowercase Crockford base32 (no `i`, `l`, `o`, `u`), which reads well, survives double-click
///   selection and URL paths, and never contains `_` (the store's `ten_…`, `conn_…`, `wl_…`, `key_…`).
/// - `uuid()`: a lowercase UUID, where a broker wants one (Saxo's `X-Request-ID`) or a preview needs an id.
public enum RandomIdentifier {
    /// The base32 alphabet: digits and lowercase letters without `i`, `l`, `o`, `u`.
    public static let base32Alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)
    static let hexDigits = Array("0123456789abcdef".utf8)

    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<max(0, count)).map { _ in generator.next() }
    }

    /// `byteCount` random bytes as `2 × byteCount` lowercase hex digits.
    public static func hex(byteCount: Int) -> String {
        hex(bytes(byteCount))
    }

    /// `prefix` + 24 random lowercase hex digits (96 bits), e.g. `ord_3f9c…`.
    public static func prefixed(_ prefix: String, byteCount: Int = 12) -> String {
        prefix + hex(byteCount: byteCount)
    }

    /// `count` characters drawn uniformly from ``base32Alphabet`` (5 bits each).
    public static func base32(count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var characters: [UInt8] = []
        characters.reserveCapacity(max(0, count))
        for _ in 0..<max(0, count) {
            characters.append(base32Alphabet[Int.random(in: 0..<base32Alphabet.count, using: &generator)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Whether every character is one of ``base32Alphabet``.
    public static func isBase32(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { base32Alphabet.contains($0) }
    }

    /// A random lowercase UUID (`3f2b…-…`).
    public static func uuid() -> String {
        UUID().uuidString.lowercased()
    }

    /// Bytes as lowercase hex.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
