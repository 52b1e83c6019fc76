package import Foundation
import GRDB
import GatewayCore
public import GatewayModel
public import GatewayStore

extension SQLiteStore {
    static let goalColumns = "id, name, target_value, currency, allocations, created_at, updated_at"

    /// The user's goals, oldest first.
    public func goals(tenantId: String, userId: String) async throws -> [Goal] {
        try await userRows("goals", of: "goals", columns: Self.goalColumns, tenantId: tenantId, userId: userId, Goal.init(row:))
    }

    /// Implements `GoalStore.goal(tenantId:userId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func goal(tenantId: String, userId: String, id: String) async throws -> Goal? {
        try await read("goal") { db in try Self.fetchGoal(db, tenantId: tenantId, userId: userId, id: id) }
    }

    /// - Throws: `GatewayError(.invalidRequest)` for a bad name, `.conflict` for a name the user already uses,
    ///   `.notFound` for an unknown tenant or user.
    public func createGoal(tenantId: String, userId: String, _ draft: GoalDraft, audit: AuditRecord?) async throws -> Goal {
        let goal = try GoalWrite(draft)
        let id = StoreIdentifier.make(StoreIdentifier.goal)
        return try await write("createGoal", conflict: goal.conflict) { db in
            try Self.requireTenant(db, tenantId)
            try Self.requireUser(db, tenantId: tenantId, userId)
            try Self.requireFreeGoalName(db, tenantId: tenantId, userId: userId, goal, except: nil)
            try Self.requireUnchangedGoals(db, tenantId: tenantId, userId: userId, except: nil, draft.checkedAgainst)
            let now = try Self.creationTime(db, in: "goals", tenantId: tenantId)
            try db.execute(
                sql: """
                    INSERT INTO goals (id, tenant_id, user_id, name, target_value, currency, allocations, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, tenantId, userId, goal.name, goal.targetValueText, draft.currency, goal.allocationsJSON, now, now]
            )
            if let audit { try Self.insertAudit(db, audit.targeting(id), at: now) }
            return goal.stored(id: id, at: now)
        }
    }

    /// Implements `GoalStore.updateGoal(tenantId:userId:id:_:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func updateGoal(
        tenantId: String,
        userId: String,
        id: String,
        _ draft: GoalDraft,
        audit: AuditRecord?
    ) async throws -> Goal? {
        let goal = try GoalWrite(draft)
        let now = StoreClock.nowMillis()
        return try await write("updateGoal", conflict: goal.conflict) { db in
            guard try Self.fetchGoal(db, tenantId: tenantId, userId: userId, id: id) != nil else { return nil }
            try Self.requireFreeGoalName(db, tenantId: tenantId, userId: userId, goal, except: id)
            try Self.requireUnchangedGoals(db, tenantId: tenantId, userId: userId, except: id, draft.checkedAgainst)
            try db.execute(
                sql: """
                    UPDATE goals
                    SET name = ?, target_value = ?, currency = ?, allocations = ?, updated_at = MAX(?, updated_at + 1)
                    WHERE tenant_id = ? AND user_id = ? AND id = ?
                    """,
                arguments: [goal.name, goal.targetValueText, draft.currency, goal.allocationsJSON, now, tenantId, userId, id]
            )
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return try Self.fetchGoal(db, tenantId: tenantId, userId: userId, id: id)
        }
    }

    /// Implements `GoalStore.deleteGoal(tenantId:userId:id:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
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
        try userRow(db, of: "goals", columns: goalColumns, tenantId: tenantId, userId: userId, id: id, Goal.init(row:))
    }

    static func requireFreeGoalName(_ db: Database, tenantId: String, userId: String, _ goal: GoalWrite, except id: String?) throws {
        try requireFreeName(
            db,
            in: "goals",
            tenantId: tenantId,
            userId: userId,
            name: goal.name,
            except: id,
            conflict: goal.conflict
        )
    }

    /// SQLite writes one transaction at a time, so what this reads stays so until the write commits.
    static func requireUnchangedGoals(_ db: Database, tenantId: String, userId: String, except id: String?, _ basis: [Goal]?) throws {
        guard let basis else { return }
        let current = try Row.fetchAll(
            db,
            sql: "SELECT \(goalColumns) FROM goals WHERE tenant_id = ? AND user_id = ? AND id <> ? ORDER BY created_at, id",
            arguments: [tenantId, userId, id ?? ""]
        ).map(Goal.init(row:))
        try StoreRules.requireUnchangedGoals(current, basis)
    }

}
