public import Foundation
public import GatewayCore
public import GatewayModel
import GatewayStore

/// A read of goals: each with its progress, the overall figure, one status line per connection the goals use, and
/// whether anything is missing (an allocation not valued, or a goal not converted into the overall currency).
public struct GoalsRead: Sendable {
    /// The goals, each with its progress valued now.
    public var goals: [Goal]
    /// All goals together, in the overall currency.
    public var overall: Goal.Overall
    /// One status line per connection the goals' allocations read.
    public var sources: [SourceReport]
    /// Whether any figure is missing: a connection failed, or a value could not be converted.
    public var partial: Bool
}

/// Goals (seed 002): stored per user; their allocations checked against live positions on every write and valued
/// from live positions on every read.
extension PortfolioService {
    /// The user's goals with their progress, and all of them together in `currency` (default: the first goal's,
    /// else USD).
    public func goals(owner: Owner, currency: String?, maxAge: Duration? = nil) async throws -> GoalsRead {
        let requested = try currency.map(Self.currencyCode)
        let goals = try await store.goals(tenantId: owner.tenant.id, userId: owner.userId)
        let overallCurrency = requested ?? goals.first?.currency ?? "USD"
        return try await valued(goals, owner: owner, overallCurrency: overallCurrency, maxAge: maxAge)
    }

    /// One goal with its progress (the overall figure is the goal's own).
    public func goal(owner: Owner, id: String) async throws -> GoalsRead {
        guard let goal = try await store.goal(tenantId: owner.tenant.id, userId: owner.userId, id: id) else {
            throw GatewayError(.notFound, "no goal '\(id)'")
        }
        return try await valued([goal], owner: owner, overallCurrency: goal.currency, maxAge: nil)
    }

    /// Saves a new goal for the user (checked, audited) and answers with it valued at once.
    public func createGoal(owner: Owner, _ input: GoalInput) async throws -> GoalsRead {
        let problems = input.problems(creating: true)
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let goal = try await retryingWhenGoalsChange {
            let others = try await store.goals(tenantId: owner.tenant.id, userId: owner.userId)
            var draft = GoalDraft(
                name: input.name ?? "",
                targetValue: input.targetValue ?? 0,
                currency: (input.currency ?? "").uppercased(),
                allocations: Self.normalized(input.allocations ?? [])
            )
            try Self.requireFreeName(draft.name, among: others)
            if !draft.allocations.isEmpty {
                try await checkAllocations(owner: owner, draft.allocations, others: others)
                draft.checkedAgainst = others
            }
            return try await store.createGoal(
                tenantId: owner.tenant.id,
                userId: owner.userId,
                draft,
                audit: Self.goalAudit(owner, "goal.created", target: nil, name: draft.name)
            )
        }
        return try await valued([goal], owner: owner, overallCurrency: goal.currency, maxAge: nil)
    }

    /// Replaces what the input gives and keeps the rest; allocations given are checked again (what is held may have
    /// changed).
    public func updateGoal(owner: Owner, id: String, _ input: GoalInput) async throws -> GoalsRead {
        let problems = input.problems(creating: false)
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let goal = try await retryingWhenGoalsChange {
            let goals = try await store.goals(tenantId: owner.tenant.id, userId: owner.userId)
            guard let existing = goals.first(where: { $0.id == id }) else { throw GatewayError(.notFound, "no goal '\(id)'") }
            let others = goals.filter { $0.id != id }
            var draft = GoalDraft(
                name: input.name ?? existing.name,
                targetValue: input.targetValue ?? existing.targetValue,
                currency: input.currency?.uppercased() ?? existing.currency,
                allocations: input.allocations.map(Self.normalized) ?? existing.allocations
            )
            try Self.requireFreeName(draft.name, among: others)
            if input.allocations != nil, !draft.allocations.isEmpty {
                try await checkAllocations(owner: owner, draft.allocations, others: others)
                draft.checkedAgainst = others
            }
            guard
                let goal = try await store.updateGoal(
                    tenantId: owner.tenant.id,
                    userId: owner.userId,
                    id: id,
                    draft,
                    audit: Self.goalAudit(owner, "goal.updated", target: id, name: draft.name)
                )
            else {
                throw GatewayError(.notFound, "no goal '\(id)'")
            }
            return goal
        }
        return try await valued([goal], owner: owner, overallCurrency: goal.currency, maxAge: nil)
    }

    /// Runs a checked goal write again when the store says the goals it was checked against changed before it could
    /// be written (another write of the same user's goals won the race); a few times, then the conflict is the answer.
    func retryingWhenGoalsChange(_ write: () async throws -> Goal) async throws -> Goal {
        var attempt = 1
        while true {
            do {
                return try await write()
            } catch let error as GatewayError where error.code == .conflict && error.message == GoalDraft.goalsChangedMessage && attempt < 3 {
                attempt += 1
            }
        }
    }

    /// Deletes one of the user's goals, audited; another user's goal is not found.
    public func deleteGoal(owner: Owner, id: String) async throws {
        let audit = Self.goalAudit(owner, "goal.deleted", target: id, name: nil)
        guard try await store.deleteGoal(tenantId: owner.tenant.id, userId: owner.userId, id: id, audit: audit) else {
            throw GatewayError(.notFound, "no goal '\(id)'")
        }
    }

    /// The audit record of a goal write, written by the store in the same transaction as the write.
    static func goalAudit(_ owner: Owner, _ action: String, target: String?, name: String?) -> AuditRecord {
        var detail = ["userId": owner.userId]
        if let name { detail["name"] = name.trimmingCharacters(in: .whitespacesAndNewlines) }
        return AuditRecord(tenantId: owner.tenant.id, actor: owner.actor, action: action, target: target, detail: detail)
    }

    /// A duplicate name is refused before the brokers are asked anything (the store's unique index is the backstop).
    static func requireFreeName(_ name: String, among others: [Goal]) throws {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if others.contains(where: { $0.name == name }) {
            throw GatewayError(.conflict, "a goal named '\(name)' already exists")
        }
    }

    static func normalized(_ allocations: [Goal.Allocation]) -> [Goal.Allocation] {
        allocations.map { allocation in
            var allocation = allocation
            allocation.symbol = allocation.symbol.uppercased()
            return allocation
        }
    }

    /// Each connection must be the user's and active, and hold what is allocated of it across all the user's goals.
    /// The positions are read now; a broker that cannot be read refuses the write with its error (retryable when
    /// it is), rather than saving what was not checked.
    func checkAllocations(owner: Owner, _ allocations: [Goal.Allocation], others: [Goal]) async throws {
        if allocations.isEmpty { return }
        var connectionIds: [String] = []
        for (index, allocation) in allocations.enumerated() where !connectionIds.contains(allocation.connectionId) {
            _ = try await directory.activeConnection(owner: owner, id: allocation.connectionId, field: "allocations[\(index)].connectionId")
            connectionIds.append(allocation.connectionId)
        }
        var positions: [Position] = []
        for connectionId in connectionIds {
            let read = try await self.reads.positions(owner: owner, Gateway.Selection(connectionId: connectionId, maxAge: .zero))
            if let failed = read.sources.first(where: { $0.status == .error }) {
                let failure = failed.error
                throw GatewayError(
                    failure?.code ?? .upstreamUnavailable,
                    "the positions at \(connectionId) could not be read to check the allocations: \(failure?.message ?? "no answer")",
                    broker: failed.broker,
                    retryable: failure?.retryable ?? true,
                    retryAfter: failure?.retryAfter
                )
            }
            positions += read.data
        }
        let problems = GoalValuation.overAllocation(allocations, others: others, positions: positions)
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
    }

    /// Reads the positions of every connection the goals use and the quotes that convert their currencies, then
    /// values each goal and the whole.
    func valued(_ goals: [Goal], owner: Owner, overallCurrency: String, maxAge: Duration?) async throws -> GoalsRead {
        let used = Set(goals.flatMap { $0.allocations.map(\.connectionId) })
        var positions: [Position] = []
        var sources: [SourceReport] = []
        if !used.isEmpty {
            let read = try await self.reads.positions(owner: owner, Gateway.Selection(maxAge: maxAge))
            sources = read.sources.filter { used.contains($0.connection) }
            positions = read.data.filter { used.contains($0.connectionId) }
        }
        var unavailable: [String: Goal.Problem] = [:]
        for connectionId in used {
            switch sources.first(where: { $0.connection == connectionId })?.status {
            case .ok: break
            case .error: unavailable[connectionId] = .sourceFailed
            case nil: unavailable[connectionId] = .connectionUnavailable
            }
        }

        let targets = Set(goals.map(\.currency)).union([overallCurrency])
        let currencies = Set(positions.map { $0.currency.uppercased() }).union(targets)
        let quotes = try await conversionQuotes(owner: owner, currencies: currencies, to: targets, maxAge: maxAge)

        var valuations: [String: PortfolioValuation] = [:]
        func valuation(_ currency: String) -> PortfolioValuation {
            if let found = valuations[currency] { return found }
            let made = PortfolioValuation(currency: currency, quotes: quotes)
            valuations[currency] = made
            return made
        }
        let valued = goals.map { goal in
            var goal = goal
            goal.progress = GoalValuation.progress(
                goal,
                positions: positions,
                unavailable: unavailable,
                valuation: valuation(goal.currency)
            )
            return goal
        }
        let overall = GoalValuation.overall(valued, valuation: valuation(overallCurrency))
        let partial = valued.contains { $0.progress?.complete == false } || !overall.unconverted.isEmpty
        return GoalsRead(goals: valued, overall: overall, sources: sources, partial: partial)
    }
}
