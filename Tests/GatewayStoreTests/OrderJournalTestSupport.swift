import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

/// A date on a whole millisecond, as the journal stores it, `offset` milliseconds from now.
func journalDate(_ offset: Int64 = 0) -> Date {
    StoreClock.date(StoreClock.nowMillis() + offset)
}

func newJournalOrderId() -> String {
    "ord_" + RandomIdentifier.base32(count: 20)
}

/// A gtd limit order with fractional decimals and a date in the request, so the JSON columns are exercised.
func sampleIntent(
    tenantId: String,
    connectionId: String = "conn_a",
    id: String = newJournalOrderId(),
    clientOrderId: String = "cid-" + RandomIdentifier.base32(count: 8),
    createdAt: Date = journalDate(),
    state: JournalState = .submitting,
    brokerOrderId: String? = nil
) -> JournaledOrder {
    let request = OrderRequest(
        connectionId: connectionId,
        accountId: "PA1",
        instrument: InstrumentReference(symbol: "AAPL", assetClass: .equity),
        side: .buy,
        type: .limit,
        timeInForce: .gtd,
        quantity: Decimal(string: "1.25")!,
        limitPrice: Decimal(string: "187.0500")!,
        clientOrderId: clientOrderId,
        expiresAt: createdAt.addingTimeInterval(86_400)
    )
    return JournaledOrder(
        id: id,
        tenantId: tenantId,
        connectionId: connectionId,
        accountId: "PA1",
        clientOrderId: clientOrderId,
        request: request,
        state: state,
        brokerOrderId: brokerOrderId,
        createdAt: createdAt,
        updatedAt: createdAt
    )
}

/// The broker's view of `intent` under `brokerOrderId`.
func brokerView(
    of intent: JournaledOrder,
    brokerOrderId: String,
    status: OrderStatus = .open,
    filled: String = "0",
    at date: Date = journalDate()
) -> Order {
    Order(
        id: intent.id,
        brokerOrderId: brokerOrderId,
        clientOrderId: intent.clientOrderId,
        connectionId: intent.connectionId,
        broker: .alpaca,
        accountId: intent.accountId,
        instrument: Instrument(symbol: "AAPL", assetClass: .equity, exchange: "XNAS", currency: "USD"),
        side: intent.request.side,
        type: intent.request.type,
        timeInForce: intent.request.timeInForce,
        quantity: intent.request.quantity ?? 0,
        limitPrice: intent.request.limitPrice,
        status: status,
        filledQuantity: Decimal(string: filled)!,
        averageFillPrice: filled == "0" ? nil : Decimal(string: "187.01")!,
        createdAt: date,
        updatedAt: date,
        expiresAt: intent.request.expiresAt,
        brokerStatus: status.rawValue
    )
}

/// `intent` as accepted by the broker under `brokerOrderId`.
func accepted(
    _ intent: JournaledOrder,
    brokerOrderId: String,
    status: OrderStatus = .open,
    at date: Date = journalDate()
) -> JournaledOrder {
    var order = intent
    order.state = .accepted
    order.brokerOrderId = brokerOrderId
    order.order = brokerView(of: intent, brokerOrderId: brokerOrderId, status: status, at: date)
    order.updatedAt = date
    return order
}

func intentEvent(at date: Date = journalDate()) -> OrderEvent {
    OrderEvent(kind: .intent, state: .submitting, detail: "client order id", at: date)
}

/// Creates a tenant and journals an intent for it.
func journalIntent(
    in store: AnyStore,
    tenantId: String,
    connectionId: String = "conn_a",
    clientOrderId: String? = nil
) async throws -> JournaledOrder {
    let intent =
        if let clientOrderId {
            sampleIntent(tenantId: tenantId, connectionId: connectionId, clientOrderId: clientOrderId)
        } else {
            sampleIntent(tenantId: tenantId, connectionId: connectionId)
        }
    try await store.createOrderIntent(intent, event: intentEvent(at: intent.createdAt))
    return try await recorded(intent, in: store)
}

/// The intent as the journal records it: with its connection's user and broker, which the journal takes from the
/// connection (never from the caller) and keeps after the connection is gone.
func recorded(_ intent: JournaledOrder, in store: AnyStore) async throws -> JournaledOrder {
    var recorded = intent
    let connection = try await store.connection(tenantId: intent.tenantId, id: intent.connectionId)
    recorded.userId = connection?.userId
    recorded.broker = connection?.broker
    return recorded
}
