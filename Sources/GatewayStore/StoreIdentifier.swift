import GatewayCore

/// Opaque, prefixed, random identifiers: `ten_…`, `usr_…`, `conn_…`, `wl_…`, `key_…`, `aud_…`.
///
/// The random part is `RandomIdentifier.base32` (lowercase Crockford base32), so an id reads well, survives
/// double-click selection and URL paths, and never contains the `_` that separates parts of an API key.
enum StoreIdentifier {
    static let tenant = "ten"
    static let connection = "conn"
    static let watchlist = "wl"
    static let apiKey = "key"
    static let user = "usr"
    static let auditEvent = "aud"
    static let device = "dev"
    static let session = "ses"

    /// A prefixed id with 20 random base32 characters (100 bits).
    static func make(_ prefix: String) -> String {
        prefix + "_" + RandomIdentifier.base32(count: 20)
    }
}
