public import Foundation
public import GatewayCore
import GatewayModel
import HTTPTypes

/// Everything one Alpaca connection needs, read from its descriptor and credentials.
///
/// Connection settings (non-secret):
/// - `dataBaseURL`: the market data host. Defaults to `https://data.alpaca.markets` when the trading base URL is
///   Alpaca's paper or live host, and to the trading base URL otherwise (the built-in sandbox serves both).
/// - `feed`: the stock data feed, one of ``feeds``, sent as `feed=` on stock quote and bar requests and naming the
///   stock stream (`/v2/{feed}`) when set; any other value is refused when the connection is made (422 naming
///   `settings.feed`), so it never reaches a URL.
///
/// Credentials: `keyId` + `secretKey` (sent as `APCA-API-KEY-ID` / `APCA-API-SECRET-KEY`), or `oauthToken` (sent as
/// `Authorization: Bearer`), never both.
public struct AlpacaConfiguration: Sendable {
    /// How a connection authenticates: an API key pair, or an OAuth access token. Alpaca takes either, never both;
    /// `description` redacts the secrets so a configuration can be logged.
    public enum Auth: Sendable, Hashable, CustomStringConvertible {
        case keys(keyId: String, secretKey: String)
        case oauth(token: String)

        /// Names the kind of authentication only; the secrets never appear.
        public var description: String {
            switch self {
            case .keys: "Auth.keys(redacted)"
            case .oauth: "Auth.oauth(redacted)"
            }
        }
    }

    /// Alpaca's paper-trading host (simulated fills, real market data): the base URL for a paper key pair.
    public static let paperBaseURL = "https://paper-api.alpaca.markets"
    /// Alpaca's live-trading host: orders here are real.
    public static let liveBaseURL = "https://api.alpaca.markets"
    /// Alpaca's market data host, which serves quotes, bars and order books for both paper and live keys.
    public static let defaultDataBaseURL = "https://data.alpaca.markets"

    /// Alpaca's stock data feeds, as its market data API's `feed` parameter and its stream paths
    /// (`wss://stream.data.alpaca.markets/v2/{feed}`) take them: alpaca-py's `DataFeed` (alpaca/data/enums.py) lists
    /// `iex`, `sip` and `otc`; Alpaca's market data reference adds `delayed_sip` (SIP, 15 minutes late), `boats`
    /// (Blue Ocean's overnight session) and `overnight`. The built-in sandbox accepts the same set.
    public static let feeds: [String] = ["iex", "sip", "delayed_sip", "otc", "boats", "overnight"]

    /// The trading API host, without a trailing slash and without `/v2`.
    public var baseURL: String
    /// The market data host, without a trailing slash (see ``defaultDataBaseURL(for:)`` for how it is chosen).
    public var dataBaseURL: String
    /// The stock data feed sent as `feed=` and used as the stock stream's path, one of ``feeds``; `nil` leaves the choice
    /// to Alpaca (its data API's default; IEX on the stream).
    public var feed: String?
    /// The key pair or OAuth token every request carries.
    public var auth: Auth
    /// Reads (account, positions, orders, quotes).
    public var readTimeout: Duration = .seconds(10)
    /// Writes (place, replace, cancel, watchlists): longer, because a lost answer costs a reconciliation.
    public var writeTimeout: Duration = .seconds(15)
    /// `GET /v2/assets` lists every asset (tens of thousands): more time and a larger body.
    public var assetListTimeout: Duration = .seconds(30)
    /// The largest `GET /v2/assets` body read (48 MiB): the full asset list runs to tens of thousands of entries.
    public var assetListMaxBytes = 48 * 1024 * 1024
    /// `GET /v2/positions` answers every position of the account in one array, unpaged, at some 700 bytes each: the
    /// transport's default 8 MiB would refuse an account past about 11,000 positions, so this read takes up to 32 MiB
    /// (some 45,000 positions).
    public var positionListMaxBytes = 32 * 1024 * 1024
    /// How long a preview stays valid.
    public var previewLifetime: TimeInterval = 300
    /// The most instruments `searchInstruments` returns.
    public var searchLimit = 50
    /// The clock, replaceable in tests (rate-limit reset arithmetic, preview expiry).
    public var now: @Sendable () -> Date = { Date() }

    /// Makes a configuration from parts already checked; trailing slashes are dropped and the data host defaults from the
    /// trading host. Use ``init(baseURL:settings:credentials:)`` for a stored connection.
    public init(baseURL: String, dataBaseURL: String? = nil, feed: String? = nil, auth: Auth) {
        let trimmed = Self.trimmed(baseURL)
        self.baseURL = trimmed
        self.dataBaseURL = dataBaseURL.map(Self.trimmed) ?? Self.defaultDataBaseURL(for: trimmed)
        self.feed = feed
        self.auth = auth
    }

    /// Reads a connection: `baseURL` is the resolved one (`sandbox://` already replaced).
    public init(baseURL: String, settings: [String: String], credentials: BrokerCredentials) throws {
        let keyId = credentials["keyId"].flatMap { $0.isEmpty ? nil : $0 }
        let secretKey = credentials["secretKey"].flatMap { $0.isEmpty ? nil : $0 }
        let token = credentials["oauthToken"].flatMap { $0.isEmpty ? nil : $0 }
        let auth: Auth
        switch (keyId, secretKey, token) {
        case (let keyId?, let secretKey?, nil):
            auth = .keys(keyId: keyId, secretKey: secretKey)
        case (nil, nil, let token?):
            auth = .oauth(token: token)
        case (_, _, .some):
            throw GatewayError.invalid("credentials", "must hold either keyId and secretKey or oauthToken, not both")
        default:
            throw GatewayError.invalid("credentials", "must hold keyId and secretKey (or oauthToken)")
        }
        guard let url = URL(string: baseURL), let scheme = url.scheme, ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw GatewayError.invalid("baseURL", "must be an http or https URL")
        }
        self.init(
            baseURL: baseURL,
            dataBaseURL: settings["dataBaseURL"].flatMap { $0.isEmpty ? nil : $0 },
            feed: try Self.feed(settings["feed"]),
            auth: auth
        )
    }

    /// The `feed` setting: absent or empty is none (the data API's default, IEX on the stream); anything but one of
    /// ``feeds`` is refused, since it is pasted into the stream's path and the data API's query.
    static func feed(_ raw: String?) throws -> String? {
        guard let raw, !raw.isEmpty else { return nil }
        guard feeds.contains(raw) else {
            throw GatewayError.unprocessable([
                FieldProblem(field: "settings.feed", problem: "must be one of: \(feeds.joined(separator: ", "))")
            ])
        }
        return raw
    }

    /// Alpaca's own trading hosts use the separate data host; anything else (a sandbox, a proxy) serves both.
    public static func defaultDataBaseURL(for baseURL: String) -> String {
        let host = URL(string: baseURL)?.host
        return host == "paper-api.alpaca.markets" || host == "api.alpaca.markets" ? defaultDataBaseURL : trimmed(baseURL)
    }

    static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// The headers that authenticate every request, data API included.
    var authHeaders: HTTPFields {
        switch auth {
        case .keys(let keyId, let secretKey):
            HTTPFields(pairs: [(name: "APCA-API-KEY-ID", value: keyId), (name: "APCA-API-SECRET-KEY", value: secretKey)])
        case .oauth(let token):
            [.authorization: "Bearer \(token)"]
        }
    }
}
