import Foundation

/// `GET/POST /v2/watchlists`, `GET/PUT /v2/watchlists/{id}`. The list endpoint leaves `assets` out.
struct AlpacaWatchlist: Decodable, Sendable {
    var id: String
    var name: String
    var createdAt: Date?
    var updatedAt: Date?
    var assets: [AlpacaAsset]?

    enum CodingKeys: String, CodingKey {
        case id, name, assets
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        createdAt = try c.decodeTimestampIfPresent(forKey: .createdAt)
        updatedAt = try c.decodeTimestampIfPresent(forKey: .updatedAt)
        assets = try c.decodeIfPresent([AlpacaAsset].self, forKey: .assets)
    }
}

/// The body of `POST /v2/watchlists` and `PUT /v2/watchlists/{id}`.
struct AlpacaWatchlistRequest: Encodable, Sendable {
    var name: String?
    var symbols: [String]?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(symbols, forKey: .symbols)
    }

    enum CodingKeys: String, CodingKey { case name, symbols }
}
