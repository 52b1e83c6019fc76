public import GatewayCore
public import GatewayModel

/// Makes `SaxoAdapter`s and describes the `saxo` kind to clients.
public struct SaxoAdapterFactory: BrokerAdapterFactory {
    public init() {}

    public var kind: BrokerKind { .saxo }
    public var displayName: String { "Saxo Bank" }
    public var capabilities: Capabilities { Self.saxoCapabilities }
    /// `appKey` + `appSecret` (the OAuth app) and `refreshToken`; optionally `accessToken` + `accessTokenExpiresAt`.
    public var credentialKeys: [String] { ["appKey", "appSecret", "refreshToken"] }
    public var knownBaseURLs: [String: String] {
        ["sim": SaxoConfiguration.simBaseURL, "live": SaxoConfiguration.liveBaseURL]
    }

    public func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        let configuration = try SaxoConfiguration(
            baseURL: context.baseURL, settings: context.connection.settings, credentials: context.credentials)
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
        ],
        assetClasses: [.fx, .equity, .etf, .fund, .bond, .cfd, .future],
        orderTypes: [.market, .limit, .stop, .stopLimit],
        timeInForce: [.day, .gtc, .ioc, .fok, .gtd],
        notes: [
            "Credentials: appKey + appSecret (the OAuth app) and refreshToken; optionally accessToken + accessTokenExpiresAt (RFC 3339). The gateway refreshes the access token 60 s before it expires and once after a 401, and stores each rotated refresh token. A refresh token Saxo rejects marks the connection relink_required.",
            "Connection setting authBaseURL: the OAuth host (/token). Defaults to https://sim.logonvalidation.net for the SIM gateway, https://live.logonvalidation.net for live, and the base URL's own origin otherwise (the built-in sandbox).",
            "Symbols: FX as BASE/QUOTE (EURDKK is EUR/DKK), listed instruments without their exchange suffix (AAPL:xnas is AAPL on XNAS). brokerKey holds Saxo's uic and assetType.",
            "Accounts: id is Saxo's AccountId, brokerKey its AccountKey. Balances are in the account currency: total = CashBalance, available = CashAvailableForTrading (else CashBalance - CashBlocked), accountValue = TotalValue, marginAvailable = MarginAvailableForTrading.",
            "Positions are net positions; those with amount 0 (closed today) are left out.",
            "Orders lists open orders only: state closed answers not_supported. An order placed or changed that is no longer open when read back is reported filled.",
            "Order status: Working → open (partially_filled with fills), NotWorking/Parked/LockedPlacementPending → pending_new, …LockedCancelPending → pending_cancel, Filled → filled.",
            "Stop orders are sent as Stop for FX and StopIfTraded for exchange-traded instruments. gtd expiries are sent as UTC times; Saxo reads them in exchange-local time.",
            "Modify sends the whole order (PATCH) and may change its type (market ⇄ limit). Cancel and modify of an order that already filled answer conflict.",
            "Client order ids travel as ExternalReference (≤ 50 characters) and X-Request-ID: an identical placement within 15 s is refused as conflict.",
            "Candles: chart/v3/charts (Mode=UpTo now, Count up to 1200); FX candles are mid prices of Saxo's bid and ask bars.",
            "Watchlists: Saxo has no documented watchlist API; ref/v1/watchlists is read when it exists, and an answer of 404 gives no broker-side lists. Creating, changing and deleting lists is not supported (use the gateway's own watchlists).",
        ])
}
