import Foundation
import GatewayModel

/// One element of `GET /v2/positions`. `qty` is signed (negative for a short); `side` says the same in words.
struct AlpacaPosition: Decodable, Sendable {
    var assetId: String
    var symbol: String
    var exchange: String?
    var assetClass: String
    var avgEntryPrice: Decimal?
    var qty: Decimal
    var side: String
    var marketValue: Decimal?
    var costBasis: Decimal?
    var unrealizedPl: Decimal?
    var currentPrice: Decimal?
    /// The position's profit or loss today (since the previous close, or since it was opened today).
    var unrealizedIntradayPl: Decimal?

    enum CodingKeys: String, CodingKey {
        case symbol, exchange, qty, side
        case assetId = "asset_id"
        case assetClass = "asset_class"
        case avgEntryPrice = "avg_entry_price"
        case marketValue = "market_value"
        case costBasis = "cost_basis"
        case unrealizedPl = "unrealized_pl"
        case currentPrice = "current_price"
        case unrealizedIntradayPl = "unrealized_intraday_pl"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        assetId = try c.decode(String.self, forKey: .assetId)
        symbol = try c.decode(String.self, forKey: .symbol)
        exchange = try c.decodeIfPresent(String.self, forKey: .exchange)
        assetClass = try c.decode(String.self, forKey: .assetClass)
        avgEntryPrice = try c.decodeDecimalIfPresent(forKey: .avgEntryPrice)
        qty = try c.decodeDecimal(forKey: .qty)
        side = try c.decode(String.self, forKey: .side)
        marketValue = try c.decodeDecimalIfPresent(forKey: .marketValue)
        costBasis = try c.decodeDecimalIfPresent(forKey: .costBasis)
        unrealizedPl = try c.decodeDecimalIfPresent(forKey: .unrealizedPl)
        currentPrice = try c.decodeDecimalIfPresent(forKey: .currentPrice)
        unrealizedIntradayPl = try c.decodeDecimalIfPresent(forKey: .unrealizedIntradayPl)
    }
}
