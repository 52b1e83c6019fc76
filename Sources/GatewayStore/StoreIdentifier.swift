/// Opaque, prefixed, random identifiers: `ten_…`, `conn_…`, `wl_…`, `key_…`.
///
/// The random part is lowercase Crockford base32 (no `i`, `l`, `o`, `u`), so an id reads well, survives
/// double-click selection and URL paths, and never contains the `_` that separates parts of an API key.
enum StoreIdentifier {
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    static let tenant = "ten"
    static let connection = "conn"
    static let watchlist = "wl"
    static let apiKey = "key"

    /// A prefixed id with 20 random base32 characters (100 bits).
    static func make(_ prefix: String) -> String {
        prefix + "_" + randomBase32(count: 20)
    }

    /// `count` characters drawn uniformly from the base32 alphabet with the system's CSPRNG.
    static func randomBase32(count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            bytes.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func isBase32(_ text: Substring) -> Bool {
        text.utf8.allSatisfy { alphabet.contains($0) }
    }
}
