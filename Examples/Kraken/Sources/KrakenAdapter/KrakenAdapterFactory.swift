public import GatewayCore
public import GatewayModel

extension BrokerKind {
    /// Kraken's Spot REST API (https://docs.kraken.com/api/), added from outside BrokerGateway by this package.
    public static let kraken = BrokerKind("kraken")
}

/// Makes `KrakenAdapter`s and describes the `kraken` kind to clients.
public struct KrakenAdapterFactory: BrokerAdapterFactory {
    /// Where the adapters' nonces come from: ``KrakenNonceSource/clock`` unless a contract replay needs to predict them.
    public var nonces: KrakenNonceSource

    /// A factory whose adapters take their nonces from `nonces` (the clock by default).
    public init(nonces: KrakenNonceSource = .clock) {
        self.nonces = nonces
    }

    /// Always `.kraken`.
    public var kind: BrokerKind { .kraken }
    /// The name shown to users in `GET /v1/brokers`.
    public var displayName: String { "Kraken" }
    /// What Kraken supports, emulates or refuses, with the notes served at `GET /v1/brokers`.
    public var capabilities: Capabilities { Self.krakenCapabilities }
    /// `apiKey` and `apiSecret` (base64), both required.
    public var credentialKeys: [String] { ["apiKey", "apiSecret"] }
    /// Kraken's own API, or the built-in sandbox.
    public var knownBaseURLs: [String: String] { ["live": "https://api.kraken.com", "sandbox": "sandbox://kraken"] }
    /// Kraken's REST counter is per key and decays (15 to 20 calls, then 0.33 to 1 a second, by tier): the pipeline
    /// honours `EAPI:Rate limit exceeded` as `rate_limited` instead of pacing by a guess of the tier.
    public var rateLimits: [RateLimitRule] { [] }

    /// Reads the connection's settings and credentials into a ``KrakenConfiguration`` (throwing on bad ones) and makes
    /// an adapter for it.
    public func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        let configuration = try KrakenConfiguration(
            baseURL: context.baseURL,
            settings: context.connection.settings,
            credentials: context.credentials
        )
        return KrakenAdapter(context: context, configuration: configuration, nonce: nonces.make())
    }

    static let krakenCapabilities = Capabilities(
        operations: [
            .clients: .supported, .accounts: .supported, .balances: .supported, .positions: .emulated,
            .watchlists: .unsupported, .createWatchlist: .unsupported, .updateWatchlist: .unsupported,
            .deleteWatchlist: .unsupported,
            .orders: .supported, .order: .supported, .orderByClientOrderId: .supported, .closedOrders: .supported,
            .previewOrder: .unsupported, .placeOrder: .supported, .modifyOrder: .supported, .cancelOrder: .supported,
            .quotes: .supported, .searchInstruments: .supported, .candles: .unsupported, .orderBook: .supported,
            .notionalOrders: .unsupported,
        ],
        assetClasses: [.crypto],
        orderTypes: [.market, .limit],
        timeInForce: [.gtc, .ioc],
        notes: [
            "Credentials: apiKey and apiSecret (the base64 private key Kraken issues with it). Private calls are signed (API-Sign: HMAC-SHA512 over the path and SHA-256 of nonce + body) with a millisecond nonce that increases per key.",
            "Base URL: Kraken's API origin without /0 (https://api.kraken.com), or the built-in sandbox://kraken.",
            "One account per key, with id 'spot'; its currency is the valuation currency (setting valuationCurrency, default USD).",
            "Symbols are BASE/QUOTE with Kraken's legacy codes translated (XBT is BTC, XDG is DOGE; XXBT, ZUSD and the like read as BTC, USD): BTC/USD is Kraken's pair XXBTZUSD. brokerKey.pair holds the pair id, brokerKey.altname its altname.",
            "Balances from BalanceEx: total = balance, held = hold_trade, available = balance + credit - credit_used - hold_trade. Assets are named by their altname (XXBT reads as BTC).",
            "Positions are holdings: every asset with a non-zero balance except the valuation currency is a long position in <asset>/<valuation>, valued at the last trade of that pair when Kraken lists it. No cost basis.",
            "Orders: market and limit, buy or sell, good till cancelled or immediate or cancel; sized in the base currency (notional orders are refused). The client order id travels as cl_ord_id (the gateway's gw-<32 hex> as the 32 hex digits; an id Kraken cannot take, over 18 characters and not a UUID, as the first 32 hex digits of its SHA-256), so orderByClientOrderId finds a lost placement.",
            "Order lists: state=open from OpenOrders, closed from ClosedOrders (Kraken's newest 50), all from both.",
            "Kraken's error strings map to the canonical codes: EAPI:Invalid key and EAPI:Invalid signature → unauthorized; EAPI:Invalid nonce → unauthorized, retryable (the connection stays linked); EGeneral:Permission denied → forbidden; EOrder:Insufficient funds → insufficient_funds; EOrder:Unknown order and EOrder:Invalid order → not_found; EGeneral:Invalid arguments and EQuery:Unknown asset pair → unprocessable; EAPI:Rate limit exceeded, EOrder:Rate limit exceeded and EGeneral:Temporary lockout → rate_limited; EService:Unavailable and EService:Busy → upstream_unavailable; EService:Deadline elapsed → upstream_timeout; any other E… → rejected.",
            "Changing an order is Kraken's AmendOrder: a limit order's quantity (the new total) and limit price change in place; the txid and client order id stay. Other changes are unprocessable: cancel and place again.",
            "Not offered: watchlists (use the gateway's own), candles, previews.",
        ]
    )
}
