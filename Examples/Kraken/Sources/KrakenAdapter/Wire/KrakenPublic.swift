import Foundation
import GatewayModel

/*
 GET /0/public/Assets
 {"error": [], "result": {"XXBT": {"aclass": "currency", "altname": "XBT", "decimals": 10, "display_decimals": 5,
   "collateral_value": 1, "status": "enabled"}, ...}}
 */
/// One asset of `/0/public/Assets`.
struct KrakenAsset: Decodable, Sendable {
    var altname: String
    var decimals: Int?
    var status: String?
}

/*
 GET /0/public/AssetPairs
 {"error": [], "result": {"XXBTZUSD": {"altname": "XBTUSD", "wsname": "XBT/USD", "base": "XXBT", "quote": "ZUSD",
   "pair_decimals": 1, "lot_decimals": 8, "ordermin": "0.0001", "costmin": "0.5", "tick_size": "0.1",
   "status": "online", ...}}}
 */
/// One pair of `/0/public/AssetPairs`; the map key is the pair id.
struct KrakenPair: Decodable, Sendable {
    var altname: String
    var wsname: String?
    var base: String
    var quote: String
    var status: String?
    var ordermin: KrakenText?
    var pairDecimals: Int?
    var lotDecimals: Int?

    enum CodingKeys: String, CodingKey {
        case altname, wsname, base, quote, status, ordermin
        case pairDecimals = "pair_decimals"
        case lotDecimals = "lot_decimals"
    }
}

/*
 GET /0/public/Ticker?pair=XXBTZUSD
 {"error": [], "result": {"XXBTZUSD": {"a": ["30300.10000", "1", "1.000"], "b": ["30300.00000", "1", "1.000"],
   "c": ["30303.20000", "0.00067643"], "v": ["4083.67001100", "4412.73601799"], "p": ["30706.77771", "30689.13205"],
   "t": [34619, 38907], "l": ["29868.30000", "29868.30000"], "h": ["31631.00000", "31631.00000"], "o": "30502.80000"}}}
 */
/// One pair's ticker: `a`/`b` = `[price, whole lot volume, lot volume]`, `c` = last `[price, volume]`, `v`/`h`/`l` =
/// `[today, last 24 hours]`, `o` = today's opening price (days start at midnight UTC).
struct KrakenTicker: Decodable, Sendable {
    var a: [KrakenText]?
    var b: [KrakenText]?
    var c: [KrakenText]?
    var v: [KrakenText]?
    var h: [KrakenText]?
    var l: [KrakenText]?
    var o: KrakenText?
}

/*
 GET /0/public/Depth?pair=XXBTZUSD&count=3
 {"error": [], "result": {"XXBTZUSD": {"asks": [["30384.10000", "2.059", 1688671659], ...],
   "bids": [["30297.00000", "1.115", 1688671636], ...]}}}
 */
/// One pair's book: levels `[price, volume, timestamp]`.
struct KrakenDepth: Decodable, Sendable {
    var asks: [[KrakenText]]
    var bids: [[KrakenText]]
}
