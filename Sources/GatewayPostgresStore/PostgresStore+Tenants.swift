import Foundation
import GatewayCore
public import GatewayStore
import PostgresNIO

extension PostgresStore {
    // MARK: Tenants

    /// Implements `TenantStore.createTenant(name:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func createTenant(name: String) async throws -> Tenant {
        let createdAt = StoreClock.nowMillis()
        let tenant = Tenant(id: StoreIdentifier.make(StoreIdentifier.tenant), name: name, createdAt: StoreClock.date(createdAt))
        try await write("createTenant", conflict: "a tenant with this id already exists") { db in
            try await db.execute(
                "INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)",
                [tenant.id, tenant.name, createdAt]
            )
        }
        return tenant
    }

    static let tenantColumns = "id, name, created_at, read_max_age_ms, disabled_at"

    /// Implements `TenantStore.tenant(id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func tenant(id: String) async throws -> Tenant? {
        try await read("tenant") { db in
            try await db.row("SELECT \(Self.tenantColumns) FROM tenants WHERE id = ?", [id]).map(Tenant.init(row:))
        }
    }

    /// All tenants, oldest first.
    public func tenants() async throws -> [Tenant] {
        try await read("tenants") { db in
            try await db.rows("SELECT \(Self.tenantColumns) FROM tenants ORDER BY created_at, id").map(Tenant.init(row:))
        }
    }

    /// Implements `TenantStore.setReadMaxAge(tenantId:milliseconds:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func setReadMaxAge(tenantId: String, milliseconds: Int?) async throws -> Tenant? {
        try await write("setReadMaxAge") { db in
            try await db.row(
                "UPDATE tenants SET read_max_age_ms = ? WHERE id = ? RETURNING \(Self.tenantColumns)",
                [milliseconds.map(Int64.init), tenantId]
            ).map(Tenant.init(row:))
        }
    }

    /// Implements `TenantStore.disableTenant(id:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func disableTenant(id: String, audit: AuditRecord?) async throws -> Tenant? {
        let now = StoreClock.nowMillis()
        return try await write("disableTenant") { db in
            let changed = try await db.count(
                "UPDATE tenants SET disabled_at = ? WHERE id = ? AND disabled_at IS NULL RETURNING id",
                [now, id]
            )
            if changed > 0, let audit { try await Self.insertAudit(db, audit, at: now) }
            return try await db.row("SELECT \(Self.tenantColumns) FROM tenants WHERE id = ?", [id]).map(Tenant.init(row:))
        }
    }

    // MARK: API keys

    /// Issues a key `bgw_<lookup>_<secret>`; only the SHA-256 of the secret is stored.
    public func issueAPIKey(
        tenantId: String,
        label: String,
        scopes: [String],
        userId: String?,
        audit: AuditRecord?
    ) async throws -> IssuedAPIKey {
        try await StoreRules.issueAPIKey(tenantId: tenantId, label: label, scopes: scopes, userId: userId) { issue in
            try await write("issueAPIKey", conflict: "api key id collision") { db in
                try await Self.requireTenant(db, tenantId)
                if let userId { try await Self.requireUser(db, tenantId: tenantId, userId) }
                try await db.execute(
                    """
                    INSERT INTO api_keys (id, tenant_id, label, hash, created_at, scopes, user_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                    [issue.keyId, tenantId, label, issue.hash, issue.createdAt, issue.scopesText, userId]
                )
                if let audit { try await Self.insertAudit(db, audit.targeting(issue.keyId), at: issue.createdAt) }
            }
        }
    }

    /// One indexed query, then a constant-time comparison of the secret's hash. Not cached, so a revocation, a
    /// disabled tenant or a deleted user takes effect on the next request, on every instance.
    public func authenticateAPIKey(_ key: String) async throws -> AuthenticatedAPIKey? {
        guard let (keyId, secret) = APIKeySecret.parse(key) else { return nil }
        let presentedHash = APIKeySecret.hash(secret: secret)
        let found = try await read("authenticateAPIKey") { db -> FoundKey? in
            guard
                let row = try await db.row(
                    """
                    SELECT k.hash AS hash, k.id AS id, k.tenant_id AS tenant_id, k.label AS label, k.scopes AS scopes,
                        k.user_id AS user_id, k.created_at AS created_at, k.revoked_at AS revoked_at,
                        t.name AS tenant_name, t.created_at AS tenant_created_at, t.read_max_age_ms AS read_max_age_ms,
                        t.disabled_at AS disabled_at
                    FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
                        LEFT JOIN users u ON u.id = k.user_id AND u.tenant_id = k.tenant_id
                    WHERE k.id = ? AND k.revoked_at IS NULL AND (k.user_id IS NULL OR u.id IS NOT NULL)
                    """,
                    [keyId]
                )
            else { return nil }
            let tenant = Tenant(
                id: try row.string("tenant_id"),
                name: try row.string("tenant_name"),
                createdAt: try row.date("tenant_created_at"),
                readMaxAgeMs: try row.optionalInt64("read_max_age_ms").map(Int.init),
                disabledAt: try row.optionalDate("disabled_at")
            )
            return FoundKey(
                hash: Array(try row.bytes("hash")),
                key: AuthenticatedAPIKey(key: try APIKeyInfo(row: row), tenant: tenant)
            )
        }
        guard let found, ConstantTime.equals(found.hash, presentedHash) else { return nil }
        return found.key
    }

    struct FoundKey: Sendable {
        var hash: [UInt8]
        var key: AuthenticatedAPIKey
    }

    static let apiKeyColumns = "id, tenant_id, label, scopes, user_id, created_at, revoked_at"

    /// Implements `TenantStore.revokeAPIKey(tenantId:keyId:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func revokeAPIKey(tenantId: String, keyId: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("revokeAPIKey") { db in
            let changed = try await db.count(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND tenant_id = ? AND revoked_at IS NULL RETURNING id",
                [now, keyId, tenantId]
            )
            guard changed > 0 else { return false }
            if let audit { try await Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    /// Implements `TenantStore.apiKeys(tenantId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func apiKeys(tenantId: String) async throws -> [APIKeyInfo] {
        try await read("apiKeys") { db in
            try await db.rows(
                "SELECT \(Self.apiKeyColumns) FROM api_keys WHERE tenant_id = ? ORDER BY created_at, id",
                [tenantId]
            ).map(APIKeyInfo.init(row:))
        }
    }

    /// Implements `TenantStore.apiKey(tenantId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func apiKey(tenantId: String, id: String) async throws -> APIKeyInfo? {
        try await read("apiKey") { db in
            try await db.row("SELECT \(Self.apiKeyColumns) FROM api_keys WHERE tenant_id = ? AND id = ?", [tenantId, id])
                .map(APIKeyInfo.init(row:))
        }
    }

    /// Throws `notFound` unless the tenant exists: a clearer answer than a foreign-key failure.
    static func requireTenant(_ db: PostgresSQL, _ tenantId: String) async throws {
        guard try await db.row("SELECT 1 FROM tenants WHERE id = ?", [tenantId]) != nil else {
            throw GatewayError(.notFound, "tenant \(tenantId) not found")
        }
    }

    /// As ``requireTenant(_:_:)``, and holds the tenant's row until the transaction ends, so that writes which
    /// order themselves after the tenant's newest row ("strictly after the newest", device limits) run one at a
    /// time per tenant across every instance, as SQLite's single writer runs them.
    static func lockTenant(_ db: PostgresSQL, _ tenantId: String) async throws {
        guard try await db.row("SELECT 1 FROM tenants WHERE id = ? FOR NO KEY UPDATE", [tenantId]) != nil else {
            throw GatewayError(.notFound, "tenant \(tenantId) not found")
        }
    }

    // MARK: The demo tenant

    /// Implements `TenantStore.demoTenantId()` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func demoTenantId() async throws -> String? {
        try await read("demoTenantId") { db in
            try await db.row("SELECT value FROM store_meta WHERE key = ?", [StoreRules.demoTenantKey])
                .map { String(decoding: try $0.bytes("value"), as: UTF8.self) }
        }
    }

    /// Implements `TenantStore.setDemoTenantId(_:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func setDemoTenantId(_ id: String) async throws {
        try await write("setDemoTenantId") { db in
            try await Self.requireTenant(db, id)
            try await db.execute(
                "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [StoreRules.demoTenantKey, Data(id.utf8)]
            )
        }
    }
}
