import Foundation
import GatewayCore
import GRDB

extension SQLiteStore {
    // MARK: Tenants

    public func createTenant(name: String) async throws -> Tenant {
        let createdAt = StoreClock.nowMillis()
        let tenant = Tenant(id: StoreIdentifier.make(StoreIdentifier.tenant), name: name, createdAt: StoreClock.date(createdAt))
        try await write("createTenant", conflict: "a tenant with this id already exists") { db in
            try db.execute(
                sql: "INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)",
                arguments: [tenant.id, tenant.name, createdAt])
        }
        return tenant
    }

    public func tenant(id: String) async throws -> Tenant? {
        try await read("tenant") { db in
            try Row.fetchOne(db, sql: "SELECT id, name, created_at, read_max_age_ms FROM tenants WHERE id = ?", arguments: [id])
                .map(Tenant.init(row:))
        }
    }

    /// All tenants, oldest first.
    public func tenants() async throws -> [Tenant] {
        try await read("tenants") { db in
            try Row.fetchAll(db, sql: "SELECT id, name, created_at, read_max_age_ms FROM tenants ORDER BY created_at, id")
                .map(Tenant.init(row:))
        }
    }

    public func setReadMaxAge(tenantId: String, milliseconds: Int?) async throws -> Tenant? {
        try await write("setReadMaxAge") { db in
            try db.execute(
                sql: "UPDATE tenants SET read_max_age_ms = ? WHERE id = ?", arguments: [milliseconds, tenantId])
            return try Row.fetchOne(
                db, sql: "SELECT id, name, created_at, read_max_age_ms FROM tenants WHERE id = ?", arguments: [tenantId]
            ).map(Tenant.init(row:))
        }
    }

    // MARK: API keys

    /// Issues a key `bgw_<lookup>_<secret>`; only the SHA-256 of the secret is stored.
    /// - Throws: `GatewayError(.notFound)` for an unknown tenant.
    public func issueAPIKey(tenantId: String, label: String) async throws -> IssuedAPIKey {
        // The lookup part has 60 random bits; a collision is all but impossible, but costs only a retry.
        for _ in 0..<3 {
            let key = APIKeySecret.generate()
            let createdAt = StoreClock.nowMillis()
            do {
                try await write("issueAPIKey", conflict: "api key id collision") { db in
                    try Self.requireTenant(db, tenantId)
                    try db.execute(
                        sql: "INSERT INTO api_keys (id, tenant_id, label, hash, created_at) VALUES (?, ?, ?, ?, ?)",
                        arguments: [key.keyId, tenantId, label, Data(key.hash), createdAt])
                }
                return IssuedAPIKey(id: key.keyId, tenantId: tenantId, plaintext: key.plaintext)
            } catch let error as GatewayError where error.code == .conflict {
                continue
            }
        }
        throw GatewayError(.internalError, "an API key could not be issued")
    }

    /// One indexed query (primary key of `api_keys` joined to `tenants`), then a constant-time comparison of the
    /// secret's hash. Not cached, so a revocation takes effect on the next request.
    public func tenant(forAPIKey key: String) async throws -> Tenant? {
        guard let (keyId, secret) = APIKeySecret.parse(key) else { return nil }
        let presentedHash = APIKeySecret.hash(secret: secret)
        let found = try await read("tenantForAPIKey") { db -> (hash: [UInt8], tenant: Tenant)? in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: Self.apiKeyLookupSQL, arguments: [keyId])
            else { return nil }
            let hash = try row.decode(Data.self, forColumn: "hash")
            return (Array(hash), try Tenant(row: row))
        }
        guard let found, ConstantTime.equals(found.hash, presentedHash) else { return nil }
        return found.tenant
    }

    static let apiKeyLookupSQL = """
        SELECT k.hash AS hash, t.id AS id, t.name AS name, t.created_at AS created_at,
            t.read_max_age_ms AS read_max_age_ms
        FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
        WHERE k.id = ? AND k.revoked_at IS NULL
        """

    /// Revokes a tenant's key by id (`key_…`). `false` when the tenant has no such key or it is already revoked.
    public func revokeAPIKey(tenantId: String, keyId: String) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("revokeAPIKey") { db in
            try db.execute(
                sql: "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND tenant_id = ? AND revoked_at IS NULL",
                arguments: [now, keyId, tenantId])
            return db.changesCount > 0
        }
    }

    /// A tenant's keys, oldest first, revoked ones included; never their secrets.
    public func apiKeys(tenantId: String) async throws -> [APIKeyInfo] {
        try await read("apiKeys") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, tenant_id, label, created_at, revoked_at FROM api_keys
                    WHERE tenant_id = ? ORDER BY created_at, id
                    """,
                arguments: [tenantId]
            ).map { row in
                APIKeyInfo(
                    id: try row.decode(forColumn: "id"), tenantId: try row.decode(forColumn: "tenant_id"),
                    label: try row.decode(forColumn: "label"),
                    createdAt: StoreClock.date(try row.decode(forColumn: "created_at")),
                    revokedAt: try row.decode(Int64?.self, forColumn: "revoked_at").map(StoreClock.date))
            }
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

    static let demoTenantKey = "demo_tenant_id"

    public func demoTenantId() async throws -> String? {
        try await read("demoTenantId") { db in
            try Data.fetchOne(db, sql: "SELECT value FROM store_meta WHERE key = ?", arguments: [Self.demoTenantKey])
                .map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// - Throws: `GatewayError(.notFound)` for an unknown tenant.
    public func setDemoTenantId(_ id: String) async throws {
        try await write("setDemoTenantId") { db in
            try Self.requireTenant(db, id)
            try db.execute(
                sql: "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [Self.demoTenantKey, Data(id.utf8)])
        }
    }
}

extension Tenant {
    init(row: Row) throws {
        self.init(
            id: try row.decode(forColumn: "id"), name: try row.decode(forColumn: "name"),
            createdAt: StoreClock.date(try row.decode(forColumn: "created_at")),
            readMaxAgeMs: try row.decode(Int?.self, forColumn: "read_max_age_ms"))
    }
}
