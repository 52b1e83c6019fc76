public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// Tenants, users and API keys, the audit log, and the principal an API key stands for (with the rate limits
/// that admit its requests).
public struct TenancyService: Sendable {
    let store: any GatewayStore
    let registry: AdapterRegistry
    let logger: Logger
    /// The key, tenant and user reads of every request, cached under the store's change stamp.
    let hotReads: HotReads
    let requestLimiter: RequestLimiter
    let audit: AuditTrail
    let directory: ConnectionDirectory
    /// A deleted user's sandbox accounts are let go.
    let sandboxes: SandboxService
}
