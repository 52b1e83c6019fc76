import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import OpenAPIRuntime

/// `GET /v1/portfolio`: the user's holdings at every selected broker, valued in one currency.
extension APIHandlers {
    func getPortfolio(_ input: Operations.GetPortfolio.Input) async throws -> Operations.GetPortfolio.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let selection = try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account, maxAgeMs: q.maxAgeMs)
        let read = try await portfolio.portfolio(owner: owner, selection, currency: q.currency ?? "USD")
        return .ok(.init(body: .json(.init(data: read.portfolio, sources: read.sources, partial: read.partial))))
    }
}
