public import Foundation
public import GatewayCore
package import GatewayModel
package import Logging

/// The store's rules that do not depend on the database: names, limits, messages, JSON columns and stored values,
/// written once for every backend (`SQLiteStore`, `PostgresStore`), which keep only their SQL, bindings and
/// transactions. Everything here is a pure function of plain values.
package enum StoreRules {
    // MARK: JSON columns

    /// A value as a JSON column's text, with sorted keys so that equal values are stored as equal bytes.
    package static func encodeJSON<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw GatewayError(.internalError, "a value could not be encoded for storage")
        }
    }

    package static func decodeJSON<Value: Decodable>(_ type: Value.Type, _ text: String, column: String) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw GatewayError(.internalError, "the stored \(column) value is unreadable")
        }
    }

    // MARK: Stored values

    package static func storedEnum<T: RawRepresentable>(_ type: T.Type, _ text: String, column: String) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else { throw GatewayError(.internalError, "the stored \(column) value is unreadable") }
        return value
    }

    package static func storedDecimal(_ text: String, column: String) throws -> Decimal {
        guard let value = DecimalText.parse(text) else {
            throw GatewayError(.internalError, "the stored \(column) value is unreadable")
        }
        return value
    }

    // MARK: Tenants and keys

    /// Every scope a key of the migration's time had: `admin,read,trade`.
    package static let allScopesText = "read,trade,admin"

    /// A key's stored scopes (`read,trade`) as names.
    package static func scopeNames(_ text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }

    /// The `store_meta` key of the embedded default's demo tenant.
    package static let demoTenantKey = "demo_tenant_id"

    /// The `store_meta` key of the value sealed with the master key, to tell a wrong key at start.
    package static let keyCheckName = "master_key_check"

    package static func tenantNotFound(_ id: String) -> GatewayError {
        GatewayError(.notFound, "tenant \(id) not found")
    }

    // MARK: Connections and links

    package static func connectionNotFound(_ id: String) -> GatewayError {
        GatewayError(.notFound, "connection \(id) not found")
    }

    /// How long a spent or expired link state is kept so that a late callback hears "already used" or "expired"
    /// rather than "unknown"; older rows are purged whenever a link starts.
    package static let linkStateRetention: Int64 = 24 * 3600 * 1000

    // MARK: Watchlists and goals

    /// The longest watchlist name, in characters.
    package static let watchlistNameMaxLength = 100

    /// The longest goal name, in characters.
    package static let goalNameMaxLength = 100

    /// The name trimmed, or `invalid` when it is empty or too long.
    package static func validatedWatchlistName(_ name: String) throws -> String {
        try validatedName(name, maxLength: watchlistNameMaxLength)
    }

    package static func validatedGoalName(_ name: String) throws -> String {
        try validatedName(name, maxLength: goalNameMaxLength)
    }

    private static func validatedName(_ name: String, maxLength: Int) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...maxLength).contains(trimmed.count) else {
            throw GatewayError.invalid("name", "must be 1 to \(maxLength) characters")
        }
        return trimmed
    }

    package static func watchlistNameConflict(_ name: String) -> String {
        "a watchlist named '\(name)' already exists"
    }

    package static func goalNameConflict(_ name: String) -> String {
        "a goal named '\(name)' already exists"
    }

    /// The user's other goals as read now against those a write was checked against: a retryable `conflict` when
    /// they differ (another write changed them meanwhile).
    package static func requireUnchangedGoals(_ current: [Goal], _ basis: [Goal]?) throws {
        guard let basis else { return }
        if current != basis { throw GatewayError(.conflict, GoalDraft.goalsChangedMessage, retryable: true) }
    }

    // MARK: Alerts

    package static func alertLimitError(_ limit: Int) -> GatewayError {
        GatewayError.unprocessable([
            FieldProblem(field: "body", problem: "the user already has \(limit) alerts, the most one user may have: delete one first")
        ])
    }

    // MARK: The order journal

    /// The longest retention an idempotency key can be given.
    package static let maximumIdempotencyRetention: TimeInterval = 10 * 366 * 24 * 3600

    package static func journaledOrderNotFound(_ id: String) -> GatewayError {
        GatewayError(.notFound, "journaled order \(id) not found")
    }

    // MARK: Errors

    /// Seconds a client is told to wait after the database was busy or unreachable: about one busy timeout's worth
    /// of contention.
    package static let busyRetryAfter: Double = 1

    /// The retryable answer to a database that was busy (another writer held the lock past the timeout): the request
    /// did nothing and the same request can succeed a moment later.
    package static let databaseBusy = GatewayError(
        .upstreamUnavailable,
        "the gateway's database is busy; retry shortly",
        retryable: true,
        retryAfter: busyRetryAfter
    )

    /// A unique-constraint failure, with the caller's message (the database's own text names columns, not what the
    /// user did).
    package static func uniqueViolation(_ conflict: String?) -> GatewayError {
        GatewayError(.conflict, conflict ?? "the resource already exists")
    }

    package static let foreignKeyViolation = GatewayError(.notFound, "a resource it refers to does not exist")

    package static let databaseFailed = GatewayError(.internalError, "the gateway's database failed")

    /// The description of an error that is not the driver's: no values, only what kind of failure it was.
    package static func safeDescription(ofOther error: any Error) -> String {
        if error is DecodingError || error is EncodingError {
            return "stored data does not decode: \(type(of: error))"
        }
        return String(describing: type(of: error))
    }
}

extension StoreRules {
    /// The migrations a database has that this version does not know, in the order given: a newer version ran on it.
    /// That is expected during a rolling upgrade (migrations only add, so this version ignores them and runs beside
    /// the newer one: README "Upgrading") and logged once at start, so an operator who rolled back sees it.
    package static func newerMigrations(applied: [String], known: [String], logger: Logger) -> [String] {
        let knownNames = Set(known)
        let newer = applied.filter { !knownNames.contains($0) }
        if !newer.isEmpty {
            logger.warning(
                "the database has migrations this version does not know (a newer version ran on it); running beside it",
                metadata: ["migrations": .string(newer.joined(separator: ","))]
            )
        }
        return newer
    }
}
