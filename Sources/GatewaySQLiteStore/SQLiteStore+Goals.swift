package import Foundation
import GRDB
import GatewayCore
public import GatewayModel
public import GatewayStore

extension SQLiteStore {
    static let goalColumns = "id, name, target_value, currency, allocations, created_at, updated_at"

    /// The user's goals, oldest first.
    public func goals(tenantId: String, userId: String) async throws -> [Goal] {
        try await read("goals") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.goalColumns) FROM goals WHERE tenant_id = ? AND user_id = ?
                    ORDER BY created_at, id
                    """,
                arguments: [tenantId, userId]
            ).map(Goal.init(row:))
        }
    }

    public func goal(tenantId: String, userId: String, id: String) async throws -> Goal? {
        try await read("goal") { db in try Self.fetchGoal(db, tenantId: tenantId, userId: userId, id: id) }
    }

    /// - Throws: `GatewayError(.invalidRequest)` for a bad name, `.conflict` for a name the user already uses,
    ///   `.notFound` for an unknown tenant or user.
    public func createGoal(tenantId: String, userId: String, _ draft: GoalDraft, audit: AuditRecord?) async throws -> Goal {
        let name = try StoreRules.validatedGoalName(draft.name)
        let allocationsJSON = try StoreRules.encodeJSON(draft.allocations)
        let id = StoreIdentifier.make(StoreIdentifier.goal)
        return try await write("createGoal", conflict: StoreRules.goalNameConflict(name)) { db in
            try Self.requireTenant(db, tenantId)
            try Self.requireUser(db, tenantId: tenantId, userId)
            try Self.requireFreeGoalName(db, tenantId: tenantId, userId: userId, name: name, except: nil)
            try Self.requireUnchangedGoals(db, tenantId: tenantId, userId: userId, except: nil, draft.checkedAgainst)
            let newest = try Int64.fetchOne(
                db,
                sql: "SELECT MAX(created_at) FROM goals WHERE tenant_id = ?",
                arguments: [tenantId]
            )
            let now = StoreClock.millis(after: newest)
            try db.execute(
                sql: """
                    INSERT INTO goals (id, tenant_id, user_id, name, target_value, currency, allocations, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, tenantId, userId, name, DecimalText.format(draft.targetValue), draft.currency, allocationsJSON, now,
                    now,
                ]
            )
            if var audit {
                audit.target = id
                try Self.insertAudit(db, audit, at: now)
            }
            return Goal(
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

    public func updateGoal(
        tenantId: String,
        userId: String,
        id: String,
        _ draft: GoalDraft,
        audit: AuditRecord?
    ) async throws -> Goal? {
        let name = try StoreRules.validatedGoalName(draft.name)
        let allocationsJSON = try StoreRules.encodeJSON(draft.allocations)
        let now = StoreClock.nowMillis()
        return try await write("updateGoal", conflict: StoreRules.goalNameConflict(name)) { db in
            guard try Self.fetchGoal(db, tenantId: tenantId, userId: userId, id: id) != nil else { return nil }
            try Self.requireFreeGoalName(db, tenantId: tenantId, userId: userId, name: name, except: id)
            try Self.requireUnchangedGoals(db, tenantId: tenantId, userId: userId, except: id, draft.checkedAgainst)
            try db.execute(
                sql: """
                    UPDATE goals
                    SET name = ?, target_value = ?, currency = ?, allocations = ?, updated_at = MAX(?, updated_at + 1)
                    WHERE tenant_id = ? AND user_id = ? AND id = ?
                    """,
                arguments: [
                    name, DecimalText.format(draft.targetValue), draft.currency, allocationsJSON, now, tenantId, userId, id,
                ]
            )
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return try Self.fetchGoal(db, tenantId: tenantId, userId: userId, id: id)
        }
    }

    public func deleteGoal(tenantId: String, userId: String, id: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("deleteGoal") { db in
            try db.execute(
                sql: "DELETE FROM goals WHERE tenant_id = ? AND user_id = ? AND id = ?",
                arguments: [tenantId, userId, id]
            )
            guard db.changesCount > 0 else { return false }
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    static func fetchGoal(_ db: Database, tenantId: String, userId: String, id: String) throws -> Goal? {
        try Row.fetchOne(
            db,
            sql: "SELECT \(goalColumns) FROM goals WHERE tenant_id = ? AND user_id = ? AND id = ?",
            arguments: [tenantId, userId, id]
        ).map(Goal.init(row:))
    }

    /// Checked before writing for a clear message; the unique index is the backstop against a race.
    static func requireFreeGoalName(_ db: Database, tenantId: String, userId: String, name: String, except id: String?) throws {
        let taken = try String.fetchOne(
            db,
            sql: "SELECT id FROM goals WHERE tenant_id = ? AND user_id = ? AND name = ?",
            arguments: [tenantId, userId, name]
        )
        if let taken, taken != id {
            throw GatewayError(.conflict, StoreRules.goalNameConflict(name))
        }
    }

    /// SQLite writes one transaction at a time, so what this reads stays so until the write commits.
    static func requireUnchangedGoals(_ db: Database, tenantId: String, userId: String, except id: String?, _ basis: [Goal]?) throws {
        guard let basis else { return }
        let current = try Row.fetchAll(
            db,
            sql: "SELECT \(goalColumns) FROM goals WHERE tenant_id = ? AND user_id = ? AND id <> ? ORDER BY created_at, id",
            arguments: [tenantId, userId, id ?? ""]
        ).map(Goal.init(row:))
        if current != basis { throw GatewayError(.conflict, GoalDraft.goalsChangedMessage, retryable: true) }
    }

}
