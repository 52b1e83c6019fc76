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
///
/// Decimals are written in their canonical text and read back by `DecimalText`, which takes the text of every value
/// `Decimal` holds: a client field's bounds (`DecimalBounds`) are the placement's rules, not the journal's, so a row
/// the journal wrote always reads back, whatever the bounds were when it was written.
package enum JournalJSON {
    /// The column's JSON, checked to read back before anything is written: a row the journal cannot read would be
    /// lost to its tenant (the reconciler logs and skips it). Only a broker's numbers can fail this (a sum of its fills
    /// that overflows `Decimal` is NaN), so the broker's view (`order`) failing is the broker's malformed answer, and
    /// the request failing is the gateway's own error.
    package static func encode<Value: Codable>(_ value: Value, column: String, orderId: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(StoreClock.millis(date))
        }
        let text: String
        do {
            text = String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw GatewayError(.internalError, "the order's \(column) could not be encoded for the journal")
        }
        do {
            _ = try decode(Value.self, text, column: column, orderId: orderId)
        } catch {
            throw GatewayError(
                column == "order" ? .malformedResponse : .internalError,
                "the order's \(column) cannot be journaled: a value in it would not read back (a decimal that is not a number)"
            )
        }
        return text
    }

    /// - Throws: `GatewayError(.internalError)` naming the order and the column, never the value (which may carry
    ///   account data).
    package static func decode<Value: Decodable>(_ type: Value.Type, _ text: String, column: String, orderId: String) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            StoreClock.date(try decoder.singleValueContainer().decode(Int64.self))
        }
        do {
            return try decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw GatewayError(.internalError, "the journaled \(column) of order \(orderId) is unreadable")
        }
    }

    /// Reads one journal row of `orderId`: any failure (a column that does not decode, a state the gateway does not
    /// know) becomes `internal` naming the order (`GatewayError.orderId`), never the value. The order id tells the
    /// reconciler that this row, not the database, is what failed, so it sets the row aside instead of failing on it
    /// every pass.
    package static func readingRow<Value>(of orderId: String, _ read: () throws -> Value) throws -> Value {
        do {
            return try read()
        } catch var error as GatewayError {
            error.orderId = orderId
            throw error
        } catch {
            var failure = GatewayError(.internalError, "journaled order \(orderId) has a column that cannot be read")
            failure.orderId = orderId
            throw failure
        }
    }
}
