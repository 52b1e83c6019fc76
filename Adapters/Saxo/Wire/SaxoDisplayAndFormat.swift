/// The `DisplayAndFormat` field group on positions, orders and prices.
struct SaxoDisplayAndFormat: Decodable, Sendable, Hashable {
    var symbol: String?
    var description: String?
    var currency: String?
    var decimals: Int?

    enum CodingKeys: String, CodingKey {
        case symbol = "Symbol"
        case description = "Description"
        case currency = "Currency"
        case decimals = "Decimals"
    }
}
