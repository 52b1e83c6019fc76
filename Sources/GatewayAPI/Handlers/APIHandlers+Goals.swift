import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import OpenAPIRuntime

/// `/v1/goals`: the user's goals, checked against live positions on every write and valued on every read.
extension APIHandlers {
    func listGoals(_ input: Operations.ListGoals.Input) async throws -> Operations.ListGoals.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let maxAge = try QueryValue.selection(connection: nil, broker: nil, account: nil, maxAgeMs: q.maxAgeMs).maxAge
        let read = try await portfolio.goals(owner: owner, currency: q.currency, maxAge: maxAge)
        return .ok(.init(body: .json(.init(data: read.goals, overall: read.overall, sources: read.sources, partial: read.partial))))
    }

    func createGoal(_ input: Operations.CreateGoal.Input) async throws -> Operations.CreateGoal.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let read = try await portfolio.createGoal(owner: owner, body)
        return .created(.init(body: .json(try Self.goalBody(read))))
    }

    func getGoal(_ input: Operations.GetGoal.Input) async throws -> Operations.GetGoal.Output {
        let owner = try RequestIdentity.requireOwner()
        let read = try await portfolio.goal(owner: owner, id: input.path.id)
        return .ok(.init(body: .json(try Self.goalBody(read))))
    }

    func updateGoal(_ input: Operations.UpdateGoal.Input) async throws -> Operations.UpdateGoal.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let read = try await portfolio.updateGoal(owner: owner, id: input.path.id, body)
        return .ok(.init(body: .json(try Self.goalBody(read))))
    }

    func deleteGoal(_ input: Operations.DeleteGoal.Input) async throws -> Operations.DeleteGoal.Output {
        let owner = try RequestIdentity.requireOwner()
        try await portfolio.deleteGoal(owner: owner, id: input.path.id)
        return .noContent(.init())
    }
}

extension APIHandlers {
    /// The envelope of one goal; every operation on one goal answers the same shape.
    static func goalBody<Body>(_ read: GoalsRead, as _: Body.Type = Body.self) throws -> Body where Body: GoalEnvelope {
        guard let goal = read.goals.first else { throw GatewayError(.internalError, "the goal was not read back") }
        return Body(data: goal, sources: read.sources, partial: read.partial)
    }
}

/// The generated `{data, sources, partial}` bodies of the one-goal operations.
protocol GoalEnvelope {
    init(data: Goal, sources: [SourceReport], partial: Bool)
}

extension Operations.CreateGoal.Output.Created.Body.JsonPayload: GoalEnvelope {}
extension Operations.GetGoal.Output.Ok.Body.JsonPayload: GoalEnvelope {}
extension Operations.UpdateGoal.Output.Ok.Body.JsonPayload: GoalEnvelope {}
