public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// Linking, relinking and unlinking connections (with credentials or through a broker's login page), their
/// authentication and security questions, and the in-process sandboxes' accounts.
public struct ConnectionService: Sendable {
    let store: any GatewayStore
    let registry: AdapterRegistry
    let router: BrokerRouter
    let logger: Logger
    /// Interactive links, export and import, and the in-process sandboxes' accounts.
    let linking: LinkSettings
    let directory: ConnectionDirectory
    let audit: AuditTrail
    let sandboxes: SandboxService
}
