public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// The tenant's status (each connection's health, the journal's backlog), the gateway's readiness, and the
/// probes that let an open breaker close.
public struct StatusService: Sendable {
    let store: any GatewayStore
    let journal: any OrderJournalStore
    let registry: AdapterRegistry
    let router: BrokerRouter
    let logger: Logger
    let orderSettings: OrderSettings
    let reconcilerHeartbeat: Heartbeat
    let reconciliationAttempts: ReconciliationAttempts
    let journalQuarantine: JournalQuarantine
}
