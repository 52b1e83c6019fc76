import Foundation
import GatewayCore

/// The JSON of the journal's columns (`orders.request`, `orders."order"`).
///
/// The models' own `Codable` writes decimals as strings; dates are written as integer milliseconds since 1970, like
/// the timestamp columns, so a date read back equals the one stored (JSON's default, a Double of seconds since
/// 2001, does not always round-trip, and `.iso8601` drops the fraction of a second):
///
/// ```json
/// {"accountId":"PA1","connectionId":"conn_…","expiresAt":1767225600000,"quantity":"1.5","side":"buy",…}
/// ```
enum JournalJSON {
    static func encode<Value: Encodable>(_ value: Value, column: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(StoreClock.millis(date))
        }
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw GatewayError(.internalError, "the order's \(column) could not be encoded for the journal")
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ text: String, column: String) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            StoreClock.date(try decoder.singleValueContainer().decode(Int64.self))
        }
        do {
            return try decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw GatewayError(.internalError, "the journaled \(column) value is unreadable")
        }
    }
}
