import GRDB

extension SQLiteStore {
    /// The schema, one named migration per change. Applied migrations are recorded in `grdb_migrations`; opening
    /// a database applies only the ones it lacks. Never edit a released migration: add `v2-…`
    /// (the order journal and idempotency keys come next).
    ///
    /// Conventions: ids are the store's prefixed random strings; timestamps are integer milliseconds since 1970;
    /// JSON columns hold UTF-8 text; every tenant-owned table has `tenant_id` first in an index.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1-initial") { db in
            try db.execute(
                sql: """
                    CREATE TABLE tenants (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    );

                    -- hash: SHA-256 of the key's secret; the plaintext is never stored.
                    CREATE TABLE api_keys (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        label TEXT NOT NULL,
                        hash BLOB NOT NULL,
                        created_at INTEGER NOT NULL,
                        revoked_at INTEGER
                    );
                    CREATE INDEX api_keys_tenant ON api_keys(tenant_id, created_at);

                    -- credentials_ciphertext: AES-256-GCM, bound to (tenant_id, id); see CredentialCipher.
                    CREATE TABLE connections (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        broker TEXT NOT NULL,
                        display_name TEXT NOT NULL,
                        base_url TEXT NOT NULL,
                        settings TEXT NOT NULL DEFAULT '{}',
                        status TEXT NOT NULL,
                        status_detail TEXT,
                        credentials_ciphertext BLOB NOT NULL,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL
                    );
                    CREATE INDEX connections_tenant ON connections(tenant_id, created_at, id);

                    CREATE TABLE watchlists (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        instruments TEXT NOT NULL DEFAULT '[]',
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        UNIQUE (tenant_id, name)
                    );
                    CREATE INDEX watchlists_tenant ON watchlists(tenant_id, created_at, id);

                    -- Store-wide values, e.g. the master key check.
                    CREATE TABLE store_meta (
                        key TEXT PRIMARY KEY NOT NULL,
                        value BLOB NOT NULL
                    );
                    """)
        }

        return migrator
    }()
}
