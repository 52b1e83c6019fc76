import Foundation
import GatewayModel

/// One entry of `POST /account/orders`:
/// `{"uuid":"a40ac710-...","date":1514876938,"type":"sell","price":"0.02621960","quantity":"1.55772526","market":"XMR-BTC"}`.
/// `quantity` is what remains open (ccxt reads it as `remaining`).
struct TradeOgreOpenOrder: Decodable, Sendable {
    var uuid: String
    var date: Date
    var type: String
    var price: Decimal
    var quantity: Decimal
    var market: String

    enum CodingKeys: String, CodingKey { case uuid, date, type, price, quantity, market }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try c.decode(String.self, forKey: .uuid)
        date = try c.decodeUnixSeconds(forKey: .date)
        type = try c.decode(String.self, forKey: .type)
        price = try c.decodeDecimal(forKey: .price)
        quantity = try c.decodeDecimal(forKey: .quantity)
        market = try c.decode(String.self, forKey: .market)
    }
}

/// `GET /account/order/{uuid}`: `{"success":true,"date":"1710696146","type":"sell","market":"LTC-USDT",
/// "price":"87.00000000","quantity":"0.10000000","fulfilled":"0.00000000"}`. No uuid; `quantity` is what remains,
/// `fulfilled` what traded; no status.
struct TradeOgreOrderDetail: Decodable, Sendable {
    var date: Date
    var type: String
    var market: String
    var price: Decimal
    var quantity: Decimal
    var fulfilled: Decimal

    enum CodingKeys: String, CodingKey { case date, type, market, price, quantity, fulfilled }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        date = try c.decodeUnixSeconds(forKey: .date)
        type = try c.decode(String.self, forKey: .type)
        market = try c.decode(String.self, forKey: .market)
        price = try c.decodeDecimal(forKey: .price)
        quantity = try c.decodeDecimal(forKey: .quantity)
        fulfilled = try c.decodeDecimalIfPresent(forKey: .fulfilled) ?? 0
    }
}

/// `POST /order/buy|sell`: `{"success":true,"uuid":"235f770b-...","bnewbalavail":"0.10000000","snewbalavail":"0.50000000"}`.
/// The documentation says a uuid comes back when the order rests on the book; an order that filled at once may
/// come back without one.
struct TradeOgrePlacement: Decodable, Sendable {
    var uuid: String?
    /// The new available balance of the quote currency (what buys spend).
    var quoteAvailable: Decimal?
    /// The new available balance of the base currency (what sells spend).
    var baseAvailable: Decimal?

    enum CodingKeys: String, CodingKey {
        case uuid
        case quoteAvailable = "bnewbalavail"
        case baseAvailable = "snewbalavail"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try c.decodeIfPresent(String.self, forKey: .uuid).flatMap { $0.isEmpty ? nil : $0 }
        quoteAvailable = try c.decodeDecimalIfPresent(forKey: .quoteAvailable)
        baseAvailable = try c.decodeDecimalIfPresent(forKey: .baseAvailable)
    }
}
