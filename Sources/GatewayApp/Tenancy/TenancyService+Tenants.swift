public import GatewayCore
public import GatewayStore

/// Tenants and their API keys, as the server's authentication and the operator's first run need them.
extension TenancyService {
    /// The tenant an API key belongs to, or nil when the key is unknown or revoked.
    public func tenant(forAPIKey key: String) async throws -> Tenant? {
        try await store.tenant(forAPIKey: key)
    }

    /// Every tenant: what the operator lists.
    public func tenants() async throws -> [Tenant] {
        try await store.tenants()
    }

    /// Creates a tenant, with no users and no keys yet (the demo bootstrap's first step).
    public func createTenant(name: String) async throws -> Tenant {
        try await store.createTenant(name: name)
    }

    /// Sets the tenant's default read freshness (`readMaxAgeMs`, 0…60000; `nil` for the gateway's default).
    public func setReadMaxAge(tenant: Tenant, milliseconds: Int?) async throws -> Tenant {
        if let milliseconds, !(0...Gateway.maxReadAgeMs).contains(milliseconds) {
            throw GatewayError.invalid("readMaxAgeMs", "must be between 0 and \(Gateway.maxReadAgeMs) (milliseconds), or null")
        }
        guard let updated = try await store.setReadMaxAge(tenantId: tenant.id, milliseconds: milliseconds) else {
            throw GatewayError(.notFound, "no tenant '\(tenant.id)'")
        }
        return updated
    }

    /// A new API key with every scope for the tenant's default user (see `GatewayStore.defaultUser`); its plaintext
    /// exists only in the answer.
    public func issueDefaultUserKey(tenant: Tenant, label: String) async throws -> IssuedAPIKey {
        try await store.issueDefaultUserKey(tenantId: tenant.id, label: label)
    }

    /// The operator acting for the tenant's default user, made when the tenant has none.
    public func defaultOwner(_ tenant: Tenant) async throws -> Owner {
        Owner.operator(tenant: tenant, userId: try await store.defaultUser(tenantId: tenant.id).id)
    }
}
