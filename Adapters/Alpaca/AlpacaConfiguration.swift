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
    public enum Auth: Sendable, Hashable, CustomStringConvertible {
        case keys(keyId: String, secretKey: String)
        case oauth(token: String)

        public var description: String {
            switch self {
            case .keys: "Auth.keys(redacted)"
            case .oauth: "Auth.oauth(redacted)"
            }
        }
    }

    public static let paperBaseURL = "https://paper-api.alpaca.markets"
    public static let liveBaseURL = "https://api.alpaca.markets"
    public static let defaultDataBaseURL = "https://data.alpaca.markets"

    /// Alpaca's stock data feeds, as its market data API's `feed` parameter and its stream paths
    /// (`wss://stream.data.alpaca.markets/v2/{feed}`) take them: alpaca-py's `DataFeed` (alpaca/data/enums.py) lists
    /// `iex`, `sip` and `otc`; Alpaca's market data reference adds `delayed_sip` (SIP, 15 minutes late), `boats`
    /// (Blue Ocean's overnight session) and `overnight`. The built-in sandbox accepts the same set.
    public static let feeds: [String] = ["iex", "sip", "delayed_sip", "otc", "boats", "overnight"]

    /// The trading API host, without a trailing slash and without `/v2`.
    public var baseURL: String
    public var dataBaseURL: String
    public var feed: String?
    public var auth: Auth
    /// Reads (account, positions, orders, quotes).
    public var readTimeout: Duration = .seconds(10)
    /// Writes (place, replace, cancel, watchlists): longer, because a lost answer costs a reconciliation.
    public var writeTimeout: Duration = .seconds(15)
    /// `GET /v2/assets` lists every asset (tens of thousands): more time and a larger body.
    public var assetListTimeout: Duration = .seconds(30)
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
