public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// A user's alerts: stored, tested and logged here; fired by `AlertEngine`, delivered by `AlertDelivery`.
public struct AlertService: Sendable {
    let store: any GatewayStore
    let logger: Logger
    let metrics: ApplicationMetrics
    let audit: AuditTrail
    /// The per-user limit, and the webhook and APNs delivery (the engine that fires them is `AlertEngine`).
    let alertSettings: AlertSettings
    let alertDelivery: AlertDelivery
    /// The stream of the `AlertEngine` made for this gateway, for test sends.
    let alertStream: AlertStreamRelay
}
