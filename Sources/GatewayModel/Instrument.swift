/// A tradable thing, identified canonically by `symbol` + `assetClass`.
///
/// Canonical symbols: `AAPL` (equity), `EUR/USD` (fx), `BTC/USD` (crypto). The broker-native identity
/// (Saxo `Uic`+`AssetType`, TradeOgre market `XMR-BTC`, Alpaca `asset_id`) travels in `brokerKey` and does not take
/// part in equality, so the same instrument from two brokers compares equal.
public struct Instrument: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The canonical symbol: a ticker (`AAPL`) or a pair `BASE/QUOTE` (`EUR/USD`, `XMR/BTC`).
    public var symbol: String
    /// What kind of instrument it is; with `symbol`, its identity.
    public var assetClass: AssetClass
    /// ISO 10383 MIC where known (`XNAS`), or the broker's exchange name.
    public var exchange: String?
    /// A readable name (`Apple Inc.`), where the broker gives one.
    public var name: String?
    /// The currency prices are quoted in.
    public var currency: String?
    /// The broker-native identity, e.g. `["uic": "16", "assetType": "FxSpot"]`.
    public var brokerKey: [String: String]?

    /// An instrument; only `symbol` and `assetClass` take part in equality.
    public init(
        symbol: String,
        assetClass: AssetClass,
        exchange: String? = nil,
        name: String? = nil,
        currency: String? = nil,
        brokerKey: [String: String]? = nil
    ) {
        self.symbol = symbol
        self.assetClass = assetClass
        self.exchange = exchange
        self.name = name
        self.currency = currency
        self.brokerKey = brokerKey
    }

    /// Equal when the symbol and the asset class are: exchange, name, currency and the broker's key do not count, so
    /// the same instrument from two brokers compares equal.
    public static func == (lhs: Instrument, rhs: Instrument) -> Bool {
        lhs.symbol == rhs.symbol && lhs.assetClass == rhs.assetClass
    }
    /// Hashes what `==` compares: the symbol and the asset class.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(symbol)
        hasher.combine(assetClass)
    }

    /// `AAPL (equity)`: the instrument in logs and messages.
    public var description: String { "\(symbol) (\(assetClass.rawValue))" }

    /// For pairs (`EUR/USD`, `BTC/USD`): the base and quote currencies.
    public var pair: (base: String, quote: String)? {
        let parts = symbol.split(separator: "/")
        guard parts.count == 2 else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}
