public import GatewayCore
public import GatewayModel

/// Makes `AlpacaAdapter`s and describes the `alpaca` kind to clients.
public struct AlpacaAdapterFactory: BrokerAdapterFactory {
    /// A factory holds no state; the registry keeps one per kind.
    public init() {}

    /// Always `.alpaca`.
    public var kind: BrokerKind { .alpaca }
    /// The name shown to users in `GET /v1/brokers`.
    public var displayName: String { "Alpaca" }
    /// What Alpaca supports, emulates or refuses, with the notes served at `GET /v1/brokers`.
    public var capabilities: Capabilities { Self.alpacaCapabilities }
    /// `keyId` + `secretKey`; an OAuth connection stores `oauthToken` instead (see `AlpacaConfiguration`).
    public var credentialKeys: [String] { ["keyId", "secretKey"] }
    /// Alpaca's paper and live trading hosts, by name.
    public var knownBaseURLs: [String: String] {
        ["paper": AlpacaConfiguration.paperBaseURL, "live": AlpacaConfiguration.liveBaseURL]
    }
    /// 200 requests a minute per account, counted separately by the trading API and the market-data API (two
    /// hosts, but one in a sandbox, so the path decides); both answer `X-RateLimit-Limit/Remaining/Reset`.
    public var rateLimits: [RateLimitRule] { Self.alpacaRateLimits }

    static let alpacaRateLimits = [
        RateLimitRule(name: "requests", limit: 200, per: .seconds(60), headers: .alpaca) { request in
            let path = RateLimitRule.path(of: request)
            return path.hasPrefix("/v2/stocks/") || path.hasPrefix("/v1beta") ? "data" : "trading"
        }
    ]

    /// Reads the connection's settings and credentials into an ``AlpacaConfiguration`` (throwing on bad ones) and makes an
    /// adapter for it.
    public func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        let configuration = try AlpacaConfiguration(
            baseURL: context.baseURL,
            settings: context.connection.settings,
            credentials: context.credentials
        )
        return AlpacaAdapter(context: context, configuration: configuration)
    }

    static let alpacaCapabilities = Capabilities(
        operations: [
            .clients: .supported, .accounts: .supported, .balances: .supported, .positions: .supported,
            .watchlists: .supported, .createWatchlist: .supported, .updateWatchlist: .supported,
            .deleteWatchlist: .supported,
            .orders: .supported, .order: .supported, .orderByClientOrderId: .supported, .closedOrders: .supported,
            .previewOrder: .emulated, .placeOrder: .supported, .modifyOrder: .supported, .cancelOrder: .supported,
            .notionalOrders: .supported,
            .quotes: .supported, .searchInstruments: .supported, .candles: .supported,
            .orderBook: .supported,
        ],
        assetClasses: [.equity, .crypto],
        orderTypes: [.market, .limit, .stop, .stopLimit],
        timeInForce: [.day, .gtc, .ioc, .fok],
        notes: [
            "Credentials: keyId + secretKey (APCA-API-KEY-ID / APCA-API-SECRET-KEY), or oauthToken (Bearer); not both.",
            "Connection setting dataBaseURL: market data host; defaults to https://data.alpaca.markets for Alpaca's own hosts, else to the base URL. Setting feed: iex, sip, delayed_sip, otc, boats or overnight (anything else is refused at link).",
            "One account per key pair. ETFs trade as equities (asset class us_equity).",
            "Crypto: symbols BASE/QUOTE (BTC/USD; positions' BTCUSD is normalised), time in force gtc or ioc, types market, limit, stop_limit, no short sales.",
            "sell_short and buy_to_cover are sent as sell and buy: Alpaca infers a short sale from the position.",
            "No gtd: Alpaca has no good-till-date orders. Orders placed elsewhere with opg or cls read back as day; trailing_stop reads back as stop.",
            "Fractional equity quantities need time in force day. Equity prices take at most 2 decimals at or above $1, 4 below.",
            "Preview is estimated by the gateway from the latest quote and the buying power; Alpaca has no preview.",
            "Modify replaces the order (PATCH): the returned order has a new brokerOrderId; the type cannot change.",
            "Notional (dollar-amount) orders: market orders only, time in force day for equities (gtc or ioc for crypto), fractionable assets only. They read back with notional and quantity = quantity filled so far; their quantity cannot be changed.",
            "Orders read back with Alpaca's submittedAt, filledAt, canceledAt and expiredAt, and the replace chain (replaces, replacedBy: broker order ids).",
            "Client order ids must be unique per account (up to 128 characters); a reused one answers conflict.",
            "Order book: crypto pairs only, from /v1beta3/crypto/us/latest/orderbooks; Alpaca has no stock order book.",
            "Candles: equities from /v2/stocks/bars (the connection's feed), crypto from /v1beta3/crypto/us/bars; bars exist only where trades happened, so a quiet stock can answer fewer than count.",
        ]
    )
}
