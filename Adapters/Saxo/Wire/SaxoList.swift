import GatewayModel

/// Saxo's list envelope: `{"__count": 3, "Data": [...], "__next": "<absolute url>", "MaxRows": 1000}`.
/// Only `Data` is guaranteed; Saxo omits empty fields, so a missing `Data` reads as an empty list.
struct SaxoList<Element: Decodable & Sendable>: Decodable, Sendable {
    var data: [Element]
    var next: String?
    var count: Int?

    enum CodingKeys: String, CodingKey {
        case data = "Data"
        case next = "__next"
        case count = "__count"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        data = try c.decodeIfPresent([Element].self, forKey: .data) ?? []
        next = try c.decodeIfPresent(String.self, forKey: .next)
        count = try c.decodeIfPresent(Int.self, forKey: .count)
    }
}
