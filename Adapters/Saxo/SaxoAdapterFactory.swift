import Foundation
public import GatewayCore
public import GatewayModel
import HTTPTypes

/// Makes `SaxoAdapter`s and describes the `saxo` kind to clients.
public struct SaxoAdapterFactory: BrokerAdapterFactory {
    /// A factory holds no state; the registry keeps one per kind.
    public init() {}

    /// Always `.saxo`.
    public var kind: BrokerKind { .saxo }
    /// The name shown to users in `GET /v1/brokers`.
    public var displayName: String { "Saxo Bank" }
    /// What Saxo supports, emulates or refuses, with the notes served at `GET /v1/brokers`.
    public var capabilities: Capabilities { Self.saxoCapabilities }
    /// `appKey` + `appSecret` (the OAuth app) and `refreshToken`; optionally `accessToken` + `accessTokenExpiresAt`.
    public var credentialKeys: [String] { ["appKey", "appSecret", "refreshToken"] }
    /// Saxo's SIM and live OpenAPI gateways, by name.
    public var knownBaseURLs: [String: String] {
        ["sim": SaxoConfiguration.simBaseURL, "live": SaxoConfiguration.liveBaseURL]
    }
    /// 120 requests a minute per session and service group (the first path segment after `/openapi/`: `port`,
    /// `trade`, `ref`, `chart`), one order placement or change a second per session, and the app's daily budget;
    /// each reported in `X-RateLimit-{Session,SessionOrders,AppDay}-*` (Reset in seconds). The token endpoint is
    /// outside the OpenAPI and counts against none of them.
    public var rateLimits: [RateLimitRule] { Self.saxoRateLimits }

    static let saxoRateLimits = [
        RateLimitRule(name: "session", limit: 120, per: .seconds(60), headers: .saxo("Session")) { request in
            serviceGroup(request).map { $0.first ?? "root" }
        },
        RateLimitRule(name: "orders", limit: 1, per: .seconds(1), headers: .saxo("SessionOrders")) { request in
            guard let segments = serviceGroup(request), isOrderOperation(request.method, segments) else { return nil }
            return ""
        },
        RateLimitRule(name: "appDay", limit: 10_000_000, per: .seconds(86_400), headers: .saxo("AppDay")) { request in
            serviceGroup(request).map { _ in "" }
        },
    ]

    /// The lower-cased path segments after `openapi`, or `nil` for a URL outside the OpenAPI (the token endpoint).
    static func serviceGroup(_ request: BrokerRequest) -> [String]? {
        let segments = RateLimitRule.path(of: request).split(separator: "/").map { $0.lowercased() }
        guard let index = segments.firstIndex(of: "openapi") else { return nil }
        return Array(segments[(index + 1)...])
    }

    /// Placing or changing an order (`POST`/`PATCH trade/v2/orders`, and v1's): what `SessionOrders` counts;
    /// precheck and cancel do not.
    static func isOrderOperation(_ method: HTTPRequest.Method, _ segments: [String]) -> Bool {
        guard segments.count >= 3, segments[0] == "trade", segments[2] == "orders" else { return false }
        switch (segments[1], method) {
        case ("v2", .post), ("v2", .patch), ("v1", .post): return segments.count == 3
        case ("v1", .patch): return segments.count == 4
        default: return false
        }
    }

    /// Two ways in: the OAuth app (`appKey`, `appSecret`) with a `refreshToken`, kept fresh for as long as the link
    /// lives; or an `accessToken` alone (Saxo's 24-hour developer token, the usual way to start), which works until
    /// it expires and cannot be renewed.
    public func credentialProblems(_ credentials: BrokerCredentials) -> [FieldProblem] {
        func has(_ key: String) -> Bool {
            !(credentials[key] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
        if has("refreshToken") {
            return ["appKey", "appSecret"].filter { !has($0) }.map {
                FieldProblem(field: "credentials.\($0)", problem: "is required with a refreshToken (the OAuth app that refreshes it)")
            }
        }
        if has("accessToken") { return [] }
        return [
            FieldProblem(
                field: "credentials.refreshToken",
                problem: "is required for saxo (with appKey and appSecret), unless an accessToken is given alone (a developer token)"
            )
        ]
    }

    /// Reads the connection's settings and credentials into a ``SaxoConfiguration`` (throwing on bad ones) and makes an
    /// adapter for it.
    public func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        let configuration = try SaxoConfiguration(
            baseURL: context.baseURL,
            settings: context.connection.settings,
            credentials: context.credentials
        )
        return SaxoAdapter(context: context, configuration: configuration)
    }

    static let saxoCapabilities = Capabilities(
        operations: [
            .clients: .supported, .accounts: .supported, .balances: .supported, .positions: .supported,
            .watchlists: .supported, .createWatchlist: .unsupported, .updateWatchlist: .unsupported,
            .deleteWatchlist: .unsupported,
            .orders: .supported, .order: .supported, .orderByClientOrderId: .supported,
            .previewOrder: .supported, .placeOrder: .supported, .modifyOrder: .supported, .cancelOrder: .supported,
            .quotes: .supported, .searchInstruments: .supported, .candles: .supported,
            .orderBook: .unsupported,
        ],
        assetClasses: [.fx, .equity, .etf, .fund, .bond, .cfd, .future],
        orderTypes: [.market, .limit, .stop, .stopLimit],
        timeInForce: [.day, .gtc, .ioc, .fok, .gtd],
        notes: [
            "No order book: Saxo's InfoPrices can carry a MarketDepth field group, but no recorded Saxo payload of it was found to hold an adapter to (saxo-openapi's recorded responses have none), and the built-in sandbox answers one level only; the gateway does not offer it until both exist.",
            "Orders are sized in units (Amount): notional (money-sized) orders are refused (Saxo's CashAmount order amount, for mutual funds, is not offered). Open orders read back with OrderTime as createdAt; an order that has left the open orders reads its times from Saxo's order activities (placed, filled, canceled, expired).",
            "Credentials: appKey + appSecret (the OAuth app) and refreshToken; optionally accessToken + accessTokenExpiresAt (RFC 3339). The gateway refreshes the access token 60 s before it expires and once after a 401, and stores each rotated refresh token. A refresh token Saxo rejects marks the connection relink_required.",
            "An accessToken alone (Saxo's 24-hour developer token) links too: the connection's statusDetail says when it expires (from accessTokenExpiresAt, else the token's exp claim); it cannot be renewed, and at expiry the connection becomes relink_required.",
            "Connection setting authBaseURL: the OAuth host (/token). Defaults to https://sim.logonvalidation.net for the SIM gateway, https://live.logonvalidation.net for live, and the base URL's own origin otherwise (the built-in sandbox).",
            "Symbols: FX as BASE/QUOTE (EURDKK is EUR/DKK), listed instruments without their exchange suffix (AAPL:xnas is AAPL on XNAS). brokerKey holds Saxo's uic and assetType.",
            "Accounts: id is Saxo's AccountId, brokerKey its AccountKey. Balances are in the account currency: total = CashBalance, available = CashAvailableForTrading (else CashBalance - CashBlocked), accountValue = TotalValue, marginAvailable = MarginAvailableForTrading.",
            "Positions are net positions; those with amount 0 (closed today) are left out. FX net positions carry no MarketValue: marketValue is derived from Exposure (in ExposureCurrency, the pair's base currency) × CurrentPrice, in the quote currency.",
            "Orders lists open orders only: state closed answers not_supported. An order by id or by client order id that is no longer open (filled, canceled, expired, rejected) is read from Saxo's order activities (cs/v1/audit/orderactivities: the last entry that took effect, with FilledAmount and AveragePrice); by client order id the audit is searched 7 days back. A placement or change read back after it filled answers filled with its quantity and average price; one neither the open orders nor the audit lists yet answers pending_new.",
            "Order status: Working → open (partially_filled with fills), NotWorking/Parked/LockedPlacementPending → pending_new, …LockedCancelPending → pending_cancel, Filled → filled. From the audit: FinalFill → filled, Fill → partially_filled, Cancelled → canceled, Expired (and DoneForDay of a day order) → expired, Placed with SubStatus Rejected → rejected; a Changed or Cancelled request Saxo rejected leaves the order as it was.",
            "Stop orders are sent as Stop for FX and StopIfTraded for exchange-traded instruments. gtd expiries are sent as UTC times; Saxo reads them in exchange-local time.",
            "Modify sends the whole order (PATCH) and may change its type (market ⇄ limit). Cancel and modify of an order that already filled answer conflict.",
            "Client order ids travel as ExternalReference (≤ 50 characters) and X-Request-ID: an identical placement within 15 s is refused as conflict.",
            "Candles: chart/v3/charts (Mode=UpTo now, Count up to 1200); FX candles are mid prices of Saxo's bid and ask bars.",
            "Watchlists: Saxo has no documented watchlist API; ref/v1/watchlists is read when it exists, and an answer of 404 gives no broker-side lists. Creating, changing and deleting lists is not supported (use the gateway's own watchlists).",
        ]
    )
}
