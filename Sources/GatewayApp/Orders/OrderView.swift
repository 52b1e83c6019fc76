import Foundation
import GatewayCore
import GatewayModel
import GatewayStore

/// How orders look to clients, as pure functions both order services share: broker orders under gateway ids, and a
/// journaled order as the broker's order once known, else as the intent itself while the broker's answer is not.
enum OrderView {
    /// The prefix of the ids the gateway derives for broker orders (and gives its journaled orders).
    static let idPrefix = "ord_"

    /// A broker's order as a client sees it: its connection and broker filled in, and a gateway id derived from the
    /// connection and the broker's id, so the same order keeps the same id on every read.
    static func gateway(_ order: Order, connection: ConnectionDescriptor) -> Order {
        var order = order
        order.connectionId = connection.id
        order.broker = connection.broker
        if let brokerId = order.brokerOrderId {
            order.id = OpaqueID.make(prefix: idPrefix, connectionId: connection.id, brokerId: brokerId)
        }
        return order
    }

    /// What a journaled order looks like to a client: the broker's order once known, else the intent.
    static func journaled(_ journaled: JournaledOrder, broker: BrokerKind) -> Order {
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
            instrument: WatchlistService.instrument(request.instrument),
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
