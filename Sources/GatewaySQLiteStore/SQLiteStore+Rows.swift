package import Foundation
package import GRDB
package import GatewayStore

/// GRDB's rows read by the shared decoders (`StoredRows.swift` in GatewayStore).
extension Row: StoreRow {
    package func string(_ column: String) throws -> String { try decode(String.self, forColumn: column) }
    package func optionalString(_ column: String) throws -> String? { try decode(String?.self, forColumn: column) }
    package func int64(_ column: String) throws -> Int64 { try decode(Int64.self, forColumn: column) }
    package func optionalInt64(_ column: String) throws -> Int64? { try decode(Int64?.self, forColumn: column) }
    package func bool(_ column: String) throws -> Bool { try decode(Bool.self, forColumn: column) }
    package func optionalBool(_ column: String) throws -> Bool? { try decode(Bool?.self, forColumn: column) }
    package func bytes(_ column: String) throws -> Data { try decode(Data.self, forColumn: column) }
}
