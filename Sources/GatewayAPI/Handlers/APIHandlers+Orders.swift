import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import OpenAPIRuntime

extension APIHandlers {
    func listOrders(_ input: Operations.ListOrders.Input) async throws -> Operations.ListOrders.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let selection = try QueryValue.selection(connection: q.connection, broker: q.broker, account: q.account)
        if let brokerOrderId = try QueryValue.brokerIdentifier(q.brokerOrderId, "brokerOrderId") {
            // One order looked up; the list's filters still apply to it (any state unless `status` says).
            let filters = OrderQuery(
                state: q.status ?? .all,
                accountId: selection.accountId,
                symbols: try QueryValue.symbols(q.symbols, "symbols") ?? [],
                limit: try QueryValue.int(q.limit, "limit", range: 1...500) ?? 100,
                after: q.after,
                until: q.until
            )
            let r = try await orders.orders(owner: owner, selection, brokerOrderId: brokerOrderId, matching: filters)
            return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
        }
        let query = OrderQuery(
            state: q.status ?? .open,
            accountId: selection.accountId,
            symbols: try QueryValue.symbols(q.symbols, "symbols") ?? [],
            limit: try QueryValue.int(q.limit, "limit", range: 1...500) ?? 100,
            after: q.after,
            until: q.until
        )
        let r = try await orders.orders(owner: owner, selection, query)
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
    }

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

    func listOrderEvents(_ input: Operations.ListOrderEvents.Input) async throws -> Operations.ListOrderEvents.Output {
        let principal = try RequestIdentity.requirePrincipal()
        if principal.userId == nil, principal.has(.admin) {
            return .ok(.init(body: .json(.init(data: try await orders.orderEventsForAdmin(tenant: principal.tenant, id: input.path.id)))))
        }
        let owner = try principal.owner()
        return .ok(.init(body: .json(.init(data: try await orders.orderEvents(owner: owner, id: input.path.id)))))
    }
}
