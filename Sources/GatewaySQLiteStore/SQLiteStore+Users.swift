import Foundation
import GRDB
import GatewayCore
import GatewayModel
public import GatewayStore

extension SQLiteStore {
    static let userColumns = "id, tenant_id, external_id, email, display_name, created_at, updated_at"

    /// - Throws: `GatewayError(.conflict)` naming the field another user of the tenant already has; `.notFound`
    ///   for an unknown tenant.
    public func createUser(tenantId: String, _ user: NewUser, audit: AuditRecord?) async throws -> User {
        let id = StoreIdentifier.make(StoreIdentifier.user)
        return try await write("createUser", conflict: "a user with this id already exists") { db in
            try Self.requireTenant(db, tenantId)
            try Self.requireFreeUserFields(db, tenantId: tenantId, externalId: user.externalId, email: user.email, except: nil)
            let now = try Self.creationTime(db, in: "users", tenantId: tenantId)
            try db.execute(
                sql: """
                    INSERT INTO users (id, tenant_id, external_id, email, display_name, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, tenantId, user.externalId, user.email, user.displayName, now, now]
            )
            if let audit { try Self.insertAudit(db, audit.targeting(id), at: now) }
            return user.stored(id: id, tenantId: tenantId, at: now)
        }
    }

    /// Oldest first (`created_at`, then `id`); `after` is the last user of the previous page.
    /// - Throws: `GatewayError(.notFound)` when `after` names no user of the tenant.
    public func users(
        tenantId: String,
        after: String?,
        limit: Int,
        externalId: String?,
        email: String?
    ) async throws -> [User] {
        try await read("users") { db in
            let cursor = try after.flatMap { after in
                try Int64.fetchOne(db, sql: "SELECT created_at FROM users WHERE tenant_id = ? AND id = ?", arguments: [tenantId, after])
            }
            let page = try UserPage(tenantId: tenantId, after: after, cursor: cursor, externalId: externalId, email: email)
            return try Row.fetchAll(
                db,
                sql: "SELECT \(Self.userColumns) FROM users WHERE \(page.whereClause) ORDER BY created_at, id LIMIT ?",
                arguments: StatementArguments(page.values.map(Self.argument)) + [limit]
            ).map(User.init(row:))
        }
    }

    /// A shared condition's value as GRDB binds it.
    static func argument(_ value: UserPage.Value) -> any DatabaseValueConvertible {
        switch value {
        case .text(let text): text
        case .integer(let integer): integer
        }
    }

    /// Implements `UserStore.user(tenantId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func user(tenantId: String, id: String) async throws -> User? {
        try await read("user") { db in try Self.fetchUser(db, tenantId: tenantId, id: id) }
    }

    /// Implements `UserStore.updateUser(tenantId:id:_:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func updateUser(tenantId: String, id: String, _ update: UserUpdate) async throws -> User? {
        let now = StoreClock.nowMillis()
        return try await write("updateUser", conflict: "another user of this tenant has this external id or email") { db in
            guard try Self.fetchUser(db, tenantId: tenantId, id: id) != nil else { return nil }
            try Self.requireFreeUserFields(
                db,
                tenantId: tenantId,
                externalId: update.externalId.value,
                email: update.email.value,
                except: id
            )
            var assignments: [String] = []
            var arguments: StatementArguments = []
            for (column, change) in [("external_id", update.externalId), ("email", update.email), ("display_name", update.displayName)] {
                switch change {
                case .keep: continue
                case .set(let value):
                    assignments.append("\(column) = ?")
                    arguments += [value]
                case .clear:
                    assignments.append("\(column) = NULL")
                }
            }
            assignments.append("updated_at = MAX(?, updated_at + 1)")
            arguments += [now, tenantId, id]
            try db.execute(
                sql: "UPDATE users SET \(assignments.joined(separator: ", ")) WHERE tenant_id = ? AND id = ?",
                arguments: arguments
            )
            return try Self.fetchUser(db, tenantId: tenantId, id: id)
        }
    }

    /// One transaction: keys bound to the user are revoked (and kept, so the key list still shows them), then the
    /// user row goes, and with it, by the schema's cascades, their connections, link states and watchlists (and the
    /// sessions work's devices and sessions). The journal's orders keep their `user_id` (no reference).
    public func deleteUser(tenantId: String, id: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("deleteUser") { db in
            guard try Self.fetchUser(db, tenantId: tenantId, id: id) != nil else { return false }
            try db.execute(
                sql: "UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND user_id = ? AND revoked_at IS NULL",
                arguments: [now, tenantId, id]
            )
            try db.execute(sql: "DELETE FROM users WHERE tenant_id = ? AND id = ?", arguments: [tenantId, id])
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    /// Implements `UserStore.defaultUser(tenantId:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func defaultUser(tenantId: String) async throws -> User {
        try await write("defaultUser") { db in
            try Self.requireTenant(db, tenantId)
            if let oldest = try Row.fetchOne(
                db,
                sql: "SELECT \(Self.userColumns) FROM users WHERE tenant_id = ? ORDER BY created_at, id LIMIT 1",
                arguments: [tenantId]
            ).map(User.init(row:)) {
                return oldest
            }
            let id = StoreIdentifier.make(StoreIdentifier.user)
            let now = StoreClock.nowMillis()
            try db.execute(
                sql: """
                    INSERT INTO users (id, tenant_id, external_id, display_name, created_at, updated_at)
                    VALUES (?, ?, 'default', 'Default user', ?, ?)
                    """,
                arguments: [id, tenantId, now, now]
            )
            return User(
                id: id,
                tenantId: tenantId,
                externalId: "default",
                displayName: "Default user",
                createdAt: StoreClock.date(now),
                updatedAt: StoreClock.date(now)
            )
        }
    }

    static func fetchUser(_ db: Database, tenantId: String, id: String) throws -> User? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(userColumns) FROM users WHERE tenant_id = ? AND id = ?"),
            arguments: [tenantId, id]
        ).map(User.init(row:))
    }

    /// Throws `notFound` unless the user is one of the tenant's.
    static func requireUser(_ db: Database, tenantId: String, _ userId: String) throws {
        guard
            try Bool.fetchOne(
                db,
                sql: "SELECT 1 FROM users WHERE tenant_id = ? AND id = ?",
                arguments: [tenantId, userId]
            ) != nil
        else {
            throw GatewayError(.notFound, "no user '\(userId)'")
        }
    }

    /// Checked before writing for a clear message naming the field; the unique indexes are the backstop of a race.
    static func requireFreeUserFields(
        _ db: Database,
        tenantId: String,
        externalId: String?,
        email: String?,
        except id: String?
    ) throws {
        var problems: [FieldProblem] = []
        for (field, column, value) in [("externalId", "external_id", externalId), ("email", "email", email)] {
            guard let value else { continue }
            let holder = try String.fetchOne(
                db,
                sql: "SELECT id FROM users WHERE tenant_id = ? AND \(column) = ?",
                arguments: [tenantId, value]
            )
            if let holder, holder != id {
                problems.append(FieldProblem(field: field, problem: "another user of this tenant has it"))
            }
        }
        if !problems.isEmpty {
            throw GatewayError(
                .conflict,
                "another user of this tenant has this \(problems.map(\.field).joined(separator: " and "))",
                retryable: false,
                details: problems
            )
        }
    }
}
