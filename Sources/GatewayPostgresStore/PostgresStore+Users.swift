import Foundation
import GatewayCore
import GatewayModel
public import GatewayStore
import PostgresNIO

extension PostgresStore {
    static let userColumns = "id, tenant_id, external_id, email, display_name, created_at, updated_at"

    /// Implements `UserStore.createUser(tenantId:_:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func createUser(tenantId: String, _ user: NewUser, audit: AuditRecord?) async throws -> User {
        let id = StoreIdentifier.make(StoreIdentifier.user)
        return try await write("createUser", conflict: "another user of this tenant has this external id or email") { db in
            try await Self.lockTenant(db, tenantId)
            try await Self.requireFreeUserFields(
                db,
                tenantId: tenantId,
                externalId: user.externalId,
                email: user.email,
                except: nil
            )
            let now = try await Self.creationTime(db, in: "users", tenantId: tenantId)
            try await db.execute(
                """
                INSERT INTO users (id, tenant_id, external_id, email, display_name, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [id, tenantId, user.externalId, user.email, user.displayName, now, now]
            )
            if let audit { try await Self.insertAudit(db, audit.targeting(id), at: now) }
            return user.stored(id: id, tenantId: tenantId, at: now)
        }
    }

    /// Implements `UserStore.users(tenantId:after:limit:externalId:email:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func users(
        tenantId: String,
        after: String?,
        limit: Int,
        externalId: String?,
        email: String?
    ) async throws -> [User] {
        try await read("users") { db in
            var cursor: Int64?
            if let after {
                cursor = try await db.row("SELECT created_at FROM users WHERE tenant_id = ? AND id = ?", [tenantId, after])?
                    .int64("created_at")
            }
            let page = try UserPage(tenantId: tenantId, after: after, cursor: cursor, externalId: externalId, email: email)
            return try await db.rows(
                "SELECT \(Self.userColumns) FROM users WHERE \(page.whereClause) ORDER BY created_at, id LIMIT ?",
                page.values.map(Self.argument) + [limit]
            ).map(User.init(row:))
        }
    }

    /// A shared condition's value as postgres-nio binds it.
    static func argument(_ value: UserPage.Value) -> any SQLArgument {
        switch value {
        case .text(let text): text
        case .integer(let integer): integer
        }
    }

    /// Implements `UserStore.user(tenantId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func user(tenantId: String, id: String) async throws -> User? {
        try await read("user") { db in try await Self.fetchUser(db, tenantId: tenantId, id: id) }
    }

    /// Implements `UserStore.updateUser(tenantId:id:_:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func updateUser(tenantId: String, id: String, _ update: UserUpdate) async throws -> User? {
        let now = StoreClock.nowMillis()
        return try await write("updateUser", conflict: "another user of this tenant has this external id or email") { db in
            guard try await db.row("SELECT 1 FROM users WHERE tenant_id = ? AND id = ? FOR UPDATE", [tenantId, id]) != nil
            else { return nil }
            try await Self.requireFreeUserFields(
                db,
                tenantId: tenantId,
                externalId: update.externalId.value,
                email: update.email.value,
                except: id
            )
            var assignments: [String] = []
            var arguments: [any SQLArgument] = []
            for (column, change) in [
                ("external_id", update.externalId), ("email", update.email), ("display_name", update.displayName),
            ] {
                switch change {
                case .keep: continue
                case .set(let value):
                    assignments.append("\(column) = ?")
                    arguments.append(value)
                case .clear:
                    assignments.append("\(column) = NULL")
                }
            }
            assignments.append("updated_at = GREATEST(?, updated_at + 1)")
            arguments += [now, tenantId, id]
            return try await db.row(
                """
                UPDATE users SET \(assignments.joined(separator: ", ")) WHERE tenant_id = ? AND id = ?
                RETURNING \(Self.userColumns)
                """,
                arguments
            ).map(User.init(row:))
        }
    }

    /// Implements `UserStore.deleteUser(tenantId:id:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func deleteUser(tenantId: String, id: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("deleteUser") { db in
            guard try await db.row("SELECT 1 FROM users WHERE tenant_id = ? AND id = ? FOR UPDATE", [tenantId, id]) != nil
            else { return false }
            try await db.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND user_id = ? AND revoked_at IS NULL",
                [now, tenantId, id]
            )
            try await db.execute("DELETE FROM users WHERE tenant_id = ? AND id = ?", [tenantId, id])
            if let audit { try await Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    /// Under the tenant's lock, so two instances asking at once for a tenant without users make one user.
    public func defaultUser(tenantId: String) async throws -> User {
        try await write("defaultUser") { db in
            try await Self.lockTenant(db, tenantId)
            if let oldest = try await db.row(
                "SELECT \(Self.userColumns) FROM users WHERE tenant_id = ? ORDER BY created_at, id LIMIT 1",
                [tenantId]
            ).map(User.init(row:)) {
                return oldest
            }
            let id = StoreIdentifier.make(StoreIdentifier.user)
            let now = StoreClock.nowMillis()
            try await db.execute(
                """
                INSERT INTO users (id, tenant_id, external_id, display_name, created_at, updated_at)
                VALUES (?, ?, 'default', 'Default user', ?, ?)
                """,
                [id, tenantId, now, now]
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

    static func fetchUser(_ db: PostgresSQL, tenantId: String, id: String) async throws -> User? {
        try await db.row("SELECT \(userColumns) FROM users WHERE tenant_id = ? AND id = ?", [tenantId, id])
            .map(User.init(row:))
    }

    static func requireUser(_ db: PostgresSQL, tenantId: String, _ userId: String) async throws {
        guard try await db.row("SELECT 1 FROM users WHERE tenant_id = ? AND id = ?", [tenantId, userId]) != nil else {
            throw GatewayError(.notFound, "no user '\(userId)'")
        }
    }

    /// Checked before writing for a clear message naming the field; the unique indexes are the backstop of a race
    /// (then the message is the write's `conflict`).
    static func requireFreeUserFields(
        _ db: PostgresSQL,
        tenantId: String,
        externalId: String?,
        email: String?,
        except id: String?
    ) async throws {
        var problems: [FieldProblem] = []
        for (field, column, value) in [("externalId", "external_id", externalId), ("email", "email", email)] {
            guard let value else { continue }
            let holder = try await db.row(
                "SELECT id FROM users WHERE tenant_id = ? AND \(column) = ?",
                [tenantId, value]
            )?.string("id")
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
