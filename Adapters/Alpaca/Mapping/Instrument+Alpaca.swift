import GatewayModel

/// Alpaca spells one crypto pair two ways: `BTC/USD` in assets and orders, `BTCUSD` in positions.
/// Both become the canonical `BTC/USD`.
enum AlpacaSymbol {
    /// Quote currencies Alpaca lists crypto against, longest first so `USDT` wins over `USD`.
    static let cryptoQuotes = ["USDT", "USDC", "USD", "BTC", "ETH"]

    /// `BTCUSD` → `BTC/USD`; `BTC/USD` stays; an unsplittable symbol stays as it is.
    static func canonicalCrypto(_ raw: String) -> String {
        if raw.contains("/") { return raw }
        for quote in cryptoQuotes where raw.count > quote.count && raw.hasSuffix(quote) {
            return String(raw.dropLast(quote.count)) + "/" + quote
        }
        return raw
    }

    /// The currency an instrument is priced in: the quote of a pair, else US dollars.
    static func currency(symbol: String, assetClass: AssetClass) -> String {
        if assetClass == .crypto, let slash = symbol.lastIndex(of: "/") {
            return String(symbol[symbol.index(after: slash)...])
        }
        return "USD"
    }

    /// Alpaca's exchange names → ISO 10383 MICs where the venue is unambiguous; others are kept as Alpaca names
    /// them. Crypto trades on Alpaca's own venue (`CRYPTO`, formerly `FTXU`/`ERSX`/`CBSE`): no exchange is given.
    static let micByExchange: [String: String] = [
        "NASDAQ": "XNAS",
        "NYSE": "XNYS",
        "ARCA": "ARCX",
        "NYSEARCA": "ARCX",
        "AMEX": "XASE",
        "BATS": "BATS",
        "OTC": "OTCM",
    ]

    static func exchange(_ raw: String?, assetClass: AssetClass) -> String? {
        guard assetClass != .crypto, let raw, !raw.isEmpty else { return nil }
        return micByExchange[raw] ?? raw
    }
}

extension Instrument {
    /// One instrument from Alpaca's identity fields, wherever they appear (asset, position, order).
    init(alpacaSymbol symbol: String, assetClass rawClass: String?, assetId: String?, exchange: String?, name: String?) {
        let assetClass = rawClass.map(AssetClass.init(alpaca:)) ?? (symbol.contains("/") ? .crypto : .equity)
        let canonical = assetClass == .crypto ? AlpacaSymbol.canonicalCrypto(symbol) : symbol
        self.init(
            symbol: canonical,
            assetClass: assetClass,
            exchange: AlpacaSymbol.exchange(exchange, assetClass: assetClass),
            name: name.flatMap { $0.isEmpty ? nil : $0 },
            currency: AlpacaSymbol.currency(symbol: canonical, assetClass: assetClass),
            brokerKey: assetId.map { ["assetId": $0] }
        )
    }

    /*
     {"id": "904837e3-3b76-47ec-b432-046db621571b", "class": "us_equity", "exchange": "NASDAQ", "symbol": "AAPL",
      "name": "Apple Inc. Common Stock", "status": "active", "tradable": true, ...}
     */
    init(alpaca asset: AlpacaAsset) {
        self.init(
            alpacaSymbol: asset.symbol,
            assetClass: asset.assetClass,
            assetId: asset.id,
            exchange: asset.exchange,
            name: asset.name
        )
    }
}

extension InstrumentReference {
    /// The symbol Alpaca expects in orders, watchlists and market data: `BTC/USD` for crypto, `AAPL` for equities.
    var alpacaSymbol: String {
        impliedAssetClass == .crypto ? AlpacaSymbol.canonicalCrypto(symbol) : symbol
    }
}
