import Foundation
import GatewayModel

/// `GET /orders/{market}`: `{"success":true,"buy":{"0.02425501":"36.46986607",...},"sell":{"0.02427176":"737.34633975",...}}`,
/// maps of price text to quantity text, in no promised order. Both keys and values are read as strict decimals.
struct TradeOgreBook: Decodable, Sendable {
    var buy: [OrderBookLevel]
    var sell: [OrderBookLevel]

    enum CodingKeys: String, CodingKey { case buy, sell }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        buy = try Self.levels(c, .buy)
        sell = try Self.levels(c, .sell)
    }

    /// A side nobody quotes may come as `{}`, `[]` (PHP's empty array) or be missing.
    private static func levels(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> [OrderBookLevel] {
        guard c.contains(key), try !c.decodeNil(forKey: key) else { return [] }
        if let empty = try? c.decode([String].self, forKey: key), empty.isEmpty { return [] }
        let map = try c.decode([String: String].self, forKey: key)
        return try map.map { price, size in
            guard case .success(let p) = DecimalText.read(price), case .success(let s) = DecimalText.read(size) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key,
                    in: c,
                    debugDescription: "\(key.rawValue) level \(price): \(size) is not two decimals"
                )
            }
            return OrderBookLevel(price: p, size: s)
        }
    }
}
