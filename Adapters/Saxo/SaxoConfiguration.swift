public import Foundation
public import GatewayCore

/// Everything one Saxo connection needs, read from its descriptor and credentials.
///
/// Connection settings (non-secret):
/// - `authBaseURL`: the OAuth host whose `/token` refreshes tokens. Defaults to `https://sim.logonvalidation.net`
///   for the SIM gateway (`https://gateway.saxobank.com/sim/openapi`), `https://live.logonvalidation.net` for the
///   live gateway (Saxo's samples use it; not confirmed by a second source), and the base URL's own origin
///   (`http://127.0.0.1:PORT`) for anything else, such as the built-in sandbox, which serves `/token` itself.
///
/// Credentials: `appKey` + `appSecret` (the OAuth client, sent as HTTP Basic to `/token`) and `refreshToken`; optionally
/// `accessToken` + `accessTokenExpiresAt` (RFC 3339) to start without a refresh. A connection with only an
/// `accessToken` (Saxo's 24-hour developer token) works until that token expires, then needs linking again.
public struct SaxoConfiguration: Sendable {
    /// Saxo's simulation (SIM) OpenAPI gateway: paper money, for developer apps.
    public static let simBaseURL = "https://gateway.saxobank.com/sim/openapi"
    /// Saxo's live OpenAPI gateway: real accounts.
    public static let liveBaseURL = "https://gateway.saxobank.com/openapi"
    /// The OAuth host whose `/token` serves SIM apps.
    public static let simAuthBaseURL = "https://sim.logonvalidation.net"
    /// The OAuth host whose `/token` serves live apps (from Saxo's samples; see the type's note).
    public static let liveAuthBaseURL = "https://live.logonvalidation.net"

    /// The secrets, kept out of every description.
    public struct Credentials: Sendable, Hashable, CustomStringConvertible {
        /// The OAuth app's key (client id), sent as the HTTP Basic user to `/token`; needed to refresh.
        public var appKey: String?
        /// The OAuth app's secret, sent as the HTTP Basic password to `/token`; needed to refresh.
        public var appSecret: String?
        /// The long-lived token `/token` exchanges for access tokens; Saxo rotates it on each refresh, so the new one is
        /// saved with the connection.
        public var refreshToken: String?
        /// A bearer token to start with, or the only one (a 24-hour developer token); `nil` to refresh first.
        public var accessToken: String?
        /// When ``accessToken`` expires; `nil` reads it from the token's JWT `exp` claim where it has one.
        public var accessTokenExpiresAt: Date?

        /// Collects the secrets as given; whether they suffice is checked by
        /// `SaxoConfiguration/init(baseURL:settings:credentials:)`.
        public init(
            appKey: String? = nil,
            appSecret: String? = nil,
            refreshToken: String? = nil,
            accessToken: String? = nil,
            accessTokenExpiresAt: Date? = nil
        ) {
            self.appKey = appKey
            self.appSecret = appSecret
            self.refreshToken = refreshToken
            self.accessToken = accessToken
            self.accessTokenExpiresAt = accessTokenExpiresAt
        }

        /// Says whether the connection can refresh and whether it holds an access token, never the secrets themselves.
        public var description: String {
            "SaxoConfiguration.Credentials(refreshable: \(refreshToken != nil), accessToken: \(accessToken == nil ? "none" : "redacted"))"
        }
    }

    /// The OpenAPI base, without a trailing slash (`https://gateway.saxobank.com/sim/openapi`).
    public var baseURL: String
    /// The OAuth host, without a trailing slash; `/token` is appended.
    public var authBaseURL: String
    /// The OAuth app and tokens the connection authenticates with.
    public var credentials: Credentials
    /// Reads (portfolio, reference data, prices).
    public var readTimeout: Duration = .seconds(10)
    /// Writes (place, change, cancel, precheck): longer, because a lost answer costs a reconciliation.
    public var writeTimeout: Duration = .seconds(15)
    /// `POST /token`.
    public var tokenTimeout: Duration = .seconds(10)
    /// How long before its expiry an access token is replaced (Saxo's live for about 20 minutes).
    public var refreshMargin: TimeInterval = 60
    /// How many accounts' balances or positions are read at once.
    public var accountConcurrency = 4
    /// How long a preview stays valid.
    public var previewLifetime: TimeInterval = 300
    /// The most instruments `searchInstruments` returns (`$top`).
    public var searchLimit = 50
    /// The most pages of a list followed through `__next`.
    public var maximumPages = 20
    /// The clock, replaceable in tests (token expiry, preview expiry, chart end time).
    public var now: @Sendable () -> Date = { Date() }

    /// Makes a configuration from parts already checked; trailing slashes are dropped and the OAuth host defaults from the
    /// base URL (``defaultAuthBaseURL(for:)``). Use ``init(baseURL:settings:credentials:)`` for a stored connection.
    public init(baseURL: String, authBaseURL: String? = nil, credentials: Credentials) {
        let base = Self.trimmed(baseURL)
        self.baseURL = base
        self.authBaseURL = authBaseURL.map(Self.trimmed) ?? Self.defaultAuthBaseURL(for: base)
        self.credentials = credentials
    }

    /// Reads a connection: `baseURL` is the resolved one (`sandbox://` already replaced).
    public init(baseURL: String, settings: [String: String], credentials: BrokerCredentials) throws {
        func value(_ key: String) -> String? {
            credentials[key].flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        }
        let refreshToken = value("refreshToken")
        let accessToken = value("accessToken")
        let appKey = value("appKey")
        let appSecret = value("appSecret")
        guard refreshToken != nil || accessToken != nil else {
            throw GatewayError.invalid("credentials", "must hold refreshToken (with appKey and appSecret) or accessToken")
        }
        if refreshToken != nil, appKey == nil || appSecret == nil {
            throw GatewayError.invalid("credentials", "must hold appKey and appSecret to refresh tokens")
        }
        var expiresAt: Date?
        if let text = value("accessTokenExpiresAt") {
            guard let date = SaxoTimestamp.parse(text) else {
                throw GatewayError.invalid("credentials", "accessTokenExpiresAt must be an RFC 3339 date")
            }
            expiresAt = date
        }
        if expiresAt == nil, let accessToken { expiresAt = SaxoAccessToken.expiry(of: accessToken) }
        guard let url = URL(string: baseURL), let scheme = url.scheme, ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw GatewayError.invalid("baseURL", "must be an http or https URL")
        }
        let auth = settings["authBaseURL"].flatMap { $0.isEmpty ? nil : $0 }
        if let auth {
            guard let authURL = URL(string: auth), let scheme = authURL.scheme, ["http", "https"].contains(scheme),
                authURL.host != nil
            else {
                throw GatewayError.invalid("settings.authBaseURL", "must be an http or https URL")
            }
        }
        self.init(
            baseURL: baseURL,
            authBaseURL: auth,
            credentials: Credentials(
                appKey: appKey,
                appSecret: appSecret,
                refreshToken: refreshToken,
                accessToken: accessToken,
                accessTokenExpiresAt: expiresAt
            )
        )
    }

    /// Saxo's SIM gateway uses the SIM logon host, its live gateway the live one; any other host (a sandbox, a
    /// proxy) is expected to serve `/token` at its own origin.
    public static func defaultAuthBaseURL(for baseURL: String) -> String {
        guard let url = URL(string: baseURL), let host = url.host else { return trimmed(baseURL) }
        if host == "gateway.saxobank.com" {
            return url.path.hasPrefix("/sim/") || url.path == "/sim" ? simAuthBaseURL : liveAuthBaseURL
        }
        var origin = "\(url.scheme ?? "https")://\(host)"
        if let port = url.port { origin += ":\(port)" }
        return origin
    }

    static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// `Authorization: Basic base64(appKey:appSecret)` for `/token`.
    var basicAuthorization: String? {
        guard let appKey = credentials.appKey, let appSecret = credentials.appSecret else { return nil }
        return "Basic " + Data("\(appKey):\(appSecret)".utf8).base64EncodedString()
    }
}
