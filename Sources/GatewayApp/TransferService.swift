public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// Connections exported, sealed, to another gateway, and imported from one.
public struct TransferService: Sendable {
    let store: any GatewayStore
    let linking: LinkSettings
    let connections: ConnectionService
    let audit: AuditTrail
}
