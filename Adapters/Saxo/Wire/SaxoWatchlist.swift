/// `GET ref/v1/watchlists` and `GET ref/v1/watchlists/{id}`, as the 2018 seed describes them (a list of lists, then
/// one list whose items carry `AssetType` and `Uic`). Saxo's current reference documentation has no watchlist
/// resource, so the field names here are unverified; everything is optional and the adapter treats a 404 as "no
/// broker-side watchlists".
struct SaxoWatchlist: Decodable, Sendable {
    var id: String?
    var name: String?

    enum CodingKeys: String, CodingKey {
        case watchlistId = "WatchlistId"
        case id = "Id"
        case name = "Name"
        case displayName = "DisplayName"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let numericId = (try? c.decodeIfPresent(Int.self, forKey: .watchlistId)).flatMap { $0 }.map(String.init)
        id =
            (try? c.decodeIfPresent(String.self, forKey: .watchlistId)).flatMap { $0 } ?? numericId
            ?? (try? c.decodeIfPresent(String.self, forKey: .id)).flatMap { $0 }
        name =
            (try? c.decodeIfPresent(String.self, forKey: .name)).flatMap { $0 }
            ?? (try? c.decodeIfPresent(String.self, forKey: .displayName)).flatMap { $0 }
    }
}

/// One list with its items. The seed does not name the container, so both a list envelope (`Data`) and an
/// `Instruments` array (what the built-in sandbox serves) are read.
struct SaxoWatchlistDetail: Decodable, Sendable {
    var items: [SaxoWatchlistItem]

    enum CodingKeys: String, CodingKey {
        case data = "Data"
        case instruments = "Instruments"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        items =
            try c.decodeIfPresent([SaxoWatchlistItem].self, forKey: .data)
            ?? c.decodeIfPresent([SaxoWatchlistItem].self, forKey: .instruments) ?? []
    }
}

/// One item of a watchlist: the instrument's Saxo identity, and its naming where the item carries it.
struct SaxoWatchlistItem: Decodable, Sendable {
    var uic: Int?
    var assetType: String?
    var symbol: String?
    var description: String?

    enum CodingKeys: String, CodingKey {
        case uic = "Uic"
        case assetType = "AssetType"
        case symbol = "Symbol"
        case description = "Description"
    }
}
