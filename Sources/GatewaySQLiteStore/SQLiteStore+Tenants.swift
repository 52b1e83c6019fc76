import Foundation
import GRDB
import GatewayCore
public import GatewayStore

extension SQLiteStore {
    // MARK: Tenants

    /// Implements `TenantStore.createTenant(name:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func createTenant(name: String) async throws -> Tenant {
        let createdAt = StoreClock.nowMillis()
        let tenant = Tenant(id: StoreIdentifier.make(StoreIdentifier.tenant), name: name, createdAt: StoreClock.date(createdAt))
        try await write("createTenant", conflict: "a tenant with this id already exists") { db in
            try db.execute(
                sql: "INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)",
                arguments: [tenant.id, tenant.name, createdAt]
            )
        }
        return tenant
    }

    static let tenantColumns = "id, name, created_at, read_max_age_ms, disabled_at"

    /// Implements `TenantStore.tenant(id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func tenant(id: String) async throws -> Tenant? {
        try await read("tenant") { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.tenantColumns) FROM tenants WHERE id = ?"), arguments: [id])
                .map(Tenant.init(row:))
        }
    }

    /// All tenants, oldest first.
    public func tenants() async throws -> [Tenant] {
        try await read("tenants") { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.tenantColumns) FROM tenants ORDER BY created_at, id")
                .map(Tenant.init(row:))
        }
    }

    /// Implements `TenantStore.setReadMaxAge(tenantId:milliseconds:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func setReadMaxAge(tenantId: String, milliseconds: Int?) async throws -> Tenant? {
        try await write("setReadMaxAge") { db in
            try db.execute(
                sql: "UPDATE tenants SET read_max_age_ms = ? WHERE id = ?",
                arguments: [milliseconds, tenantId]
            )
            return try Row.fetchOne(
                db,
                sql: "SELECT \(Self.tenantColumns) FROM tenants WHERE id = ?",
                arguments: [tenantId]
            ).map(Tenant.init(row:))
        }
    }

    /// Implements `TenantStore.disableTenant(id:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func disableTenant(id: String, audit: AuditRecord?) async throws -> Tenant? {
        let now = StoreClock.nowMillis()
        return try await write("disableTenant") { db in
            try db.execute(
                sql: "UPDATE tenants SET disabled_at = ? WHERE id = ? AND disabled_at IS NULL",
                arguments: [now, id]
            )
            if db.changesCount > 0, let audit { try Self.insertAudit(db, audit, at: now) }
            return try Row.fetchOne(db, sql: "SELECT \(Self.tenantColumns) FROM tenants WHERE id = ?", arguments: [id])
                .map(Tenant.init(row:))
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
                try Self.requireTenant(db, tenantId)
                if let userId { try Self.requireUser(db, tenantId: tenantId, userId) }
                try db.execute(
                    sql: """
                        INSERT INTO api_keys (id, tenant_id, label, hash, created_at, scopes, user_id)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [issue.keyId, tenantId, label, issue.hash, issue.createdAt, issue.scopesText, userId]
                )
                if let audit { try Self.insertAudit(db, audit.targeting(issue.keyId), at: issue.createdAt) }
            }
        }
    }

    /// One indexed query (primary key of `api_keys` joined to its tenant and bound user), then a constant-time
    /// comparison of the secret's hash. Not cached, so a revocation, a disabled tenant or a deleted user takes effect
    /// on the next request.
    public func authenticateAPIKey(_ key: String) async throws -> AuthenticatedAPIKey? {
        guard let (keyId, secret) = APIKeySecret.parse(key) else { return nil }
        let presentedHash = APIKeySecret.hash(secret: secret)
        let found = try await read("authenticateAPIKey") { db -> (hash: [UInt8], key: AuthenticatedAPIKey)? in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: Self.apiKeyLookupSQL), arguments: [keyId]) else { return nil }
            let hash = try row.decode(Data.self, forColumn: "hash")
            let tenant = Tenant(
                id: try row.decode(forColumn: "tenant_id"),
                name: try row.decode(forColumn: "tenant_name"),
                createdAt: StoreClock.date(try row.decode(forColumn: "tenant_created_at")),
                readMaxAgeMs: try row.decode(Int?.self, forColumn: "read_max_age_ms"),
                disabledAt: try row.decode(Int64?.self, forColumn: "disabled_at").map(StoreClock.date)
            )
            return (Array(hash), AuthenticatedAPIKey(key: try APIKeyInfo(row: row), tenant: tenant))
        }
        guard let found, ConstantTime.equals(found.hash, presentedHash) else { return nil }
        return found.key
    }

    static let apiKeyLookupSQL = """
        SELECT k.hash AS hash, k.id AS id, k.tenant_id AS tenant_id, k.label AS label, k.scopes AS scopes,
            k.user_id AS user_id, k.created_at AS created_at, k.revoked_at AS revoked_at,
            t.name AS tenant_name, t.created_at AS tenant_created_at, t.read_max_age_ms AS read_max_age_ms,
            t.disabled_at AS disabled_at
        FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
            LEFT JOIN users u ON u.id = k.user_id AND u.tenant_id = k.tenant_id
        WHERE k.id = ? AND k.revoked_at IS NULL AND (k.user_id IS NULL OR u.id IS NOT NULL)
        """

    static let apiKeyColumns = "id, tenant_id, label, scopes, user_id, created_at, revoked_at"

    /// Revokes a tenant's key by id (`key_…`). `false` when the tenant has no such key or it is already revoked.
    public func revokeAPIKey(tenantId: String, keyId: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("revokeAPIKey") { db in
            try db.execute(
                sql: "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND tenant_id = ? AND revoked_at IS NULL",
                arguments: [now, keyId, tenantId]
            )
            guard db.changesCount > 0 else { return false }
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    /// A tenant's keys, oldest first, revoked ones included; never their secrets.
    public func apiKeys(tenantId: String) async throws -> [APIKeyInfo] {
        try await read("apiKeys") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.apiKeyColumns) FROM api_keys WHERE tenant_id = ? ORDER BY created_at, id",
                arguments: [tenantId]
            ).map(APIKeyInfo.init(row:))
        }
    }

    /// Implements `TenantStore.apiKey(tenantId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func apiKey(tenantId: String, id: String) async throws -> APIKeyInfo? {
        try await read("apiKey") { db in
            try Row.fetchOne(
                db,
                sql: "SELECT \(Self.apiKeyColumns) FROM api_keys WHERE tenant_id = ? AND id = ?",
                arguments: [tenantId, id]
            ).map(APIKeyInfo.init(row:))
        }
    }

    /// Throws `notFound` unless the tenant exists: a clearer answer than a foreign-key failure.
    static func requireTenant(_ db: Database, _ tenantId: String) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM tenants WHERE id = ?", arguments: [tenantId]) != nil else {
            throw GatewayError(.notFound, "tenant \(tenantId) not found")
        }
    }
}

extension SQLiteStore {
    // MARK: The demo tenant

    /// Implements `TenantStore.demoTenantId()` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func demoTenantId() async throws -> String? {
        try await read("demoTenantId") { db in
            try Data.fetchOne(db, sql: "SELECT value FROM store_meta WHERE key = ?", arguments: [StoreRules.demoTenantKey])
                .map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// - Throws: `GatewayError(.notFound)` for an unknown tenant.
    public func setDemoTenantId(_ id: String) async throws {
        try await write("setDemoTenantId") { db in
            try Self.requireTenant(db, id)
            try db.execute(
                sql: "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [StoreRules.demoTenantKey, Data(id.utf8)]
            )
        }
    }
}
