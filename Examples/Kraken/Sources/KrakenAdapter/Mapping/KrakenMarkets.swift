import Foundation
import GatewayModel

/// Kraken's assets and pairs, and the translation between them and canonical symbols.
///
/// Kraken names assets by ids with legacy prefixes (`XXBT`, `ZUSD`; newer ones plain: `USDT`, `SOL`) and Bitcoin `XBT`
/// (Kraken's "XBT vs BTC" article: the API keeps XBT). The canonical code of an asset is its `altname` from
/// `/0/public/Assets` with `XBT` → `BTC` and `XDG` → `DOGE`; where Assets does not list it, ccxt's table of legacy ids
/// decides, else the id itself. A pair `XXBTZUSD` (base `XXBT`, quote `ZUSD`) is `BTC/USD`.
struct KrakenMarkets: Sendable {
    var assets: [String: KrakenAsset]
    var pairs: [String: KrakenPair]

    /// ccxt 4.5.90 `kraken.commonCurrencies`, the legacy ids (and XBT, XDG) a client meets.
    static let legacy: [String: String] = [
        "XBT": "BTC", "XXBT": "BTC", "XDG": "DOGE", "XXDG": "DOGE", "XETH": "ETH", "XLTC": "LTC", "XXRP": "XRP",
        "XXLM": "XLM", "XXMR": "XMR", "XZEC": "ZEC", "XETC": "ETC", "XMLN": "MLN", "ZUSD": "USD", "ZEUR": "EUR",
        "ZGBP": "GBP", "ZJPY": "JPY", "ZCAD": "CAD", "ZAUD": "AUD",
    ]

    /// The canonical code of an asset id.
    func code(_ asset: String) -> String {
        let name = assets[asset]?.altname ?? asset
        return Self.legacy[name] ?? name
    }

    /// `BASE/QUOTE` of a pair.
    func symbol(_ pair: KrakenPair) -> String { "\(code(pair.base))/\(code(pair.quote))" }

    /// The pair id and pair of a canonical symbol, or nil.
    func pair(symbol wanted: String) -> (id: String, pair: KrakenPair)? {
        let upper = wanted.uppercased()
        return pairs.sorted { $0.key < $1.key }.first { self.symbol($0.value) == upper }.map { ($0.key, $0.value) }
    }

    /// The pair an order's `descr.pair` (the altname) or a result key (the id) names.
    func pair(named name: String) -> (id: String, pair: KrakenPair)? {
        if let pair = pairs[name] { return (name, pair) }
        return pairs.first { $0.value.altname == name }.map { ($0.key, $0.value) }
    }

    /// The canonical instrument of a pair.
    func instrument(id: String, pair: KrakenPair) -> Instrument {
        Instrument(
            symbol: symbol(pair),
            assetClass: .crypto,
            exchange: nil,
            name: pair.wsname,
            currency: code(pair.quote),
            brokerKey: ["pair": id, "altname": pair.altname]
        )
    }

    /// The instrument an order's `descr.pair` names; a pair Kraken no longer lists keeps its altname as the symbol.
    func instrument(orderPair name: String) -> Instrument {
        if let found = pair(named: name) { return instrument(id: found.id, pair: found.pair) }
        return Instrument(symbol: name, assetClass: .crypto, brokerKey: ["altname": name])
    }
}
