/// How a client names an instrument in a request: a canonical symbol, with the asset class when it is ambiguous.
public struct InstrumentReference: Codable, Sendable, Hashable {
    /// The canonical symbol (`AAPL`, `EUR/USD`, `BTC/USD`).
    public var symbol: String
    /// The asset class, when the symbol alone is ambiguous; `nil` leaves it to ``impliedAssetClass``.
    public var assetClass: AssetClass?

    /// A reference to the instrument `symbol`, of `assetClass` when given.
    public init(symbol: String, assetClass: AssetClass? = nil) {
        self.symbol = symbol
        self.assetClass = assetClass
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case symbol, assetClass }

    /// Closed, as every request body: an unknown field is refused, never dropped (``StrictKeys``).
    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        symbol = try c.decode(String.self, forKey: .symbol)
        assetClass = try c.decodeIfPresent(AssetClass.self, forKey: .assetClass)
    }

    /// The asset class a bare symbol implies: `BASE/QUOTE` with a fiat quote of three letters on both sides is FX
    /// when both are fiat, crypto otherwise; anything else is an equity.
    public var impliedAssetClass: AssetClass {
        if let assetClass { return assetClass }
        let parts = symbol.split(separator: "/")
        guard parts.count == 2 else { return .equity }
        let fiat: Set<Substring> = [
            "USD", "EUR", "GBP", "JPY", "CHF", "DKK", "SEK", "NOK", "CAD", "AUD", "NZD", "HKD", "SGD", "PLN", "CZK", "HUF", "ZAR", "MXN", "CNH",
            "TRY",
        ]
        return fiat.contains(parts[0]) && fiat.contains(parts[1]) ? .fx : .crypto
    }
}
