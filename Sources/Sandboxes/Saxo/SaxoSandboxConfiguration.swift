public import Foundation
import SandboxKit

/// Settings of a ``SaxoSandbox``.
///
/// The defaults follow Saxo's SIM environment: access tokens live 20 minutes and refresh tokens 60,
/// 120 requests per minute per session and service group, one order per second per session, and an
/// identical order repeated within 15 seconds is refused with 409 unless it carries a new `X-Request-ID`.
public struct SaxoSandboxConfiguration: Sendable {
    /// The OAuth2 client (`client_id`) the logon endpoints accept. Saxo calls it the app key.
    public var appKey: String
    /// The app secret, sent with the app key as HTTP Basic credentials (or `client_secret`) to `/token`.
    public var appSecret: String
    /// Redirect URIs registered for the app; `/authorize` and `/token` require an exact match.
    public var redirectURIs: [String]
    /// The simulated client (and its one account) that signs in.
    public var client: SaxoSandboxClient
    /// The instruments the simulator lists, by Uic, mapped onto the shared market's symbols.
    public var instruments: [SaxoInstrumentListing]

    /// Seconds an access token is valid (`expires_in`). Saxo: 1200.
    public var accessTokenLifetime: TimeInterval
    /// Seconds a refresh token is valid (`refresh_token_expires_in`). Saxo: 3600.
    public var refreshTokenLifetime: TimeInterval
    /// Seconds an authorization code may wait before it is exchanged.
    public var authorizationCodeLifetime: TimeInterval
    /// A refresh token that never expires and is never spent, so a demo can obtain its first token pair
    /// without a browser: `POST /token` with `grant_type=refresh_token&refresh_token=<this>` and the app's
    /// Basic credentials. The pair it returns rotates normally. `nil` disables it.
    public var bootstrapRefreshToken: String?
    /// Bearer tokens that never expire (like the developer portal's 24-hour tokens, but without the 24 hours),
    /// for `curl` and quick experiments. Empty disables them.
    public var staticAccessTokens: [String]

    /// Requests per minute per session and service group (`port`, `trade`, `ref`, `chart`, ...); Saxo: 120.
    public var sessionRequestsPerMinute: Int
    /// Order placements and changes (POST/PATCH on the order endpoints) per second per session; Saxo: 1.
    /// `nil` disables the limit (tests that place many orders quickly).
    public var sessionOrdersPerSecond: Int?
    /// Requests per UTC day for the app across all sessions; Saxo: 10,000,000.
    public var appRequestsPerDay: Int
    /// An identical order request (same method, path and body) repeated within this many seconds is refused
    /// with 409 unless its `X-Request-ID` differs from the earlier one's. Saxo: 15. Zero disables the rule.
    public var duplicateOrderWindow: TimeInterval

    /// Seconds between an order's acceptance (or change) and the moment it may first execute. Zero (the default)
    /// executes a marketable order while the placing request is answered, as Saxo's SIM does for FX. A positive
    /// value models a venue that acknowledges first and fills later, which is what lets a client change a market
    /// order before it fills (the seed app's "market → limit → market" flow) on a ``ManualClock``.
    public var executionLatency: TimeInterval
    /// Margin required for FX exposure, as a fraction of the exposure in the account currency (0.0333 = 3.33 %).
    public var fxMarginRate: Decimal
    /// How many apps (each with its own client) may be registered at run time at once (``SaxoSandbox/provisionApp()``).
    public var maximumProvisionedApps: Int

    /// Makes settings with Saxo SIM's limits and lifetimes and the public demo app and client by default. Lifetimes and
    /// rates below 1 are raised to 1; windows, latency and margin below 0 to 0.
    public init(
        appKey: String = SaxoSandboxConfiguration.demoAppKey,
        appSecret: String = SaxoSandboxConfiguration.demoAppSecret,
        redirectURIs: [String] = [SaxoSandboxConfiguration.demoRedirectURI],
        client: SaxoSandboxClient = .demo,
        instruments: [SaxoInstrumentListing] = SaxoInstrumentListing.standard,
        accessTokenLifetime: TimeInterval = 1200,
        refreshTokenLifetime: TimeInterval = 3600,
        authorizationCodeLifetime: TimeInterval = 300,
        bootstrapRefreshToken: String? = SaxoSandboxConfiguration.demoBootstrapRefreshToken,
        staticAccessTokens: [String] = [SaxoSandboxConfiguration.demoStaticAccessToken],
        sessionRequestsPerMinute: Int = 120,
        sessionOrdersPerSecond: Int? = 1,
        appRequestsPerDay: Int = 10_000_000,
        duplicateOrderWindow: TimeInterval = 15,
        executionLatency: TimeInterval = 0,
        fxMarginRate: Decimal = Decimal(string: "0.0333")!,
        maximumProvisionedApps: Int = 10_000
    ) {
        self.appKey = appKey
        self.appSecret = appSecret
        self.redirectURIs = redirectURIs
        self.client = client
        self.instruments = instruments
        self.accessTokenLifetime = max(1, accessTokenLifetime)
        self.refreshTokenLifetime = max(1, refreshTokenLifetime)
        self.authorizationCodeLifetime = max(1, authorizationCodeLifetime)
        self.bootstrapRefreshToken = bootstrapRefreshToken
        self.staticAccessTokens = staticAccessTokens
        self.sessionRequestsPerMinute = max(1, sessionRequestsPerMinute)
        self.sessionOrdersPerSecond = sessionOrdersPerSecond.map { max(1, $0) }
        self.appRequestsPerDay = max(1, appRequestsPerDay)
        self.duplicateOrderWindow = max(0, duplicateOrderWindow)
        self.executionLatency = max(0, executionLatency)
        self.fxMarginRate = max(0, fxMarginRate)
        self.maximumProvisionedApps = max(0, maximumProvisionedApps)
    }

    // MARK: Public demo credentials

    /// The demo app key (OAuth2 `client_id`).
    public static let demoAppKey = "SANDBOX-SAXO-APP"
    /// The demo app secret.
    public static let demoAppSecret = "SANDBOX-SAXO-SECRET"
    /// The demo app's registered redirect URI. Nothing needs to listen there: `/authorize` answers 302 with the
    /// code in the `Location` header, and a client reads it without following the redirect.
    public static let demoRedirectURI = "http://localhost/brokergateway/saxo/callback"
    /// A refresh token that is never spent and never expires (see ``bootstrapRefreshToken``).
    public static let demoBootstrapRefreshToken = "SANDBOX-SAXO-BOOTSTRAP-REFRESH-TOKEN"
    /// A bearer token that never expires (see ``staticAccessTokens``).
    public static let demoStaticAccessToken = "SANDBOX-SAXO-STATIC-ACCESS-TOKEN"
}

/// The simulated Saxo client: one client with one account, as a SIM sign-up gets.
public struct SaxoSandboxClient: Sendable, Codable {
    /// The client's `ClientId`, as `port/v1/clients/me` answers it.
    public var clientId: String
    /// Base64-looking, with `+`, `/` and `=`, so a client that forgets to percent-encode it in a query fails.
    public var clientKey: String
    /// The account's `AccountId`: the number users see and the gateway uses as the account id.
    public var accountId: String
    /// The account's `AccountKey`, which Saxo's portfolio and trading calls take instead of the id; base64-looking like
    /// ``clientKey``.
    public var accountKey: String
    /// The signed-in user's `UserId`, as `port/v1/users/me` answers it.
    public var userId: String
    /// The client's display `Name`.
    public var name: String
    /// The account currency (ISO 4217); every balance is reported in it.
    public var currency: String
    /// The cash the account starts with, in ``currency``.
    public var startingCash: Decimal
    /// When the account was opened, answered as `CreationDate`.
    public var createdAt: Date
    /// Watchlists served at `ref/v1/watchlists` (a resource the seed app uses; Saxo's public API has none).
    public var watchlists: [SaxoSandboxWatchlist]

    /// Describes a client; by default a EUR account with 1,000,000 EUR opened on 2024-01-01, without watchlists.
    public init(
        clientId: String,
        clientKey: String,
        accountId: String,
        accountKey: String,
        userId: String,
        name: String,
        currency: String = "EUR",
        startingCash: Decimal = 1_000_000,
        createdAt: Date = Date(timeIntervalSince1970: 1_704_067_200),
        watchlists: [SaxoSandboxWatchlist] = []
    ) {
        self.clientId = clientId
        self.clientKey = clientKey
        self.accountId = accountId
        self.accountKey = accountKey
        self.userId = userId
        self.name = name
        self.currency = currency
        self.startingCash = startingCash
        self.createdAt = createdAt
        self.watchlists = watchlists
    }

    /// The demo client's `ClientKey` (with `+` and `/`, so it must be percent-encoded in a query).
    public static let demoClientKey = "7m+Kq/ZsT2uRcX0b9vLd1A=="
    /// The demo account's `AccountKey` (with `+` and `/`, so it must be percent-encoded in a query).
    public static let demoAccountKey = "Lp3/xQ+8bW9nHt2YcR5sEw=="

    /// The demo client: EUR account 8496691 with 1,000,000 EUR, an "FxSpot" and a "Stocks" watchlist.
    public static let demo = SaxoSandboxClient(
        clientId: "8496691",
        clientKey: demoClientKey,
        accountId: "8496691",
        accountKey: demoAccountKey,
        userId: "8496691",
        name: "Sandbox Demo Client",
        watchlists: [
            SaxoSandboxWatchlist(id: "1", name: "FxSpot", uics: [(16, "FxSpot"), (18, "FxSpot"), (21, "FxSpot"), (31, "FxSpot"), (42, "FxSpot")]),
            SaxoSandboxWatchlist(id: "2", name: "Stocks", uics: [(211, "Stock"), (261, "Stock"), (47556, "Stock")]),
        ]
    )
}

/// A watchlist of the simulated client.
public struct SaxoSandboxWatchlist: Sendable, Codable {
    /// The watchlist's id, as `ref/v1/watchlists/{id}` takes it.
    public var id: String
    /// The watchlist's name.
    public var name: String
    /// Members as (Uic, AssetType); members the simulator does not list are left out when served.
    public var members: [SaxoInstrumentKey]

    /// Describes a watchlist by its members' (Uic, AssetType) pairs.
    public init(id: String, name: String, uics: [(Int, String)]) {
        self.id = id
        self.name = name
        self.members = uics.map { SaxoInstrumentKey(uic: $0.0, assetType: $0.1) }
    }
}

/// Saxo's identity of an instrument: Uic plus AssetType.
public struct SaxoInstrumentKey: Sendable, Hashable, Codable {
    /// Saxo's universal instrument code (`Uic`): unique only together with the asset type.
    public var uic: Int
    /// Saxo's asset type (`FxSpot`, `Stock`).
    public var assetType: String

    /// Names an instrument by Uic and asset type.
    public init(uic: Int, assetType: String) {
        self.uic = uic
        self.assetType = assetType
    }
}
