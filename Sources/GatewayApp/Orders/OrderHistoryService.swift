public import GatewayCore
public import GatewayModel
public import GatewayStore

/// The read side of orders: each broker's order lists and lookups by broker order id, fanned out to the selected
/// connections, and the journal's event history of the orders the gateway placed. Nothing here writes the journal
/// or acts on an order; reading one order by gateway id (which may reconcile it) is `OrderService`'s.
public struct OrderHistoryService: Sendable {
    let journal: any OrderJournalStore
    let fanOut: ReadFanOut
}
