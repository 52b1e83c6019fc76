import Foundation
import SandboxKit

/// An asset as `/0/public/Assets` lists it.
struct KrakenListedAsset: Sendable {
    var id: String
    var altname: String
    var decimals: Int
    var displayDecimals: Int
}

/// A pair the sandbox lists: Kraken's names for one of the shared market's crypto instruments.
struct KrakenListing: Sendable {
    /// The pair id (`XXBTZUSD`): AssetPairs' key, what Ticker/Depth answer under.
    var id: String
    /// `XBTUSD`: what orders' `descr.pair` say.
    var altname: String
    /// `XBT/USD`.
    var wsname: String
    var base: String
    var quote: String
    /// The shared market's symbol (`BTC/USD`).
    var symbol: String
    var pairDecimals: Int
    var lotDecimals: Int
    var ordermin: Decimal
    var tickSize: Decimal

    /// Kraken's names for the shared market's pairs (legacy ids where Kraken has them: `XXBTZUSD`, `XETHZUSD`; plain
    /// ones for the newer Tether pairs: `XBTUSDT`, `LTCUSDT`), as in SPEC's AssetPairs example and ccxt's fixtures.
    static let names: [(symbol: String, id: String, altname: String, wsname: String, base: String, quote: String)] = [
        ("BTC/USD", "XXBTZUSD", "XBTUSD", "XBT/USD", "XXBT", "ZUSD"),
        ("ETH/USD", "XETHZUSD", "ETHUSD", "ETH/USD", "XETH", "ZUSD"),
        ("BTC/USDT", "XBTUSDT", "XBTUSDT", "XBT/USDT", "XXBT", "USDT"),
        ("LTC/USDT", "LTCUSDT", "LTCUSDT", "LTC/USDT", "XLTC", "USDT"),
    ]

    /// The assets those pairs use, as SPEC's Assets example has them (crypto to 10 decimals, dollars to 4).
    static let assets: [KrakenListedAsset] = [
        KrakenListedAsset(id: "XXBT", altname: "XBT", decimals: 10, displayDecimals: 5),
        KrakenListedAsset(id: "XETH", altname: "ETH", decimals: 10, displayDecimals: 5),
        KrakenListedAsset(id: "XLTC", altname: "LTC", decimals: 10, displayDecimals: 5),
        KrakenListedAsset(id: "ZUSD", altname: "USD", decimals: 4, displayDecimals: 2),
        KrakenListedAsset(id: "USDT", altname: "USDT", decimals: 8, displayDecimals: 4),
    ]

    /// The listings of the pairs the market has, with precision from its instruments.
    static func listings(market: MarketEngine) -> [KrakenListing] {
        names.compactMap { entry in
            guard let instrument = market.instrument(symbol: entry.symbol) else { return nil }
            return KrakenListing(
                id: entry.id,
                altname: entry.altname,
                wsname: entry.wsname,
                base: entry.base,
                quote: entry.quote,
                symbol: entry.symbol,
                pairDecimals: max(1, DecimalText.fractionDigits(instrument.tickSize)),
                lotDecimals: 8,
                ordermin: instrument.minQuantity,
                tickSize: instrument.tickSize
            )
        }
    }
}
