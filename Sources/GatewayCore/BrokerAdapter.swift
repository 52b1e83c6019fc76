public import GatewayModel
public import Logging

/// One broker dialect, bound to one connection. Every operation of the canonical model is here; an adapter that
/// cannot do one throws `GatewayError.notSupported` and declares it in `capabilities`. There are no default
/// implementations on purpose: each adapter says what it does.
///
/// Adapters must honour task cancellation (all I/O through `BrokerTransport` does), so the router's deadlines hold.
public protocol BrokerAdapter: Sendable {
    var kind: BrokerKind { get }
    var capabilities: Capabilities { get }

    /// Proves the credentials work (called before a connection is saved). Throws `unauthorized` when they do not.
    func validateCredentials() async throws

    func clients() async throws -> [Client]
    func accounts() async throws -> [Account]
    func balances(accountId: String?) async throws -> [Balance]
    func positions(accountId: String?) async throws -> [Position]

    func watchlists() async throws -> [Watchlist]
    func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist
    func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist
    func deleteWatchlist(id: String) async throws

    func orders(_ query: OrderQuery) async throws -> [Order]
    func order(brokerOrderId: String) async throws -> Order
    /// Finds an order by the client order id it was placed with; `nil` when the broker has none.
    /// The order pipeline uses it to resolve a placement whose outcome is unknown.
    func order(clientOrderId: String, accountId: String) async throws -> Order?
    func previewOrder(_ request: OrderRequest) async throws -> OrderPreview
    /// Places an order. `request.clientOrderId` is always set by the gateway before this is called.
    func placeOrder(_ request: OrderRequest) async throws -> Order
    func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order
    func cancelOrder(_ order: Order) async throws -> Order

    func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote]
    func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument]
    /// The latest `count` candles of an instrument, oldest first.
    func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries
    /// The instrument's order book, at most `depth` levels a side (1 to `OrderBook.maximumDepth`), in canonical
    /// order: bids highest first, asks lowest first.
    func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook
}

/// Everything an adapter needs to talk to its broker for one connection.
public struct AdapterContext: Sendable {
    public var connection: ConnectionDescriptor
    /// The base URL to call, with `sandbox://` already resolved.
    public var baseURL: String
    public var credentials: BrokerCredentials
    public var transport: any BrokerTransport
    public var logger: Logger
    /// Persists credentials the adapter changed (a rotated refresh token), encrypted, for this connection.
    public var saveCredentials: @Sendable (BrokerCredentials) async throws -> Void
    /// Records a status change (challenge or relink required) for this connection.
    public var saveStatus: @Sendable (ConnectionStatus, [String: String]?) async throws -> Void
    /// Opens the broker's own push streams (WebSockets) under the same egress rules as `transport`; `nil` where the
    /// transport cannot (test doubles), and the gateway then polls.
    public var sockets: (any BrokerSocketTransport)?

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
    var kind: BrokerKind { get }
    var displayName: String { get }
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

    func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter
}

extension BrokerAdapterFactory {
    public func credentialProblems(_ credentials: BrokerCredentials) -> [FieldProblem] {
        credentialKeys.filter { (credentials[$0] ?? "").isEmpty }.map {
            FieldProblem(field: "credentials.\($0)", problem: "is required for \(kind)")
        }
    }
}
