import Foundation
import GatewayCore
public import GatewayModel
public import GatewayStore
import PostgresNIO

extension PostgresStore {
    static let goalColumns = "id, name, target_value, currency, allocations, created_at, updated_at"

    public func goals(tenantId: String, userId: String) async throws -> [Goal] {
        try await read("goals") { db in
            try await db.rows(
                """
                SELECT \(Self.goalColumns) FROM goals WHERE tenant_id = ? AND user_id = ?
                ORDER BY created_at, id
                """,
                [tenantId, userId]
            ).map(Goal.init(row:))
        }
    }

    public func goal(tenantId: String, userId: String, id: String) async throws -> Goal? {
        try await read("goal") { db in try await Self.fetchGoal(db, tenantId: tenantId, userId: userId, id: id) }
    }

    public func createGoal(tenantId: String, userId: String, _ draft: GoalDraft, audit: AuditRecord?) async throws -> Goal {
        let name = try StoreRules.validatedGoalName(draft.name)
        let allocationsJSON = try StoreRules.encodeJSON(draft.allocations)
        let id = StoreIdentifier.make(StoreIdentifier.goal)
        return try await write("createGoal", conflict: StoreRules.goalNameConflict(name)) { db in
            try await Self.lockTenant(db, tenantId)
            try await Self.requireUser(db, tenantId: tenantId, userId)
            try await Self.requireFreeGoalName(db, tenantId: tenantId, userId: userId, name: name, except: nil)
            try await Self.requireUnchangedGoals(db, tenantId: tenantId, userId: userId, except: nil, draft.checkedAgainst)
            let newest = try await db.row(
                "SELECT MAX(created_at) AS newest FROM goals WHERE tenant_id = ?",
                [tenantId]
            )?.optionalInt64("newest")
            let now = StoreClock.millis(after: newest)
            try await db.execute(
                """
                INSERT INTO goals (id, tenant_id, user_id, name, target_value, currency, allocations, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [id, tenantId, userId, name, DecimalText.format(draft.targetValue), draft.currency, allocationsJSON, now, now]
            )
            if var audit {
                audit.target = id
                try await Self.insertAudit(db, audit, at: now)
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
            // The tenant's lock serializes goal writes, so the goals checked against stay so until this commits.
            try await Self.lockTenant(db, tenantId)
            guard
                try await db.row(
                    "SELECT 1 FROM goals WHERE tenant_id = ? AND user_id = ? AND id = ? FOR UPDATE",
                    [tenantId, userId, id]
                )
                    != nil
            else { return nil }
            try await Self.requireFreeGoalName(db, tenantId: tenantId, userId: userId, name: name, except: id)
            try await Self.requireUnchangedGoals(db, tenantId: tenantId, userId: userId, except: id, draft.checkedAgainst)
            let updated = try await db.row(
                """
                UPDATE goals
                SET name = ?, target_value = ?, currency = ?, allocations = ?, updated_at = GREATEST(?, updated_at + 1)
                WHERE tenant_id = ? AND user_id = ? AND id = ?
                RETURNING \(Self.goalColumns)
                """,
                [name, DecimalText.format(draft.targetValue), draft.currency, allocationsJSON, now, tenantId, userId, id]
            ).map(Goal.init(row:))
            if updated != nil, let audit { try await Self.insertAudit(db, audit, at: now) }
            return updated
        }
    }

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
        try await db.row(
            "SELECT \(goalColumns) FROM goals WHERE tenant_id = ? AND user_id = ? AND id = ?",
            [tenantId, userId, id]
        ).map(Goal.init(row:))
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
        if current != basis { throw GatewayError(.conflict, GoalDraft.goalsChangedMessage, retryable: true) }
    }

    static func requireFreeGoalName(
        _ db: PostgresSQL,
        tenantId: String,
        userId: String,
        name: String,
        except id: String?
    ) async throws {
        let taken = try await db.row(
            "SELECT id FROM goals WHERE tenant_id = ? AND user_id = ? AND name = ?",
            [tenantId, userId, name]
        )?.string("id")
        if let taken, taken != id {
            throw GatewayError(.conflict, StoreRules.goalNameConflict(name))
        }
    }
}
