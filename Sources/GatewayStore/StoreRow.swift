public import Foundation

/// One row a backend read, by column name: what the shared decoders (`StoredRows.swift`) read every model from, so
/// that each backend only says how its driver reads a column (GRDB's `Row`, postgres-nio's random-access row).
///
/// Integers are stored as 64-bit (timestamps in milliseconds since 1970, see `StoreClock`); booleans as the backend's
/// own (SQLite's 0/1, PostgreSQL's `boolean`); bytes as a blob / `bytea`. A column of another type or an unexpected
/// NULL throws; the backend's error mapping turns that into an internal error.
package protocol StoreRow {
    func string(_ column: String) throws -> String
    func optionalString(_ column: String) throws -> String?
    func int64(_ column: String) throws -> Int64
    func optionalInt64(_ column: String) throws -> Int64?
    func bool(_ column: String) throws -> Bool
    func optionalBool(_ column: String) throws -> Bool?
    func bytes(_ column: String) throws -> Data
}

extension StoreRow {
    package func int(_ column: String) throws -> Int { Int(try int64(column)) }
    package func optionalInt(_ column: String) throws -> Int? { try optionalInt64(column).map { Int($0) } }
    package func date(_ column: String) throws -> Date { StoreClock.date(try int64(column)) }
    package func optionalDate(_ column: String) throws -> Date? { try optionalInt64(column).map(StoreClock.date) }
}
