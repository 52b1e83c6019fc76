import Foundation
import GatewayModel

extension KeyedDecodingContainer {
    /// A required RFC 3339 timestamp.
    func decodeTimestamp(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = RFC3339Timestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "must be an RFC 3339 timestamp")
        }
        return date
    }

    /// An optional RFC 3339 timestamp: a missing key or `null` gives `nil`; anything else must parse.
    func decodeTimestampIfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeTimestamp(forKey: key)
    }
}
