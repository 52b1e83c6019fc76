import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import OpenAPIRuntime

/// Order lists, lookups by broker order id and journal event histories, all through `OrderHistoryService`.
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
            let r = try await orderHistory.orders(owner: owner, selection, brokerOrderId: brokerOrderId, matching: filters)
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
        let r = try await orderHistory.orders(owner: owner, selection, query)
        return .ok(.init(body: .json(.init(data: r.data, sources: r.sources, partial: r.partial))))
    }

    func listOrderEvents(_ input: Operations.ListOrderEvents.Input) async throws -> Operations.ListOrderEvents.Output {
        let principal = try RequestIdentity.requirePrincipal()
        if principal.userId == nil, principal.has(.admin) {
            return .ok(.init(body: .json(.init(data: try await orderHistory.orderEventsForAdmin(tenant: principal.tenant, id: input.path.id)))))
        }
        let owner = try principal.owner()
        return .ok(.init(body: .json(.init(data: try await orderHistory.orderEvents(owner: owner, id: input.path.id)))))
    }
}
