import Crypto
public import Foundation

/// One tradable instrument of the sandbox market, described in broker-neutral terms.
///
/// `symbol` is the canonical spelling used across the product: `AAPL`, `BTC/USD`, `EUR/USD`, `XMR/BTC`.
/// Simulators translate it into their own keys (Alpaca `BTCUSD` positions, TradeOgre `BTC-XMR`, Saxo Uic).
public struct MarketInstrument: Sendable, Hashable, Identifiable {
    /// Stable across runs and machines: derived from the symbol (see ``MarketInstrument/stableID(for:)``).
    public var id: UUID
    /// The canonical symbol: `AAPL`, `BTC/USD`, `EUR/USD`, `XMR/BTC`.
    public var symbol: String
    /// Equity, crypto or FX; simulators map it onto their own asset types.
    public var assetClass: AssetClass
    /// The display name (`Apple Inc. Common Stock`).
    public var name: String
    /// Listing venue code, e.g. `NASDAQ`, `ARCA`, `CRYPTO`, `FX`.
    public var exchange: String
    /// For pairs, the currency bought or sold (`BTC` in `BTC/USD`); nil for equities.
    public var baseCurrency: String?
    /// Currency prices are quoted in (ISO 4217 or crypto code).
    public var currency: String
    /// Smallest price step.
    public var tickSize: Decimal
    /// Quantity step for whole-unit trading.
    public var lotSize: Decimal
    /// Smallest order quantity.
    public var minQuantity: Decimal
    /// Whether quantities finer than `lotSize` (down to 9 decimal places) are accepted.
    public var fractionable: Bool
    /// Centre of the simulated price path.
    public var referencePrice: Decimal
    /// Typical move per price bucket as a fraction of price (0.0001 = 1 bp); sets how lively the price is.
    public var volatility: Decimal
    /// Full bid/ask spread as a fraction of price; at least one tick each side.
    public var spread: Decimal
    /// Quoted size unit: sizes are small multiples of it (100 shares, 0.01 BTC, 100 000 EUR).
    public var sizeUnit: Decimal

    /// Describes an instrument; `id` defaults to the symbol's stable id, so every simulator agrees on it.
    public init(
        symbol: String,
        assetClass: AssetClass,
        name: String,
        exchange: String,
        baseCurrency: String? = nil,
        currency: String,
        tickSize: Decimal,
        lotSize: Decimal,
        minQuantity: Decimal,
        fractionable: Bool,
        referencePrice: Decimal,
        volatility: Decimal,
        spread: Decimal,
        sizeUnit: Decimal,
        id: UUID? = nil
    ) {
        self.id = id ?? Self.stableID(for: symbol)
        self.symbol = symbol
        self.assetClass = assetClass
        self.name = name
        self.exchange = exchange
        self.baseCurrency = baseCurrency
        self.currency = currency
        self.tickSize = tickSize
        self.lotSize = lotSize
        self.minQuantity = minQuantity
        self.fractionable = fractionable
        self.referencePrice = referencePrice
        self.volatility = volatility
        self.spread = spread
        self.sizeUnit = sizeUnit
    }

    /// The broad kind of an instrument; simulators map it onto their own vocabularies (`us_equity`, `Stock`, ...).
    public enum AssetClass: String, Sendable, Hashable, Codable, CaseIterable {
        case equity
        case crypto
        case fx
    }

    /// A name-based UUID (version 5 layout over SHA-256) so every run and every simulator agree on an instrument's id.
    public static func stableID(for symbol: String) -> UUID {
        let digest = Array(SHA256.hash(data: Array("brokergateway.sandbox.instrument:\(symbol)".utf8)))
        var bytes = Array(digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }
}
