import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// How orders look to clients: gateway ids for broker orders, journal ids for the orders the gateway placed, and
/// the intent itself while the broker's answer is not known.
extension Gateway {
    static let orderPrefix = "ord_"

    func gatewayOrder(_ order: Order, connection: ConnectionDescriptor) -> Order {
        var order = order
        order.connectionId = connection.id
        order.broker = connection.broker
        if let brokerId = order.brokerOrderId {
            order.id = OpaqueID.make(prefix: Self.orderPrefix, connectionId: connection.id, brokerId: brokerId)
        }
        return order
    }

    /// Gives broker orders the ids of their journal entries where the gateway placed them.
    func journalIds(_ orders: [Order], tenant: Tenant, connection: ConnectionDescriptor) async throws -> [Order] {
        var result: [Order] = []
        for var order in orders {
            order = gatewayOrder(order, connection: connection)
            if let brokerId = order.brokerOrderId,
                let journaled = try await journal.journaledOrder(tenantId: tenant.id, connectionId: connection.id, brokerOrderId: brokerId)
            {
                order.id = journaled.id
            }
            result.append(order)
        }
        return result
    }

    /// What a journaled order looks like to a client: the broker's order once known, else the intent.
    func view(_ journaled: JournaledOrder, broker: BrokerKind) -> Order {
        if var order = journaled.order {
            order.id = journaled.id
            order.clientOrderId = journaled.clientOrderId
            return order
        }
        let request = journaled.request
        return Order(
            id: journaled.id,
            brokerOrderId: journaled.brokerOrderId,
            clientOrderId: journaled.clientOrderId,
            connectionId: journaled.connectionId,
            broker: broker,
            accountId: journaled.accountId,
            instrument: Self.instrument(request.instrument),
            side: request.side,
            type: request.type,
            timeInForce: request.timeInForce,
            quantity: request.quantity ?? 0,
            limitPrice: request.limitPrice,
            // A released order is not at the broker: it reads as rejected until the same key sends it again.
            stopPrice: request.stopPrice,
            status: journaled.state == .rejected || journaled.state == .released ? .rejected : .unknown,
            filledQuantity: 0,
            createdAt: journaled.createdAt,
            updatedAt: journaled.updatedAt,
            expiresAt: request.expiresAt,
            brokerStatus: journaled.errorMessage,
            notional: request.notional
        )
    }

}
