import Foundation
import GatewayCore
public import GatewayModel
public import GatewayStore
import PostgresNIO

extension PostgresStore {
    static let goalColumns = "id, name, target_value, currency, allocations, created_at, updated_at"

    /// Implements `GoalStore.goals(tenantId:userId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func goals(tenantId: String, userId: String) async throws -> [Goal] {
        try await userRows("goals", of: "goals", columns: Self.goalColumns, tenantId: tenantId, userId: userId, Goal.init(row:))
    }

    /// Implements `GoalStore.goal(tenantId:userId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func goal(tenantId: String, userId: String, id: String) async throws -> Goal? {
        try await read("goal") { db in try await Self.fetchGoal(db, tenantId: tenantId, userId: userId, id: id) }
    }

    /// Implements `GoalStore.createGoal(tenantId:userId:_:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func createGoal(tenantId: String, userId: String, _ draft: GoalDraft, audit: AuditRecord?) async throws -> Goal {
        let goal = try GoalWrite(draft)
        let id = StoreIdentifier.make(StoreIdentifier.goal)
        return try await write("createGoal", conflict: goal.conflict) { db in
            try await Self.lockTenant(db, tenantId)
            try await Self.requireUser(db, tenantId: tenantId, userId)
            try await Self.requireFreeGoalName(db, tenantId: tenantId, userId: userId, goal, except: nil)
            try await Self.requireUnchangedGoals(db, tenantId: tenantId, userId: userId, except: nil, draft.checkedAgainst)
            let now = try await Self.creationTime(db, in: "goals", tenantId: tenantId)
            try await db.execute(
                """
                INSERT INTO goals (id, tenant_id, user_id, name, target_value, currency, allocations, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [id, tenantId, userId, goal.name, goal.targetValueText, draft.currency, goal.allocationsJSON, now, now]
            )
            if let audit { try await Self.insertAudit(db, audit.targeting(id), at: now) }
            return goal.stored(id: id, at: now)
        }
    }

    /// Implements `GoalStore.updateGoal(tenantId:userId:id:_:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
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
            // The tenant's lock serializes goal writes, so the goals checked against stay so until this commits.
            try await Self.lockTenant(db, tenantId)
            guard
                try await db.row(
                    "SELECT 1 FROM goals WHERE tenant_id = ? AND user_id = ? AND id = ? FOR UPDATE",
                    [tenantId, userId, id]
                )
                    != nil
            else { return nil }
            try await Self.requireFreeGoalName(db, tenantId: tenantId, userId: userId, goal, except: id)
            try await Self.requireUnchangedGoals(db, tenantId: tenantId, userId: userId, except: id, draft.checkedAgainst)
            let updated = try await db.row(
                """
                UPDATE goals
                SET name = ?, target_value = ?, currency = ?, allocations = ?, updated_at = GREATEST(?, updated_at + 1)
                WHERE tenant_id = ? AND user_id = ? AND id = ?
                RETURNING \(Self.goalColumns)
                """,
                [goal.name, goal.targetValueText, draft.currency, goal.allocationsJSON, now, tenantId, userId, id]
            ).map(Goal.init(row:))
            if updated != nil, let audit { try await Self.insertAudit(db, audit, at: now) }
            return updated
        }
    }

    /// Implements `GoalStore.deleteGoal(tenantId:userId:id:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func deleteGoal(tenantId: String, userId: String, id: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("deleteGoal") { db in
            let deleted =
                try await db.count(
                    "DELETE FROM goals WHERE tenant_id = ? AND user_id = ? AND id = ? RETURNING id",
                    [tenantId, userId, id]
                ) > 0
            if deleted, let audit { try await Self.insertAudit(db, audit, at: now) }
            return deleted
        }
    }

    static func fetchGoal(_ db: PostgresSQL, tenantId: String, userId: String, id: String) async throws -> Goal? {
        try await userRow(db, of: "goals", columns: goalColumns, tenantId: tenantId, userId: userId, id: id, Goal.init(row:))
    }

    /// Called under the tenant's lock (`lockTenant`), which every goal write takes first.
    static func requireUnchangedGoals(
        _ db: PostgresSQL,
        tenantId: String,
        userId: String,
        except id: String?,
        _ basis: [Goal]?
    ) async throws {
        guard let basis else { return }
        let current = try await db.rows(
            "SELECT \(goalColumns) FROM goals WHERE tenant_id = ? AND user_id = ? AND id <> ? ORDER BY created_at, id",
            [tenantId, userId, id ?? ""]
        ).map(Goal.init(row:))
        try StoreRules.requireUnchangedGoals(current, basis)
    }

    static func requireFreeGoalName(
        _ db: PostgresSQL,
        tenantId: String,
        userId: String,
        _ goal: GoalWrite,
        except id: String?
    ) async throws {
        try await requireFreeName(
            db,
            in: "goals",
            tenantId: tenantId,
            userId: userId,
            name: goal.name,
            except: id,
            conflict: goal.conflict
        )
    }
}
