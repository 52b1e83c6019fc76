public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// Orders: preview, placement, changes and cancels through the journal, one order read by gateway id (brought up to
/// date first), and reconciliation and watching of the orders whose outcome or state the broker has not yet told.
/// The read-only lists, lookups and event histories are `OrderHistoryService`'s.
public struct OrderService: Sendable {
    let store: any GatewayStore
    let journal: any OrderJournalStore
    let router: BrokerRouter
    let logger: Logger
    let orderSettings: OrderSettings
    let inFlight: InFlightOrders
    let previews: PreviewCache
    let accountIds: AccountCache
    let orderRecords: OrderRecordLocks
    let metrics: ApplicationMetrics
    let reconcilerHeartbeat: Heartbeat
    let reconciliationAttempts: ReconciliationAttempts
    let journalQuarantine: JournalQuarantine
    let directory: ConnectionDirectory
    /// The streams' hub: an order changed at the broker is refreshed once, whoever notices it.
    let streams: StreamHub
}
