package import Foundation
package import GatewayCore
package import GatewayModel

// What a write stores and the model it produced, written once for both backends: a backend prepares one of these
// before its transaction (validation and encoding can fail without holding a lock), binds its columns to its own
// SQL, and answers with `stored(id:at:)` rather than reading the row back. `at` is the row's `created_at` in
// milliseconds (`StoreClock`), the same value both backends write to `created_at` and `updated_at`.

// MARK: Audit

extension AuditRecord {
    /// The record naming what a create made: the id exists only once the store has chosen it.
    package func targeting(_ id: String) -> AuditRecord {
        var record = self
        record.target = id
        return record
    }
}

// MARK: Names unique per user

extension StoreRules {
    /// A write's name against the id of the user's record that already has it (`takenBy`, `nil` when none):
    /// a `conflict` unless it is the record being written (`except`). Checked before writing for a clear message;
    /// the unique index is the backstop against a race.
    package static func requireFreeName(_ name: String, takenBy taken: String?, except id: String?, conflict: String) throws {
        if let taken, taken != id { throw GatewayError(.conflict, conflict) }
    }
}

// MARK: Users

extension NewUser {
    /// The user a create stored.
    package func stored(id: String, tenantId: String, at now: Int64) -> User {
        User(
            id: id,
            tenantId: tenantId,
            externalId: externalId,
            email: email,
            displayName: displayName,
            createdAt: StoreClock.date(now),
            updatedAt: StoreClock.date(now)
        )
    }
}

/// One page of a tenant's users (`users(tenantId:after:limit:externalId:email:)`): oldest first (`created_at`, then
/// `id`), after the cursor user, narrowed by the exact filters. Both backends bind `?` placeholders in order, so the
/// condition text is the same in either dialect; each binds `values` its own way.
package struct UserPage: Sendable {
    /// A value bound to one placeholder of `conditions`.
    package enum Value: Sendable, Hashable {
        case text(String)
        case integer(Int64)
    }

    /// The `WHERE` conditions, joined with `AND`.
    package private(set) var conditions: [String]
    /// The values of the conditions' placeholders, in order (the `LIMIT` is the backend's to add last).
    package private(set) var values: [Value]

    /// - Parameter cursor: the `created_at` of the user named by `after`, read by the backend; `nil` when `after` is.
    /// - Throws: `GatewayError(.notFound)` when `after` names no user of the tenant (`cursor` is `nil`).
    package init(tenantId: String, after: String?, cursor: Int64?, externalId: String?, email: String?) throws {
        conditions = ["tenant_id = ?"]
        values = [.text(tenantId)]
        if let after {
            guard let cursor else { throw Self.unknownCursor(after) }
            conditions.append("(created_at > ? OR (created_at = ? AND id > ?))")
            values += [.integer(cursor), .integer(cursor), .text(after)]
        }
        if let externalId {
            conditions.append("external_id = ?")
            values.append(.text(externalId))
        }
        if let email {
            conditions.append("email = ?")
            values.append(.text(email))
        }
    }

    /// The conditions as one `WHERE` clause's text.
    package var whereClause: String { conditions.joined(separator: " AND ") }

    static func unknownCursor(_ after: String) -> GatewayError {
        GatewayError(
            .notFound,
            "no user '\(after)' to list after",
            details: [FieldProblem(field: "after", problem: "names no user of this tenant")]
        )
    }
}

// MARK: API keys

/// One attempt at issuing an API key: a fresh key and the columns of its row. Only the hash of the secret is
/// stored; the plaintext goes back to the caller once.
package struct APIKeyIssue: Sendable {
    /// The key's id (`key_…`), the lookup part of the plaintext.
    package let keyId: String
    /// The SHA-256 of the secret, as stored.
    package let hash: Data
    /// The scopes as stored (`read,trade`).
    package let scopesText: String
    /// When it is issued, in milliseconds (`StoreClock`).
    package let createdAt: Int64
    let plaintext: String

    init(_ key: APIKeySecret, scopesText: String, createdAt: Int64) {
        keyId = key.keyId
        hash = Data(key.hash)
        plaintext = key.plaintext
        self.scopesText = scopesText
        self.createdAt = createdAt
    }
}

extension StoreRules {
    /// How many fresh key ids an issue tries: the lookup part has 60 random bits, so a collision is all but
    /// impossible, but costs only a retry.
    package static let apiKeyIssueAttempts = 3

    /// Issues a key `bgw_<lookup>_<secret>`: `insert` writes one attempt's row (and its audit record) in the backend's
    /// transaction; an attempt that fails with a `conflict` (an id collision) is retried with a fresh key, at most
    /// `apiKeyIssueAttempts` times, then an internal error, since repeated collisions mean something else is wrong.
    package static func issueAPIKey(
        tenantId: String,
        label: String,
        scopes: [String],
        userId: String?,
        insert: (APIKeyIssue) async throws -> Void
    ) async throws -> IssuedAPIKey {
        let scopesText = scopes.joined(separator: ",")
        for _ in 0..<apiKeyIssueAttempts {
            let issue = APIKeyIssue(APIKeySecret.generate(), scopesText: scopesText, createdAt: StoreClock.nowMillis())
            do {
                try await insert(issue)
            } catch let error as GatewayError where error.code == .conflict {
                continue
            }
            let info = APIKeyInfo(
                id: issue.keyId,
                tenantId: tenantId,
                label: label,
                scopes: scopeNames(scopesText),
                userId: userId,
                createdAt: StoreClock.date(issue.createdAt)
            )
            return IssuedAPIKey(id: issue.keyId, tenantId: tenantId, plaintext: issue.plaintext, info: info)
        }
        throw GatewayError(.internalError, "an API key could not be issued")
    }
}

// MARK: Connections

extension NewConnection {
    /// The connection a create stored (its status detail starts empty).
    package func stored(id: String, tenantId: String, userId: String?, at now: Int64) -> ConnectionDescriptor {
        ConnectionDescriptor(
            id: id,
            tenantId: tenantId,
            userId: userId,
            broker: broker,
            displayName: displayName,
            baseURL: baseURL,
            settings: settings,
            status: status,
            statusDetail: nil,
            createdAt: StoreClock.date(now),
            updatedAt: StoreClock.date(now)
        )
    }
}

// MARK: Watchlists

/// A watchlist create's columns: the name validated (`StoreRules.validatedWatchlistName`) and the instruments as
/// their JSON column.
package struct WatchlistWrite: Sendable {
    /// The trimmed, validated name.
    package let name: String
    /// The instruments as written.
    package let instruments: [Instrument]
    /// The instruments' JSON column text.
    package let instrumentsJSON: String

    /// - Throws: `GatewayError(.invalidRequest)` for a bad name.
    package init(name: String, instruments: [Instrument]) throws {
        self.name = try StoreRules.validatedWatchlistName(name)
        self.instruments = instruments
        instrumentsJSON = try StoreRules.encodeJSON(instruments)
    }

    /// The message of a unique-name failure of this write.
    package var conflict: String { StoreRules.watchlistNameConflict(name) }

    /// The watchlist a create stored (a gateway-side list belongs to no connection).
    package func stored(id: String, at now: Int64) -> Watchlist {
        Watchlist(
            id: id,
            name: name,
            instruments: instruments,
            connectionId: nil,
            createdAt: StoreClock.date(now),
            updatedAt: StoreClock.date(now)
        )
    }
}

/// A watchlist update's columns: each `nil` keeps the stored value (the SQL's `COALESCE`), a new name is validated.
package struct WatchlistChange: Sendable {
    /// The trimmed, validated new name; `nil` keeps the name.
    package let name: String?
    /// The new instruments' JSON column text; `nil` keeps them.
    package let instrumentsJSON: String?

    /// - Throws: `GatewayError(.invalidRequest)` for a bad name.
    package init(name: String?, instruments: [Instrument]?) throws {
        self.name = try name.map(StoreRules.validatedWatchlistName)
        instrumentsJSON = try instruments.map(StoreRules.encodeJSON)
    }

    /// The message of a unique-name failure of this write; `nil` when it keeps the name.
    package var conflict: String? { name.map(StoreRules.watchlistNameConflict) }
}

// MARK: Goals

/// A goal write's columns (create and update set the same ones): the name validated, the target as decimal text,
/// the allocations as their JSON column.
package struct GoalWrite: Sendable {
    /// The draft as the user set it.
    package let draft: GoalDraft
    /// The trimmed, validated name.
    package let name: String
    /// The target value as stored decimal text.
    package let targetValueText: String
    /// The allocations' JSON column text.
    package let allocationsJSON: String

    /// - Throws: `GatewayError(.invalidRequest)` for a bad name.
    package init(_ draft: GoalDraft) throws {
        self.draft = draft
        name = try StoreRules.validatedGoalName(draft.name)
        targetValueText = DecimalText.format(draft.targetValue)
        allocationsJSON = try StoreRules.encodeJSON(draft.allocations)
    }

    /// The message of a unique-name failure of this write.
    package var conflict: String { StoreRules.goalNameConflict(name) }

    /// The goal a create stored.
    package func stored(id: String, at now: Int64) -> Goal {
        Goal(
            id: id,
            name: name,
            targetValue: draft.targetValue,
            currency: draft.currency,
            allocations: draft.allocations,
            createdAt: StoreClock.date(now),
            updatedAt: StoreClock.date(now)
        )
    }
}

// MARK: Alerts

/// An alert write's columns (create and update set the same ones): the name trimmed, the rule and channels as
/// their JSON columns.
package struct AlertWrite: Sendable {
    /// The draft as the user set it.
    package let draft: AlertDraft
    /// The name trimmed of surrounding whitespace (the API checked its length).
    package let name: String?
    /// The rule's JSON column text.
    package let rule: String
    /// The channels' JSON column text.
    package let channels: String

    /// - Throws: `GatewayError(.internalError)` when a value cannot be encoded.
    package init(_ draft: AlertDraft) throws {
        self.draft = draft
        name = draft.name.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        rule = try StoreRules.encodeJSON(draft.rule)
        channels = try StoreRules.encodeJSON(draft.channels)
    }

    /// The alert a create stored: armed, as every new or changed alert is.
    package func stored(id: String, at now: Int64) -> Alert {
        Alert(
            id: id,
            name: name,
            rule: draft.rule,
            channels: draft.channels,
            enabled: draft.enabled,
            rearm: draft.rearm,
            armed: true,
            createdAt: StoreClock.date(now),
            updatedAt: StoreClock.date(now)
        )
    }
}

// MARK: The order journal

/// A listing of journaled orders by state (of one tenant, or of all for the reconciler): oldest `created_at`
/// first, then by id, at most `limit`. `nil` when nothing can match (no state, or a limit below 1), so a backend
/// answers `[]` without a query.
package struct JournalListing: Sendable {
    /// The tenant whose orders are listed; `nil` for every tenant's.
    package let tenantId: String?
    /// The states' stored values, distinct and sorted (the statement text depends only on their count).
    package let states: [String]
    /// The most orders listed.
    package let limit: Int

    package init?(tenantId: String?, _ states: [JournalState], limit: Int) {
        let states = Set(states.map(\.rawValue)).sorted()
        guard !states.isEmpty, limit > 0 else { return nil }
        self.tenantId = tenantId
        self.states = states
        self.limit = limit
    }

    /// The condition on the tenant, or nothing for every tenant's orders.
    package var tenantCondition: String { tenantId == nil ? "" : "tenant_id = ? AND " }
}

// MARK: Push tokens

extension Device {
    /// Whether the device already holds this token for this platform, active: then registering it again changes
    /// nothing and the store answers the device as it is.
    package func holdsActivePushToken(_ token: String, platform: PushPlatform) -> Bool {
        guard let current = pushToken else { return false }
        return current.token == token && current.platform == platform && current.active
    }
}

// MARK: Alert limits

extension StoreRules {
    /// A create when the user already has `count` alerts: `unprocessable` at the limit, so one user cannot make the
    /// evaluator's work unbounded. Backends count under the lock that serializes the user's creates.
    package static func requireRoomForAlert(count: Int, limit: Int) throws {
        if count >= limit { throw alertLimitError(limit) }
    }
}
