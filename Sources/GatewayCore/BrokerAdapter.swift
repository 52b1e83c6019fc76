public import GatewayModel
public import Logging

/// One broker dialect, bound to one connection. Every operation of the canonical model is here; an adapter that
/// cannot do one throws `GatewayError.notSupported` and declares it in `capabilities`. There are no default
/// implementations on purpose: each adapter says what it does.
///
/// Adapters must honour task cancellation (all I/O through `BrokerTransport` does), so the router's deadlines hold.
public protocol BrokerAdapter: Sendable {
    /// The dialect this adapter speaks; the same as its factory's `kind`.
    var kind: BrokerKind { get }
    /// What this connection's broker can do; the gateway refuses an unsupported operation before calling the
    /// adapter, and serves the declaration at `GET /v1/brokers`.
    var capabilities: Capabilities { get }

    /// Proves the credentials work (called before a connection is saved). Throws `unauthorized` when they do not.
    func validateCredentials() async throws

    /// The broker's clients (account holders) this connection's credentials reach; usually one.
    func clients() async throws -> [Client]
    /// The connection's accounts, read fresh from the broker.
    func accounts() async throws -> [Account]
    /// Balances per currency of one account, or of every account of the connection when `accountId` is `nil`.
    func balances(accountId: String?) async throws -> [Balance]
    /// Net positions of one account, or of every account when `accountId` is `nil`, signed as
    /// `Position.signedLikeQuantity` says (negative for a short).
    func positions(accountId: String?) async throws -> [Position]

    /// The watchlists kept at the broker (not the gateway's own); empty when the broker has none.
    func watchlists() async throws -> [Watchlist]
    /// Creates a watchlist at the broker and returns it as the broker now holds it.
    func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist
    /// Renames a broker watchlist and/or replaces its instruments; a `nil` argument leaves that part as it is.
    func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist
    /// Deletes a broker watchlist.
    func deleteWatchlist(id: String) async throws

    /// The orders the query selects: open, closed or all, optionally of one account and some symbols, in a time
    /// range, at most `query.limit`.
    func orders(_ query: OrderQuery) async throws -> [Order]
    /// One order by the broker's own id; `not_found` when the broker does not know it.
    func order(brokerOrderId: String) async throws -> Order
    /// Finds an order by the client order id it was placed with; `nil` when the broker has none.
    /// The order pipeline uses it to resolve a placement whose outcome is unknown.
    func order(clientOrderId: String, accountId: String) async throws -> Order?
    /// What placing `request` would cost, with the broker's warnings, without placing anything.
    func previewOrder(_ request: OrderRequest) async throws -> OrderPreview
    /// Places an order. `request.clientOrderId` is always set by the gateway before this is called.
    func placeOrder(_ request: OrderRequest) async throws -> Order
    /// Changes a working order (quantity, prices, time in force, type) and returns it as changed; `order` is the current
    /// order, just read from the broker and still active. A broker without a change call emulates it by
    /// cancel-then-place, as its capabilities say. Never retried by the pipeline: it is a write.
    func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order
    /// Cancels a working order and returns it as the broker reports it afterwards (`canceled`, or
    /// `pending_cancel` where the broker cancels later); `conflict` when it filled or went away first.
    func cancelOrder(_ order: Order) async throws -> Order

    /// The latest quotes of the instruments, in the order asked; an instrument the broker has no price for is left
    /// out rather than failing the rest.
    func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote]
    /// Instruments matching free text (a symbol or a name), optionally of one asset class.
    func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument]
    /// The latest `count` candles of an instrument, oldest first.
    func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries
    /// The instrument's order book, at most `depth` levels a side (1 to `OrderBook.maximumDepth`), in canonical
    /// order: bids highest first, asks lowest first.
    func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook
}

/// Everything an adapter needs to talk to its broker for one connection.
public struct AdapterContext: Sendable {
    /// The connection the adapter serves: its id (which the adapter stamps on every record) and configuration.
    public var connection: ConnectionDescriptor
    /// The base URL to call, with `sandbox://` already resolved.
    public var baseURL: String
    /// The connection's decrypted credentials as stored; rotated ones go back through `saveCredentials`.
    public var credentials: BrokerCredentials
    /// Where every call goes: from an `AdapterRegistry`, the connection's `BrokerPipeline` chain over the gateway's
    /// egress-checked transport. Adapters send only through it, so limits, breakers and the egress policy hold.
    public var transport: any BrokerTransport
    /// A logger carrying the connection and broker as metadata.
    public var logger: Logger
    /// Persists credentials the adapter changed (a rotated refresh token), encrypted, for this connection.
    public var saveCredentials: @Sendable (BrokerCredentials) async throws -> Void
    /// Records a status change (challenge or relink required) for this connection.
    public var saveStatus: @Sendable (ConnectionStatus, [String: String]?) async throws -> Void
    /// Opens the broker's own push streams (WebSockets) under the same egress rules as `transport`; `nil` where the
    /// transport cannot (test doubles), and the gateway then polls.
    public var sockets: (any BrokerSocketTransport)?

    /// A context; the save closures default to doing nothing, for tests and contract replays, where nothing is
    /// stored.
    public init(
        connection: ConnectionDescriptor,
        baseURL: String,
        credentials: BrokerCredentials,
        transport: any BrokerTransport,
        logger: Logger,
        saveCredentials: @escaping @Sendable (BrokerCredentials) async throws -> Void = { _ in },
        saveStatus: @escaping @Sendable (ConnectionStatus, [String: String]?) async throws -> Void = { _, _ in },
        sockets: (any BrokerSocketTransport)? = nil
    ) {
        self.sockets = sockets
        self.connection = connection
        self.baseURL = baseURL
        self.credentials = credentials
        self.transport = transport
        self.logger = logger
        self.saveCredentials = saveCredentials
        self.saveStatus = saveStatus
    }
}

/// Makes adapters of one kind and describes the kind to clients.
public protocol BrokerAdapterFactory: Sendable {
    /// The dialect this factory's adapters speak; one factory per kind in an `AdapterRegistry`.
    var kind: BrokerKind { get }
    /// The broker's name as people know it (`Saxo Bank`), shown at `GET /v1/brokers`.
    var displayName: String { get }
    /// What adapters of this kind can do, served at `GET /v1/brokers` and checked before any call.
    var capabilities: Capabilities { get }
    /// The credential keys a connection of this kind needs (e.g. `keyId`, `secretKey`); empty for public-only use.
    var credentialKeys: [String] { get }
    /// Base URLs users commonly pick (e.g. paper, live).
    var knownBaseURLs: [String: String] { get }
    /// The broker's documented rate limits, per connection: the pipeline paces calls by them until the broker's
    /// own headers say better. Empty when the broker documents none.
    var rateLimits: [RateLimitRule] { get }

    /// What is missing from a link's credentials before the broker is asked, one problem per field
    /// (`credentials.<key>`). By default every key of `credentialKeys` is required; a broker that accepts other sets
    /// (Saxo: an app with a refresh token, or an access token alone) says so here.
    func credentialProblems(_ credentials: BrokerCredentials) -> [FieldProblem]

    /// Makes the adapter for one connection, without I/O (sessions and tokens open lazily, on the first call). The
    /// registry caches it per connection and makes a new one when the connection's broker, base URL or settings
    /// change; throws for a configuration the adapter cannot use.
    func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter
}

extension BrokerAdapterFactory {
    /// The default: each of `credentialKeys` missing or empty is one problem, `credentials.<key> is required`.
    public func credentialProblems(_ credentials: BrokerCredentials) -> [FieldProblem] {
        credentialKeys.filter { (credentials[$0] ?? "").isEmpty }.map {
            FieldProblem(field: "credentials.\($0)", problem: "is required for \(kind)")
        }
    }
}
