/// What one tenant, and one of its API keys, may ask of the gateway, so that no tenant can slow down or stop
/// another: a request rate per tenant and per key (token buckets: a sustained rate and a burst), how many fan-out
/// reads a tenant may have in flight at once (the rest wait their turn within their deadline), and how many broker
/// calls one request may make on one connection.
public struct TenantLimits: Sendable, Hashable {
    /// Requests a tenant may make per second, sustained, across all its keys.
    public var tenantRequestsPerSecond: Int
    /// Requests a tenant may make at once above its sustained rate.
    public var tenantBurst: Int
    /// Requests one API key may make per second, sustained.
    public var keyRequestsPerSecond: Int
    /// Requests one API key may make at once above its sustained rate.
    public var keyBurst: Int
    /// Fan-out reads one tenant may have in flight; more wait for a slot (within their deadline).
    public var fanOutsInFlight: Int
    /// Broker calls one request may make on one connection (`CallBudget`).
    public var callsPerConnection: Int

    /// Per-tenant limits from configuration; each default is the gateway's own.
    public init(
        tenantRequestsPerSecond: Int = 200,
        tenantBurst: Int = 400,
        keyRequestsPerSecond: Int = 100,
        keyBurst: Int = 200,
        fanOutsInFlight: Int = 32,
        callsPerConnection: Int = 64
    ) {
        self.tenantRequestsPerSecond = max(1, tenantRequestsPerSecond)
        self.tenantBurst = max(1, tenantBurst)
        self.keyRequestsPerSecond = max(1, keyRequestsPerSecond)
        self.keyBurst = max(1, keyBurst)
        self.fanOutsInFlight = max(1, fanOutsInFlight)
        self.callsPerConnection = max(1, callsPerConnection)
    }
}
