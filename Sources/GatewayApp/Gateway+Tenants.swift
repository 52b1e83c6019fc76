public import GatewayStore

/// Tenants and their API keys, as the server's authentication and the operator's first run need them.
extension Gateway {
    /// The tenant an API key belongs to, or nil when the key is unknown or revoked.
    public func tenant(forAPIKey key: String) async throws -> Tenant? {
        try await store.tenant(forAPIKey: key)
    }

    public func tenants() async throws -> [Tenant] {
        try await store.tenants()
    }

    public func createTenant(name: String) async throws -> Tenant {
        try await store.createTenant(name: name)
    }

    /// A new API key for the tenant; its plaintext exists only in the answer.
    public func issueAPIKey(tenant: Tenant, label: String) async throws -> IssuedAPIKey {
        try await store.issueAPIKey(tenantId: tenant.id, label: label)
    }
}
