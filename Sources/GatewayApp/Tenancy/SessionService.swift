public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// End users' sessions: logins (behind the login guard), refresh, logout, passwords, login codes, and the
/// devices sessions are opened from.
public struct SessionService: Sendable {
    let store: any GatewayStore
    /// End users' sessions: signing keys, lifetimes, the device limit, the clock.
    let sessions: SessionSettings
    let sessionKeys: SessionKeyRing
    let deviceSeen: DeviceSeenThrottle
    let passwords: PasswordHasher
    /// Logins' lockout and rates, checked before any password is hashed.
    let logins: LoginGuard
    let hotReads: HotReads
    let audit: AuditTrail
    /// Who may log a user in (a key's scopes and bound user), which tenancy decides.
    let tenancy: TenancyService
}
