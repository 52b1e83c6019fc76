import Foundation

/// `GET /v2/assets` elements, and the `assets` of a watchlist. Only identity fields are read.
struct AlpacaAsset: Decodable, Sendable {
    var id: String
    var assetClass: String
    var exchange: String?
    var symbol: String
    var name: String?
    var status: String?
    var tradable: Bool?

    enum CodingKeys: String, CodingKey {
        case id, exchange, symbol, name, status, tradable
        case assetClass = "class"
        // alpaca-trade-api v1 payloads spell it `asset_class`.
        case legacyAssetClass = "asset_class"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        if let assetClass = try c.decodeIfPresent(String.self, forKey: .assetClass) {
            self.assetClass = assetClass
        } else {
            assetClass = try c.decode(String.self, forKey: .legacyAssetClass)
        }
        exchange = try c.decodeIfPresent(String.self, forKey: .exchange)
        symbol = try c.decode(String.self, forKey: .symbol)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        status = try c.decodeIfPresent(String.self, forKey: .status)
        tradable = try c.decodeIfPresent(Bool.self, forKey: .tradable)
    }
}
