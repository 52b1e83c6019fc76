public import Foundation
public import GatewayCore
public import GatewayModel

/// What a ``ConformanceSuite`` needs to reach a running simulator of the broker and to trade on it: the link (base
/// URL, credentials, settings) as a user would enter it, the account and instrument to use, and a resting order.
///
/// The simulator must be built with SandboxKit (its `/_sandbox` admin API injects the faults the error checks need)
/// and be reachable under the suite's ``ConformanceSuite/egress`` policy (loopback, for a simulator a test starts).
public struct ConformanceTarget: Sendable {
    /// The connection's base URL as a user links it (`http://127.0.0.1:PORT/api/v1`): the adapter's base URL.
    public var baseURL: String
    /// Where the simulator's `/_sandbox` admin API is: by default the origin of ``baseURL`` (scheme, host, port).
    public var simulatorURL: String
    /// Working credentials of the link (the factory's ``BrokerAdapterFactory/credentialKeys``). Credentials the adapter
    /// rotates (`saveCredentials`) are used from then on, as the gateway stores them.
    public var credentials: BrokerCredentials
    /// Credentials the broker refuses, for the `errors: bad credentials → unauthorized` check: by default each value
    /// of ``credentials`` replaced by a wrong one.
    public var badCredentials: BrokerCredentials
    /// The connection's non-secret settings (`marketNaming`, `brokerShortName`, ...).
    public var settings: [String: String]
    /// The account to trade in; `nil` for the first account ``BrokerAdapter/accounts()`` lists.
    public var accountId: String?
    /// The instrument the suite quotes, searches, reads candles and the order book of, places the resting order in,
    /// and puts in a watchlist.
    public var instrument: InstrumentReference
    /// The text the instrument search is asked for; by default the instrument's symbol.
    public var searchText: String
    /// The interval of the candles the suite asks for (one the broker offers).
    public var candleInterval: CandleInterval
    /// The order the order checks place, read, change and cancel; it must rest (not fill) on the simulator: a limit
    /// far from the market. `nil` fails the order checks of a broker that declares them.
    public var restingOrder: ConformanceOrder?
    /// A broker order id the broker does not know, in its own id format (a UUID by default), for the
    /// `errors: unknown order → not_found` check.
    public var unknownOrderId: String

    /// A target; only the link and the instrument are required.
    public init(
        baseURL: String,
        simulatorURL: String? = nil,
        credentials: BrokerCredentials,
        badCredentials: BrokerCredentials? = nil,
        settings: [String: String] = [:],
        accountId: String? = nil,
        instrument: InstrumentReference,
        searchText: String? = nil,
        candleInterval: CandleInterval = .oneHour,
        restingOrder: ConformanceOrder? = nil,
        unknownOrderId: String = UUID().uuidString.lowercased()
    ) {
        self.baseURL = baseURL
        self.simulatorURL = simulatorURL ?? Self.origin(of: baseURL)
        self.credentials = credentials
        self.badCredentials =
            badCredentials
            ?? BrokerCredentials(credentials.values.mapValues { _ in "conformance-wrong-\(UUID().uuidString.prefix(8))" })
        self.settings = settings
        self.accountId = accountId
        self.instrument = instrument
        self.searchText = searchText ?? instrument.symbol
        self.candleInterval = candleInterval
        self.restingOrder = restingOrder
        self.unknownOrderId = unknownOrderId
    }

    /// `scheme://host:port` of a URL; the URL itself when it cannot be read.
    static func origin(of url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else {
            return url
        }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (components.port.map { ":\($0)" } ?? "")
    }
}

/// The order the order checks place: it must rest on the simulator (a limit away from the market, within the
/// account's funds), and ``modification`` must be one the broker accepts for it.
public struct ConformanceOrder: Sendable {
    /// Buy or sell.
    public var side: OrderSide
    /// The order type (one of the broker's ``Capabilities/orderTypes``); `limit` by default.
    public var type: OrderType
    /// The quantity, in the instrument's units.
    public var quantity: Decimal
    /// The limit price, for a limit or stop-limit order.
    public var limitPrice: Decimal?
    /// The stop price, for a stop or stop-limit order.
    public var stopPrice: Decimal?
    /// The time in force (one of the broker's ``Capabilities/timeInForce``).
    public var timeInForce: TimeInForce
    /// The change the `modifyOrder` check sends; the answer must carry what it sets.
    public var modification: OrderModification

    /// An order; by default a limit order, changed to `modification`.
    public init(
        side: OrderSide,
        type: OrderType = .limit,
        quantity: Decimal,
        limitPrice: Decimal? = nil,
        stopPrice: Decimal? = nil,
        timeInForce: TimeInForce,
        modification: OrderModification
    ) {
        self.side = side
        self.type = type
        self.quantity = quantity
        self.limitPrice = limitPrice
        self.stopPrice = stopPrice
        self.timeInForce = timeInForce
        self.modification = modification
    }
}
