import Foundation
import GatewayModel

/// A latest quote from the market data API (`/v2/stocks/quotes/latest`, `/v1beta3/crypto/us/latest/quotes`).
/// Prices and sizes are JSON numbers here, unlike the Trading API.
struct AlpacaQuote: Decodable, Sendable {
    var time: Date?
    var askPrice: Decimal?
    var bidPrice: Decimal?

    enum CodingKeys: String, CodingKey {
        case time = "t"
        case askPrice = "ap"
        case bidPrice = "bp"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = try c.decodeTimestampIfPresent(forKey: .time)
        askPrice = try c.decodeDecimalIfPresent(forKey: .askPrice)
        bidPrice = try c.decodeDecimalIfPresent(forKey: .bidPrice)
    }
}

/// A latest trade (`/v2/stocks/trades/latest`, `/v1beta3/crypto/us/latest/trades`).
struct AlpacaTrade: Decodable, Sendable {
    var time: Date?
    var price: Decimal
    var size: Decimal?

    enum CodingKeys: String, CodingKey {
        case time = "t"
        case price = "p"
        case size = "s"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = try c.decodeTimestampIfPresent(forKey: .time)
        price = try c.decodeDecimal(forKey: .price)
        size = try c.decodeDecimalIfPresent(forKey: .size)
    }
}

/// `{"quotes": {"AAPL": {...}}}`: symbols without data are simply absent.
struct AlpacaLatestQuotes: Decodable, Sendable {
    var quotes: [String: AlpacaQuote]
}

/// `{"trades": {"AAPL": {...}}}`.
struct AlpacaLatestTrades: Decodable, Sendable {
    var trades: [String: AlpacaTrade]
}
