import Foundation
import GatewayModel

/// `GET /ticker/{market}` and each value of `GET /markets`:
/// `{"success":true,"initialprice":"0.02502002","price":"0.02500000","high":"0.03102001","low":"0.02500000",
///   "volume":"0.15549958","bid":"0.02420000","ask":"0.02625000"}` (markets add `basename`, drop `success`;
/// `bid`/`ask` are missing on markets nobody quotes).
struct TradeOgreTicker: Decodable, Sendable {
    var initialPrice: Decimal?
    var price: Decimal?
    var high: Decimal?
    var low: Decimal?
    var volume: Decimal?
    var bid: Decimal?
    var ask: Decimal?
    var baseName: String?

    enum CodingKeys: String, CodingKey {
        case initialPrice = "initialprice"
        case price, high, low, volume, bid, ask
        case baseName = "basename"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        initialPrice = try c.decodeAmountIfPresent(forKey: .initialPrice)
        price = try c.decodeAmountIfPresent(forKey: .price)
        high = try c.decodeAmountIfPresent(forKey: .high)
        low = try c.decodeAmountIfPresent(forKey: .low)
        volume = try c.decodeAmountIfPresent(forKey: .volume)
        bid = try c.decodeAmountIfPresent(forKey: .bid)
        ask = try c.decodeAmountIfPresent(forKey: .ask)
        baseName = try c.decodeIfPresent(String.self, forKey: .baseName)
    }
}

/// `GET /markets`: an array of one-key objects, `[{"XMR-BTC":{...}}, {"LTC-BTC":{...}}]`, kept in order.
struct TradeOgreMarkets: Decodable, Sendable {
    var entries: [(name: String, ticker: TradeOgreTicker)]

    init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        var entries: [(name: String, ticker: TradeOgreTicker)] = []
        while !list.isAtEnd {
            let object = try list.decode([String: TradeOgreTicker].self)
            for name in object.keys.sorted() { entries.append((name, object[name]!)) }
        }
        self.entries = entries
    }
}
