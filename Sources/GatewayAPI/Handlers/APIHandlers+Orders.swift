import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import OpenAPIRuntime

/// Orders acted on: preview, placement, one order read by id (brought up to date from its broker), changes and
/// cancels, all through `OrderService`.
extension APIHandlers {
    func placeOrder(_ input: Operations.PlaceOrder.Input) async throws -> Operations.PlaceOrder.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let request) = input.body else { throw APIError.unsupportedBody }
        let result = try await orders.placeOrder(owner: owner, request, idempotencyKey: input.headers.idempotencyKey)
        let headers = result.replayed ? Operations.PlaceOrder.Output.Created.Headers(idempotentReplayed: ._true) : .init()
        switch result.outcome {
        case .accepted:
            return .created(.init(headers: headers, body: .json(.init(data: result.order))))
        case .unknown:
            return .accepted(
                .init(
                    headers: .init(idempotentReplayed: headers.idempotentReplayed.map { _ in ._true }),
                    body: .json(.init(data: result.order))
                )
            )
        }
    }

    func previewOrder(_ input: Operations.PreviewOrder.Input) async throws -> Operations.PreviewOrder.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let request) = input.body else { throw APIError.unsupportedBody }
        return .ok(.init(body: .json(.init(data: try await orders.previewOrder(owner: owner, request)))))
    }

    func getOrder(_ input: Operations.GetOrder.Input) async throws -> Operations.GetOrder.Output {
        let principal = try RequestIdentity.requirePrincipal()
        // A tenant admin naming no user reads the journal as it stands (a deleted user's orders too).
        if principal.userId == nil, principal.has(.admin) {
            return .ok(.init(body: .json(.init(data: try await orders.journaledOrderForAdmin(tenant: principal.tenant, id: input.path.id)))))
        }
        let owner = try principal.owner()
        return .ok(.init(body: .json(.init(data: try await orders.order(owner: owner, id: input.path.id)))))
    }

    func modifyOrder(_ input: Operations.ModifyOrder.Input) async throws -> Operations.ModifyOrder.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let modification) = input.body else { throw APIError.unsupportedBody }
        return .ok(.init(body: .json(.init(data: try await orders.modifyOrder(owner: owner, id: input.path.id, modification)))))
    }

    func cancelOrder(_ input: Operations.CancelOrder.Input) async throws -> Operations.CancelOrder.Output {
        let owner = try RequestIdentity.requireOwner()
        return .ok(.init(body: .json(.init(data: try await orders.cancelOrder(owner: owner, id: input.path.id)))))
    }
}
