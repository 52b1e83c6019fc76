public import Foundation
public import GatewayCore
public import GatewayModel
import Logging
import Synchronization

/// TradeOgre's API v1 (and any venue speaking its dialect) as a `BrokerAdapter`, for one connection.
///
/// A key pair reaches one spot wallet, which the gateway calls account `spot`. Without keys the connection is public:
/// quotes, instrument search and candles work; everything of the account fails with `unauthorized` ("this connection
/// has no API keys…"), which a fan-out read reports in its sources line. Keys are proven by `validateCredentials()`
/// before a connection is saved, never assumed.
public struct TradeOgreAdapter: BrokerAdapter {
    /// The one account a key pair reaches.
    public static let accountId = "spot"

    /// Always `.tradeogre`.
    public var kind: BrokerKind { .tradeogre }
    /// What TradeOgre supports, emulates or refuses (see `TradeOgreAdapterFactory`).
    public var capabilities: Capabilities { TradeOgreAdapterFactory.tradeOgreCapabilities }

    let context: AdapterContext
    let configuration: TradeOgreConfiguration
    let session: Session

    /// What was sent for a placement, kept so a placement whose answer was lost can be looked for among the open
    /// orders (TradeOgre has no client order ids).
    public struct PlacementRecord: Sendable, Hashable {
        /// The gateway's client order id the placement was made under.
        public var clientOrderId: String
        /// The market the order was placed in.
        public var instrument: InstrumentReference
        /// Buy or sell.
        public var side: OrderSide
        /// The limit price sent (every TradeOgre order is a limit order).
        public var price: Decimal
        /// The quantity sent, in the base currency.
        public var quantity: Decimal
        /// When the placement was sent (the gateway's clock).
        public var sentAt: Date

        /// What `OrderMatcher` looks for among the orders (every TradeOgre order is a limit order in the one account).
        public var intent: OrderIntent {
            OrderIntent(
                clientOrderId: clientOrderId,
                accountId: TradeOgreAdapter.accountId,
                symbol: instrument.symbol,
                side: side,
                type: .limit,
                quantity: quantity,
                limitPrice: price,
                sentAt: sentAt
            )
        }
    }

    /// Per-connection state shared by every copy of the adapter.
    final class Session: Sendable {
        static let capacity = 256
        let placements = Mutex<[PlacementRecord]>([])

        func record(_ placement: PlacementRecord) {
            placements.withLock { list in
                list.removeAll { $0.clientOrderId == placement.clientOrderId }
                list.append(placement)
                if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
            }
        }

        func placement(clientOrderId: String) -> PlacementRecord? {
            placements.withLock { list in list.last { $0.clientOrderId == clientOrderId } }
        }
    }

    /// Binds the adapter to one connection, with an empty placement record; makes no call.
    public init(context: AdapterContext, configuration: TradeOgreConfiguration) {
        self.context = context
        self.configuration = configuration
        self.session = Session()
    }

    var connectionId: String { context.connection.id }
    var naming: TradeOgreMarketNaming { configuration.marketNaming }

    // MARK: Account

    /// With keys: `GET /account/balances` must succeed (`Must be authorized` → `unauthorized`). Without keys: the base
    /// URL must answer `GET /markets` like a TradeOgre venue.
    public func validateCredentials() async throws {
        if configuration.keys != nil {
            _ = try await fetch(TradeOgreBalances.self, .balances())
        } else {
            _ = try await fetch(TradeOgreMarkets.self, .markets())
        }
    }

    /// The one client a key pair reaches (id `spot`); `unauthorized` without keys.
    public func clients() async throws -> [Client] {
        try requireKeys()
        return [
            Client(
                id: Self.accountId,
                connectionId: connectionId,
                broker: .tradeogre,
                name: "TradeOgre account",
                defaultAccountId: Self.accountId,
                defaultCurrency: configuration.valuationCurrency
            )
        ]
    }

    /// The spot wallet as the one account (id `spot`, in the valuation currency); `unauthorized` without keys.
    public func accounts() async throws -> [Account] {
        try requireKeys()
        return [
            Account(
                id: Self.accountId,
                connectionId: connectionId,
                broker: .tradeogre,
                name: "Spot wallet",
                currency: configuration.valuationCurrency,
                tradable: true
            )
        ]
    }

    /// Totals from `GET /account/balances` and the open orders of every market from `POST /account/orders`, the two
    /// calls at once; what the orders hold is subtracted from the totals (see ``HeldFunds`` for the rule). Zero totals
    /// are left out unless `includeZeroBalances` is set. Sorted by currency.
    ///
    /// The totals are the answer; the open orders only refine it. When they cannot be read (the broker failed or
    /// answered nonsense; refused credentials still fail the read, as they fail the totals), the totals are answered
    /// with nothing held and the gap is recorded (``ReadGaps``), so the read is `partial` and says that `available`
    /// may include funds open orders hold.
    public func balances(accountId: String?) async throws -> [Balance] {
        try check(accountId)
        try requireKeys()
        async let totalsCall = fetch(TradeOgreBalances.self, .balances())
        async let ordersCall = fetch([TradeOgreOpenOrder].self, .openOrders(), form: [])
        let totals = try await totalsCall
        var held: [String: Decimal] = [:]
        do {
            held = try HeldFunds.held(by: try await ordersCall, naming: naming)
        } catch let error as GatewayError where ![.unauthorized, .forbidden].contains(error.code) {
            ReadGaps.record(
                GatewayError(
                    error.code,
                    "TradeOgre's open orders could not be read (\(error.message)): held amounts are unknown, and available may "
                        + "include funds open orders hold",
                    broker: .tradeogre,
                    retryable: error.retryable,
                    retryAfter: error.retryAfter
                )
            )
        }
        return HeldFunds.balances(
            totals: totals.balances,
            held: held,
            includeZero: configuration.includeZeroBalances,
            connectionId: connectionId,
            accountId: Self.accountId
        )
    }

    /// Holdings as positions: see ``Holdings`` for the rule. One call for the totals and one for every market's
    /// price, at once.
    public func positions(accountId: String?) async throws -> [Position] {
        try check(accountId)
        try requireKeys()
        async let totalsCall = fetch(TradeOgreBalances.self, .balances())
        async let marketsCall = fetch(TradeOgreMarkets.self, .markets())
        let (totals, markets) = try await (totalsCall, marketsCall)
        return Holdings.positions(
            totals: totals.balances,
            markets: markets,
            naming: naming,
            valuationCurrency: configuration.valuationCurrency,
            connectionId: connectionId,
            accountId: Self.accountId
        )
    }

    // MARK: Watchlists (the gateway's own serve TradeOgre connections)

    /// Refused: TradeOgre has no watchlists; the gateway's own serve TradeOgre connections.
    public func watchlists() async throws -> [Watchlist] { throw GatewayError.notSupported("watchlists", broker: kind) }

    /// Refused: TradeOgre has no watchlists.
    public func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist {
        throw GatewayError.notSupported("createWatchlist", broker: kind)
    }

    /// Refused: TradeOgre has no watchlists.
    public func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist {
        throw GatewayError.notSupported("updateWatchlist", broker: kind)
    }

    /// Refused: TradeOgre has no watchlists.
    public func deleteWatchlist(id: String) async throws { throw GatewayError.notSupported("deleteWatchlist", broker: kind) }

    // MARK: Helpers

    func requireKeys() throws {
        if configuration.keys == nil { throw Self.noKeys() }
    }

    func check(_ accountId: String?) throws {
        if let accountId, accountId != Self.accountId {
            throw GatewayError(
                .notFound,
                "this TradeOgre connection has no account '\(accountId)' (its only account is '\(Self.accountId)')",
                broker: .tradeogre,
                retryable: false
            )
        }
    }

    /// The market of a canonical symbol, or a field problem.
    func market(of reference: InstrumentReference, field: String) throws -> MarketName {
        if let assetClass = reference.assetClass, assetClass != .crypto {
            throw GatewayError.unprocessable([FieldProblem(field: field, problem: "TradeOgre lists crypto pairs only")])
                .with(broker: .tradeogre)
        }
        guard let market = MarketName(symbol: reference.symbol) else {
            throw GatewayError.unprocessable([
                FieldProblem(field: field, problem: "must be a crypto pair written BASE/QUOTE, such as XMR/BTC")
            ]).with(broker: .tradeogre)
        }
        return market
    }
}

extension GatewayError {
    func with(broker: BrokerKind) -> GatewayError {
        var copy = self
        copy.broker = broker
        return copy
    }
}
