import GatewayCore

/// Opaque, prefixed, random identifiers: `ten_…`, `usr_…`, `conn_…`, `wl_…`, `goal_…`, `alr_…`, `dlv_…`, `key_…`, `aud_…`.
///
/// The random part is `RandomIdentifier.base32` (lowercase Crockford base32), so an id reads well, survives
/// double-click selection and URL paths, and never contains the `_` that separates parts of an API key.
package enum StoreIdentifier {
    package static let tenant = "ten"
    package static let connection = "conn"
    package static let watchlist = "wl"
    package static let goal = "goal"
    package static let alert = "alr"
    package static let alertDelivery = "dlv"
    package static let apiKey = "key"
    package static let user = "usr"
    package static let auditEvent = "aud"
    package static let device = "dev"
    package static let session = "ses"

    /// A prefixed id with 20 random base32 characters (100 bits).
    package static func make(_ prefix: String) -> String {
        prefix + "_" + RandomIdentifier.base32(count: 20)
    }
}
