package import Foundation
import GatewayCore
package import GatewayStore
import Logging
import NIOCore
package import PostgresNIO

/// A value bound to a statement's placeholder: text, integers, booleans, bytes, or NULL (`nil` of any of them).
protocol SQLArgument: Sendable {
    func bind(into bindings: inout PostgresBindings)
}

extension String: SQLArgument {
    func bind(into bindings: inout PostgresBindings) { bindings.append(self) }
}

extension Int64: SQLArgument {
    func bind(into bindings: inout PostgresBindings) { bindings.append(self) }
}

extension Int: SQLArgument {
    func bind(into bindings: inout PostgresBindings) { bindings.append(Int64(self)) }
}

extension Bool: SQLArgument {
    func bind(into bindings: inout PostgresBindings) { bindings.append(self) }
}

/// Bytes go as `bytea`.
extension Data: SQLArgument {
    func bind(into bindings: inout PostgresBindings) { bindings.append(ByteBuffer(bytes: self)) }
}

extension Optional: SQLArgument where Wrapped: SQLArgument {
    func bind(into bindings: inout PostgresBindings) {
        switch self {
        case .some(let value): value.bind(into: &bindings)
        case .none: bindings.appendNull()
        }
    }
}

/// One leased connection of the pool, in or out of a transaction: statements written with `?` placeholders (as the
/// SQLite store's are), numbered `$1…` here, and their arguments always bound, never spliced into the text.
struct PostgresSQL {
    let connection: PostgresConnection
    let logger: Logger

    func execute(_ sql: String, _ arguments: [any SQLArgument] = []) async throws {
        _ = try await rows(sql, arguments)
    }

    func rows(_ sql: String, _ arguments: [any SQLArgument] = []) async throws -> [PostgresRandomAccessRow] {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments { argument.bind(into: &bindings) }
        let query = PostgresQuery(unsafeSQL: Self.numbered(sql), binds: bindings)
        return try await connection.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }

    func row(_ sql: String, _ arguments: [any SQLArgument] = []) async throws -> PostgresRandomAccessRow? {
        try await rows(sql, arguments).first
    }

    /// The number of rows a statement with `RETURNING` returned: what SQLite's `changesCount` says.
    func count(_ sql: String, _ arguments: [any SQLArgument] = []) async throws -> Int {
        try await rows(sql, arguments).count
    }

    /// `?` placeholders outside quoted text and identifiers become `$1`, `$2`, … in order.
    static func numbered(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// `?, ?, …` for an `IN` list.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}

/// postgres-nio's rows read by the shared decoders (`StoredRows.swift` in GatewayStore).
extension PostgresRandomAccessRow: StoreRow {
    package func string(_ column: String) throws -> String { try self[column].decode(String.self) }
    package func optionalString(_ column: String) throws -> String? { try self[column].decode(String?.self) }
    package func int64(_ column: String) throws -> Int64 { try self[column].decode(Int64.self) }
    package func optionalInt64(_ column: String) throws -> Int64? { try self[column].decode(Int64?.self) }
    package func bool(_ column: String) throws -> Bool { try self[column].decode(Bool.self) }
    package func optionalBool(_ column: String) throws -> Bool? { try self[column].decode(Bool?.self) }
    package func bytes(_ column: String) throws -> Data { try self[column].decode(Data.self) }
}
