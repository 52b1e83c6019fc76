public import Foundation
public import GatewayCore
import GatewayModel

/// How a TradeOgre-dialect venue spells markets on the wire.
public enum TradeOgreMarketNaming: String, Sendable, Hashable, CaseIterable {
    /// `XMR-BTC`: base first (TradeOgre from about 2023; ccxt, XChange). The default.
    case baseQuote = "base-quote"
    /// `BTC-XMR`: quote first (TradeOgre from 2018 to about 2023; old wrappers and documentation).
    case quoteBase = "quote-base"
}

/// Everything one TradeOgre connection needs, read from its descriptor and credentials.
///
/// The base URL is the API root **including `/api/v1`** (`https://tradeogre.com/api/v1` was TradeOgre's; the exchange
/// has been offline since 2025, so any venue speaking its dialect, or the built-in sandbox `sandbox://tradeogre`, to
/// which the registry adds `/api/v1`).
///
/// Connection settings (non-secret):
/// - `marketNaming`: `base-quote` (`XMR-BTC`, default) or `quote-base` (`BTC-XMR`).
/// - `valuationCurrency`: the currency holdings are valued in as positions, and the accounts' currency (default `BTC`).
/// - `includeZeroBalances`: `true` keeps currencies with a zero total in `balances` (default `false`).
///
/// Credentials are optional: `apiKey` + `apiSecret` (HTTP Basic), both or neither. Without them the connection is
/// public: market data works, everything of the account answers `unauthorized`.
public struct TradeOgreConfiguration: Sendable {
    /// A TradeOgre API key pair, sent as HTTP Basic (`apiKey:apiSecret`); `description` redacts it so a configuration can
    /// be logged.
    public struct Keys: Sendable, Hashable, CustomStringConvertible {
        /// The API key: the HTTP Basic user name.
        public var apiKey: String
        /// The API secret: the HTTP Basic password.
        public var apiSecret: String
        /// Names the type only; the keys never appear.
        public var description: String { "Keys(redacted)" }
    }

    /// The API root without a trailing slash, `/api/v1` included.
    public var baseURL: String
    /// The key pair; `nil` for a public connection (market data only).
    public var keys: Keys?
    /// How the venue spells markets (`XMR-BTC` or `BTC-XMR`); read from the `marketNaming` setting.
    public var marketNaming: TradeOgreMarketNaming
    /// The currency holdings are valued in as positions and the accounts' currency (`BTC` by default).
    public var valuationCurrency: String
    /// Whether currencies with a zero total stay in `balances` (left out by default).
    public var includeZeroBalances: Bool
    /// How many `/account/balance` calls run at once.
    public var balanceConcurrency = 4
    /// Reads: market data, balances and orders.
    public var readTimeout: Duration = .seconds(10)
    /// Placements and cancels: longer, because a lost answer costs a reconciliation.
    public var writeTimeout: Duration = .seconds(15)
    /// How long a preview stays valid.
    public var previewLifetime: TimeInterval = 300
    /// The most instruments `searchInstruments` returns.
    public var searchLimit = 50
    /// How far the venue's clock may be behind ours when matching a lost placement by time.
    public var placementClockSkew: TimeInterval = 5
    /// The clock, replaceable in tests (preview expiry, placement records).
    public var now: @Sendable () -> Date = { Date() }

    /// Makes a configuration from parts already checked; trailing slashes are dropped. Use
    /// ``init(baseURL:settings:credentials:)`` for a stored connection.
    public init(
        baseURL: String,
        keys: Keys? = nil,
        marketNaming: TradeOgreMarketNaming = .baseQuote,
        valuationCurrency: String = "BTC",
        includeZeroBalances: Bool = false
    ) {
        var trimmed = baseURL
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.baseURL = trimmed
        self.keys = keys
        self.marketNaming = marketNaming
        self.valuationCurrency = valuationCurrency
        self.includeZeroBalances = includeZeroBalances
    }

    /// Reads a connection: `baseURL` is the resolved one (`sandbox://` already replaced).
    public init(baseURL: String, settings: [String: String], credentials: BrokerCredentials) throws {
        let apiKey = credentials["apiKey"].flatMap { $0.isEmpty ? nil : $0 }
        let apiSecret = credentials["apiSecret"].flatMap { $0.isEmpty ? nil : $0 }
        let keys: Keys?
        switch (apiKey, apiSecret) {
        case (let apiKey?, let apiSecret?): keys = Keys(apiKey: apiKey, apiSecret: apiSecret)
        case (nil, nil): keys = nil
        default: throw GatewayError.invalid("credentials", "must hold both apiKey and apiSecret, or neither (public market data only)")
        }
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw GatewayError.invalid("baseURL", "must be an http or https URL (the API root, e.g. https://host/api/v1)")
        }
        var problems: [FieldProblem] = []
        var naming = TradeOgreMarketNaming.baseQuote
        if let raw = settings["marketNaming"], !raw.isEmpty {
            if let value = TradeOgreMarketNaming(rawValue: raw) {
                naming = value
            } else {
                problems.append(FieldProblem(field: "settings.marketNaming", problem: "must be base-quote or quote-base"))
            }
        }
        var valuation = "BTC"
        if let raw = settings["valuationCurrency"], !raw.isEmpty {
            let upper = raw.uppercased()
            if upper.count <= 12, upper.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                valuation = upper
            } else {
                problems.append(FieldProblem(field: "settings.valuationCurrency", problem: "must be a currency code such as BTC or USDT"))
            }
        }
        var includeZero = false
        if let raw = settings["includeZeroBalances"], !raw.isEmpty {
            switch raw.lowercased() {
            case "true": includeZero = true
            case "false": includeZero = false
            default: problems.append(FieldProblem(field: "settings.includeZeroBalances", problem: "must be true or false"))
            }
        }
        guard problems.isEmpty else { throw GatewayError.unprocessable(problems) }
        self.init(
            baseURL: baseURL,
            keys: keys,
            marketNaming: naming,
            valuationCurrency: valuation,
            includeZeroBalances: includeZero
        )
    }

    /// `Authorization: Basic base64(apiKey:apiSecret)`, when the connection has keys.
    var authorization: String? {
        keys.map { "Basic " + Data("\($0.apiKey):\($0.apiSecret)".utf8).base64EncodedString() }
    }
}
