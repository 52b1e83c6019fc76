public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// A user's portfolio in one currency, and the goals valued against it.
public struct PortfolioService: Sendable {
    let store: any GatewayStore
    let reads: BrokerReadService
    let fanOut: ReadFanOut
    let directory: ConnectionDirectory
    let audit: AuditTrail
}
