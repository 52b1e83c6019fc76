public import Foundation
public import GatewayStore

/// How the gateway links connections and moves them between gateways: the lifetime of an interactive link, whether
/// export is allowed, the key imports are sealed to, and the in-process sandboxes that provision accounts.
public struct LinkSettings: Sendable {
    /// How long a started interactive link (its state nonce) can be completed. Ten minutes by default: long enough
    /// to log in at a broker, short enough that a leaked popup or callback URL is soon worthless.
    public var stateLifetime: Duration
    /// Whether `POST /v1/connections/export` may hand out a tenant's connections (sealed). Off unless the operator
    /// turns it on, since an export carries every broker secret of the tenant.
    public var exportEnabled: Bool
    /// This gateway's HPKE key pair: imports are sealed to its public key. `gateway serve` loads the data folder's
    /// (`TransferKey.load`); by default a key that lives in memory only (tests, throwaway gateways).
    public var transferKey: TransferKey
    /// The in-process sandboxes and how each provisions an account of its own for a tenant.
    public var sandboxes: SandboxAccounts
    /// The clock link states are timed by (a test moves it past a link's lifetime without waiting).
    public var now: @Sendable () -> Date

    /// Link settings from configuration; the clock defaults to the system's.
    public init(
        stateLifetime: Duration = .seconds(600),
        exportEnabled: Bool = false,
        transferKey: TransferKey = .random(),
        sandboxes: SandboxAccounts = SandboxAccounts(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.stateLifetime = stateLifetime
        self.exportEnabled = exportEnabled
        self.transferKey = transferKey
        self.sandboxes = sandboxes
        self.now = now
    }
}
