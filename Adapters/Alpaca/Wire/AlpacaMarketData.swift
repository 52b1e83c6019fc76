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

/// A bar of the market data API: `{"t":"2022-03-09T05:00:00Z","o":161.51,"h":163.41,"l":159.41,"c":162.95,
/// "v":88496480,"n":700291,"vw":161.942117}`. Numbers, decoded exactly into `Decimal`.
struct AlpacaBar: Decodable, Sendable {
    var time: Date
    var open: Decimal
    var high: Decimal
    var low: Decimal
    var close: Decimal
    var volume: Decimal?

    enum CodingKeys: String, CodingKey {
        case time = "t"
        case open = "o"
        case high = "h"
        case low = "l"
        case close = "c"
        case volume = "v"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = try c.decodeTimestamp(forKey: .time)
        open = try c.decodeDecimal(forKey: .open)
        high = try c.decodeDecimal(forKey: .high)
        low = try c.decodeDecimal(forKey: .low)
        close = try c.decodeDecimal(forKey: .close)
        volume = try c.decodeDecimalIfPresent(forKey: .volume)
    }
}

/// `{"bars": {"AAPL": [...]}, "next_page_token": null}` (`/v2/stocks/bars`, `/v1beta3/crypto/us/bars`). A symbol
/// with no bars in the range is absent, and Alpaca has sent `"bars": null` for an empty answer.
struct AlpacaBars: Decodable, Sendable {
    var bars: [String: [AlpacaBar]]
    var nextPageToken: String?

    enum CodingKeys: String, CodingKey {
        case bars
        case nextPageToken = "next_page_token"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        bars = try c.decodeIfPresent([String: [AlpacaBar]].self, forKey: .bars) ?? [:]
        nextPageToken = try c.decodeIfPresent(String.self, forKey: .nextPageToken)
    }
}

/// A latest crypto order book (`/v1beta3/crypto/us/latest/orderbooks`): `{"a":[{"p":64767.7,"s":0.2754}],
/// "b":[{"p":64709.3,"s":0.2801}],"t":"2024-07-18T08:22:41.607595222Z"}`. Prices and sizes are numbers (ccxt's
/// fixtures also show strings; both are read).
struct AlpacaOrderbook: Decodable, Sendable {
    var asks: [OrderBookLevel]
    var bids: [OrderBookLevel]
    var time: Date?

    struct Level: Decodable, Sendable {
        var price: Decimal
        var size: Decimal

        enum CodingKeys: String, CodingKey {
            case price = "p"
            case size = "s"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            price = try c.decodeDecimal(forKey: .price)
            size = try c.decodeDecimal(forKey: .size)
        }
    }

    enum CodingKeys: String, CodingKey {
        case asks = "a"
        case bids = "b"
        case time = "t"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        asks = (try c.decodeIfPresent([Level].self, forKey: .asks) ?? []).map { OrderBookLevel(price: $0.price, size: $0.size) }
        bids = (try c.decodeIfPresent([Level].self, forKey: .bids) ?? []).map { OrderBookLevel(price: $0.price, size: $0.size) }
        time = try c.decodeTimestampIfPresent(forKey: .time)
    }
}

/// `{"orderbooks": {"BTC/USD": {...}}}`.
struct AlpacaLatestOrderbooks: Decodable, Sendable {
    var orderbooks: [String: AlpacaOrderbook]
}
