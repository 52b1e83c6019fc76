import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import OpenAPIRuntime

extension APIHandlers {
    func listWatchlists(_ input: Operations.ListWatchlists.Input) async throws -> Operations.ListWatchlists.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let r = try await watchlists.watchlists(
            owner: owner,
            try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account, maxAgeMs: q.maxAgeMs)
        )
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
    }

    func createWatchlist(_ input: Operations.CreateWatchlist.Input) async throws -> Operations.CreateWatchlist.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let created = try await watchlists.createWatchlist(owner: owner, Self.watchlistInput(body))
        return .created(.init(body: .json(.init(data: created))))
    }

    func getWatchlist(_ input: Operations.GetWatchlist.Input) async throws -> Operations.GetWatchlist.Output {
        let owner = try RequestIdentity.requireOwner()
        return .ok(.init(body: .json(.init(data: try await watchlists.watchlist(owner: owner, id: input.path.id)))))
    }

    func updateWatchlist(_ input: Operations.UpdateWatchlist.Input) async throws -> Operations.UpdateWatchlist.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let updated = try await watchlists.updateWatchlist(owner: owner, id: input.path.id, Self.watchlistInput(body))
        return .ok(.init(body: .json(.init(data: updated))))
    }

    func deleteWatchlist(_ input: Operations.DeleteWatchlist.Input) async throws -> Operations.DeleteWatchlist.Output {
        let owner = try RequestIdentity.requireOwner()
        try await watchlists.deleteWatchlist(owner: owner, id: input.path.id)
        return .noContent(.init())
    }
}

extension APIHandlers {
    static func watchlistInput(_ body: Components.Schemas.WatchlistInput) -> GatewayApp.WatchlistInput {
        GatewayApp.WatchlistInput(name: body.name, instruments: body.instruments, connectionId: body.connectionId)
    }
}
