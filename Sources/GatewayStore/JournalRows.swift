import GatewayCore
package import GatewayModel

/// A `JournaledOrder` as column values, encoded before the write transaction begins.
package struct JournalRow: Sendable {
    package var id: String
    package var tenantId: String
    package var connectionId: String
    package var accountId: String
    package var clientOrderId: String
    package var request: String
    package var state: String
    package var brokerOrderId: String?
    package var order: String?
    package var errorCode: String?
    package var errorMessage: String?
    package var createdAt: Int64
    package var updatedAt: Int64
    package var sentAt: Int64

    package init(_ order: JournaledOrder) throws {
        id = order.id
        tenantId = order.tenantId
        connectionId = order.connectionId
        accountId = order.accountId
        clientOrderId = order.clientOrderId
        request = try JournalJSON.encode(order.request, column: "request", orderId: order.id)
        state = order.state.rawValue
        brokerOrderId = order.brokerOrderId
        self.order = try order.order.map { try JournalJSON.encode($0, column: "order", orderId: order.id) }
        errorCode = order.error?.rawValue
        errorMessage = order.errorMessage
        createdAt = StoreClock.millis(order.createdAt)
        updatedAt = StoreClock.millis(order.updatedAt)
        sentAt = StoreClock.millis(order.sentAt)
    }
}

/// An `OrderEvent` as column values (its sequence is the store's to assign).
package struct JournalEventRow: Sendable {
    package var kind: String
    package var state: String
    package var status: String?
    package var brokerOrderId: String?
    package var detail: String?
    package var at: Int64

    package init(_ event: OrderEvent) throws {
        kind = event.kind.rawValue
        state = event.state.rawValue
        status = event.status?.rawValue
        brokerOrderId = event.brokerOrderId
        detail = event.detail
        at = StoreClock.millis(event.at)
    }
}
