public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// The built-in sandboxes' accounts: each connection to `sandbox://<name>` holds a simulated account of its own,
/// provisioned when it links and let go when it goes; and the demo tenant whose demo logins are renewed on restart.
public struct SandboxService: Sendable {
    let store: any GatewayStore
    let registry: AdapterRegistry
    let logger: Logger
    /// Which sandboxes run in process, and how many connections to each a tenant may hold.
    let linking: LinkSettings
}
