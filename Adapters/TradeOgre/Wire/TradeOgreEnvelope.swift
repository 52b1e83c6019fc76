import Foundation
import GatewayModel

/// The members every TradeOgre object may carry: `success` (a boolean, or the string `"true"` as some answers wrote
/// it) and, on failure, `error`.
struct TradeOgreEnvelope: Decodable, Sendable {
    /// nil when the body has no `success` (the array answers never do).
    var succeeded: Bool?
    var error: String?

    enum CodingKeys: String, CodingKey { case success, error }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        succeeded = try c.decodeSuccessIfPresent(forKey: .success)
        error = try? c.decodeIfPresent(String.self, forKey: .error)
    }
}

extension KeyedDecodingContainer {
    /// `true` or `"true"` is success; any other present value (`false`, `"false"`, `0`) is not, as ccxt reads it.
    func decodeSuccessIfPresent(forKey key: Key) throws -> Bool? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let flag = try? decode(Bool.self, forKey: key) { return flag }
        if let text = try? decode(String.self, forKey: key) { return text.lowercased() == "true" }
        return false
    }

    /// A unix time in seconds sent as an integer (`1514876938`) or a string (`"1710696146"`).
    func decodeUnixSeconds(forKey key: Key) throws -> Date {
        if let seconds = try? decode(Int64.self, forKey: key) {
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        let text = try decode(String.self, forKey: key)
        guard let seconds = Int64(text.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "must be unix seconds")
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// An optional strict decimal where TradeOgre may leave the key out (`bid`/`ask` of an illiquid market).
    func decodeAmountIfPresent(forKey key: Key) throws -> Decimal? {
        try decodeDecimalIfPresent(forKey: key)
    }
}
