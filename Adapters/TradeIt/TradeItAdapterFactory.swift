public import GatewayCore
public import GatewayModel

/// Makes `TradeItAdapter`s and describes the `tradeit` kind to clients.
public struct TradeItAdapterFactory: BrokerAdapterFactory {
    /// A factory holds no state; the registry keeps one per kind.
    public init() {}

    /// Always `.tradeit`.
    public var kind: BrokerKind { .tradeit }
    /// The name shown to users in `GET /v1/brokers`.
    public var displayName: String { "TradeIt" }
    /// What TradeIt supports, emulates or refuses, with the notes served at `GET /v1/brokers`.
    public var capabilities: Capabilities { Self.tradeItCapabilities }
    /// `apiKey` is required; `userId` and `userToken` come from linking (`completeLink`) and are stored by the gateway.
    public var credentialKeys: [String] { ["apiKey", "userId", "userToken"] }
    /// TradeIt's production and QA EMS hosts, by name.
    public var knownBaseURLs: [String: String] {
        ["production": TradeItConfiguration.productionBaseURL, "qa": TradeItConfiguration.qaBaseURL]
    }
    /// TradeIt documents no rate limit (see the broker notes); the pipeline still honours `Retry-After` on a 429.
    public var rateLimits: [RateLimitRule] { [] }

    /// Reads the connection's settings and credentials into a ``TradeItConfiguration`` (throwing on bad ones) and makes an
    /// adapter for it.
    public func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        let configuration = try TradeItConfiguration(
            baseURL: context.baseURL,
            settings: context.connection.settings,
            credentials: context.credentials
        )
        return TradeItAdapter(context: context, configuration: configuration)
    }

    static let tradeItCapabilities = Capabilities(
        operations: [
            .clients: .supported, .accounts: .supported, .balances: .supported, .positions: .supported,
            .watchlists: .unsupported, .createWatchlist: .unsupported, .updateWatchlist: .unsupported,
            .deleteWatchlist: .unsupported,
            .orders: .supported, .order: .supported, .orderByClientOrderId: .unsupported, .closedOrders: .supported,
            .previewOrder: .supported, .placeOrder: .supported, .modifyOrder: .emulated, .cancelOrder: .supported,
            .quotes: .supported, .searchInstruments: .unsupported, .candles: .unsupported,
            .orderBook: .unsupported,
        ],
        assetClasses: [.equity, .etf, .crypto],
        orderTypes: [.market, .limit, .stop, .stopLimit],
        timeInForce: [.day, .gtc],
        notes: [
            "No order book: TradeIt's API has none.",
            "Orders are sized in shares: notional (money-sized) orders are refused. filledAt is the last fill's timestamp of a filled order; TradeIt reports no other order times.",
            "Linking is an OAuth popup (startLink → the broker's login page → callback with oAuthVerifier → completeLink); credentials: apiKey, then userId + userToken.",
            "Sessions (~30 min) open automatically on first use and reopen once, transparently, when TradeIt answers code 600.",
            "A security question puts the connection in challenge_required until it is answered; code 700 puts it in relink_required (token update popup).",
            "Setting brokerShortName: the TradeIt broker (default Dummy).",
            "Preview is TradeIt's own (order/preview…, REVIEW_ORDER); placing always previews and places in one call, so a stale broker preview is never reused.",
            "No client order ids: lost placements are found by matching the order list.",
            "Modify is emulated as cancel then place; the replacement gets a new brokerOrderId.",
            "Quotes: equities from TradeIt's own market data (marketdata/getQuotes, by the app's apiKey, no session; change and percent change from the previous close) and crypto pairs from the broker (brokermarketdata/getCryptoQuote).",
            "Crypto orders: BASE/QUOTE pairs (BTC/USD), quantity in the base currency. sell_short and buy_to_cover go to the broker as sellShort and buyToCover.",
            "Balances: one USD line per account: total = available = availableCash (TradeIt reports no held cash), buyingPower, accountValue = totalValue.",
            "Watchlists, instrument search and candles: not offered by TradeIt; the gateway's own watchlists serve.",
        ]
    )
}
