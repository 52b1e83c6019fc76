public import GatewayCore
public import GatewayModel

/// Makes `TradeOgreAdapter`s and describes the `tradeogre` kind to clients.
public struct TradeOgreAdapterFactory: BrokerAdapterFactory {
    /// A factory holds no state; the registry keeps one per kind.
    public init() {}

    /// Always `.tradeogre`.
    public var kind: BrokerKind { .tradeogre }
    /// The name shown to users in `GET /v1/brokers`.
    public var displayName: String { "TradeOgre" }
    /// What TradeOgre supports, emulates or refuses, with the notes served at `GET /v1/brokers`.
    public var capabilities: Capabilities { Self.tradeOgreCapabilities }
    /// None required: a connection without keys serves public market data. `apiKey` + `apiSecret` (both) unlock the
    /// account.
    public var credentialKeys: [String] { [] }
    /// None that work: TradeOgre has been offline since 2025. Any TradeOgre-dialect venue's API root (with
    /// `/api/v1`), or the built-in sandbox `sandbox://tradeogre` (the registry adds its `/api/v1`).
    public var knownBaseURLs: [String: String] { [:] }
    /// TradeOgre documents no rate limit (ccxt throttles itself to one call per 100 ms, a guess); the pipeline still
    /// honours `Retry-After` on a 429.
    public var rateLimits: [RateLimitRule] { [] }

    /// Reads the connection's settings and credentials into a ``TradeOgreConfiguration`` (throwing on bad ones) and makes
    /// an adapter for it.
    public func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        let configuration = try TradeOgreConfiguration(
            baseURL: context.baseURL,
            settings: context.connection.settings,
            credentials: context.credentials
        )
        return TradeOgreAdapter(context: context, configuration: configuration)
    }

    static let tradeOgreCapabilities = Capabilities(
        operations: [
            .clients: .supported, .accounts: .supported, .balances: .supported, .positions: .emulated,
            .watchlists: .unsupported, .createWatchlist: .unsupported, .updateWatchlist: .unsupported,
            .deleteWatchlist: .unsupported,
            .orders: .supported, .order: .supported, .orderByClientOrderId: .unsupported,
            .previewOrder: .emulated, .placeOrder: .supported, .modifyOrder: .emulated, .cancelOrder: .supported,
            .quotes: .supported, .searchInstruments: .supported, .candles: .supported,
            .orderBook: .supported,
        ],
        assetClasses: [.crypto],
        orderTypes: [.limit],
        timeInForce: [.gtc],
        notes: [
            "Orders are sized in the base currency: notional (money-sized) orders are refused. TradeOgre reports an order's date (createdAt) and no other times.",
            "Credentials are optional: apiKey + apiSecret (HTTP Basic), both or neither. Without them the connection is public: quotes, instruments and candles work; accounts, balances, positions and orders answer unauthorized. Keys are checked against /account/balances when the connection is linked.",
            "Base URL: the API root including /api/v1. TradeOgre itself has been offline since 2025; use any venue speaking its dialect, or the built-in sandbox://tradeogre.",
            "Setting marketNaming: base-quote (XMR-BTC, the default) or quote-base (BTC-XMR, TradeOgre's naming before about 2023). Symbols are always BASE/QUOTE (XMR/BTC); brokerKey.market holds the wire name.",
            "One account per key pair, with id 'spot'; its currency is the valuation currency.",
            "Balances: two calls whatever the number of currencies: totals from /account/balances, and held amounts from every open order (/account/orders: a sell holds its remaining quantity of the base currency, a buy price × quantity of the quote, rounded up to 8 decimals); available = total − held. Zero balances are left out unless the setting includeZeroBalances is true.",
            "Positions are holdings: every currency with a non-zero total except the valuation currency (setting valuationCurrency, default BTC) is a position in <currency>/<valuation>, valued at the last price of market <currency>-<valuation>, else 1/price of <valuation>-<currency>, else without a value. The valuation currency itself is a balance, not a position. No cost basis.",
            "Orders: limit only, good till cancelled (gtc), buy or sell (no short selling); quantity and price at most 8 decimals.",
            "No client order ids: orderByClientOrderId finds nothing. A placement whose answer was lost is found by matching market, side, price, quantity and time among the open orders (OrderMatcher over the open orders, from the journaled intent or TradeOgreAdapter.placement(clientOrderId:)).",
            "Orders by id (/account/order/{uuid}) carry no status: quantity = remaining + fulfilled; remaining 0 is filled, fulfilled > 0 partially_filled, else open. The open-orders list gives only what remains of each order, so each listed order is read by id for its size and fills (4 at a time). TradeOgre no longer answers for a canceled order: reading it is not_found, cancelling it again reports it canceled.",
            "state=all lists the open orders (TradeOgre keeps no order history); state=closed is unprocessable.",
            "Placement answers only a uuid: the order is read back once for its fills; if that read fails it is reported open.",
            "Preview is estimated by the gateway from the ticker and the available balance (cost = limit × quantity). Modify is emulated as cancel then place: the replacement has a new brokerOrderId; if the cancel succeeds and the place fails, the error says the original was cancelled and the replacement was not placed.",
            "Quotes from /ticker for one market, from one /markets call (every market's ticker) for several: last = price, open = initialprice (the price 24 h ago, so changes are over 24 h), volume as TradeOgre reports it; no timestamp. Markets the venue does not list are left out.",
            "Candles: 1m, 15m, 1h, 4h, 1d, 1w.",
            "Watchlists: TradeOgre has none; use the gateway's own.",
        ]
    )
}
