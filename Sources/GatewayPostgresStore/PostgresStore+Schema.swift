import Foundation
import GatewayCore
import GatewayStore
import PostgresNIO

/// The schema on PostgreSQL, one named migration per change, recorded in `schema_migrations`.
///
/// It mirrors the SQLite store's migrations (`SQLiteStore+Schema.swift`) in what the tables hold and guarantee, not
/// step by step: there is no PostgreSQL database from before this store, so a fresh database gets the schema as the
/// SQLite one stands at `v8-sessions` in one migration, `v8-schema`, and later changes are added to both lists under
/// the same name (`v9-leases`). Never edit a released migration: add the next one.
///
/// Two instances that start at once on a fresh database both call ``migrate()``: each takes a transaction-scoped
/// advisory lock (`pg_advisory_xact_lock`, keyed by the schema) before it reads `schema_migrations`, so the second
/// waits until the first has committed and then finds nothing left to apply. DDL is transactional here, so a
/// migration that fails leaves nothing half-applied.
///
/// Differences in kind from SQLite, with the same guarantees: timestamps are `BIGINT` milliseconds since 1970 (as
/// SQLite's integers), blobs `BYTEA`, JSON columns `TEXT` (the exact text the store wrote, decimals as strings);
/// "a row's user is one of its tenant's" is a composite foreign key `(tenant_id, user_id) → users(tenant_id, id)`
/// where the row goes with its user, and a trigger where it outlives the user (orders, API keys); the journal's
/// append-only triggers raise an exception as SQLite's `RAISE(ABORT)` does.
extension PostgresStore {
    static let migrations: [(name: String, sql: String)] = [
        ("v8-schema", schemaV8),
        ("v9-leases", leasesV9),
        ("v10-change-stamp", changeStampV10),
        ("v11-goals", goalsV11),
        ("v12-alerts", alertsV12),
        ("v13-order-feed", orderFeedV13),
        ("v14-broker-id-reuse", brokerIdReuseV14),
        ("v15-push-tokens", pushTokensV15),
    ]

    /// Implements `TenantStore.migrationsApplied()` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func migrationsApplied() async throws -> Bool {
        try await read("migrationsApplied") { db in
            let applied = Set(try await db.rows("SELECT name FROM schema_migrations").map { try $0.string("name") })
            return Self.migrations.allSatisfy { applied.contains($0.name) }
        }
    }

    /// The names of the migrations applied to this database, in the order they were applied.
    public func appliedMigrations() async throws -> [String] {
        try await read("appliedMigrations") { db in
            try await db.rows("SELECT name FROM schema_migrations ORDER BY applied_order").map { try $0.string("name") }
        }
    }

    /// Applies the migrations this database lacks, in one transaction, under the schema's migration lock.
    func migrate() async throws {
        try await write("migrate") { db in
            // One lock per schema, taken before anything is read or made in it; released at commit or rollback.
            try await db.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('brokergateway.migrations.' || ?, 0))",
                [schema ?? ""]
            )
            if let schema {
                // Only a plain identifier is ever written into the statement.
                guard PostgresStoreSettings.isPlainIdentifier(schema) else {
                    throw GatewayError(.internalError, "the PostgreSQL schema name must be letters, digits and underscores")
                }
                try await db.execute("CREATE SCHEMA IF NOT EXISTS \"\(schema)\"")
            }
            try await db.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    name TEXT PRIMARY KEY,
                    applied_order BIGINT NOT NULL UNIQUE,
                    applied_at BIGINT NOT NULL
                )
                """
            )
            let applied = Set(try await db.rows("SELECT name FROM schema_migrations").map { try $0.string("name") })
            for (index, migration) in Self.migrations.enumerated() where !applied.contains(migration.name) {
                logger.info("applying a database migration", metadata: ["migration": .string(migration.name)])
                for statement in Self.statements(migration.sql) {
                    try await db.execute(statement)
                }
                try await db.execute(
                    "INSERT INTO schema_migrations (name, applied_order, applied_at) VALUES (?, ?, ?)",
                    [migration.name, index + 1, StoreClock.nowMillis()]
                )
            }
        }
    }

    /// A migration's text as its statements: split after each line that ends with `;`, except inside a `$$` body.
    /// (The extended query protocol takes one statement at a time.)
    static func statements(_ sql: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var inBody = false
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            current += line + "\n"
            if line.components(separatedBy: "$$").count % 2 == 0 { inBody.toggle() }
            if !inBody, line.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
                statements.append(current)
                current = ""
            }
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { statements.append(current) }
        return statements
    }

    static let schemaV8 = """
        CREATE TABLE tenants (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            read_max_age_ms BIGINT,
            disabled_at BIGINT
        );

        -- Store-wide values: the master key check, the demo tenant.
        CREATE TABLE store_meta (
            key TEXT PRIMARY KEY,
            value BYTEA NOT NULL
        );

        -- An end user inside a tenant. external_id: the app's own id for the user; email: lower-cased. Both unique
        -- per tenant where set. password_hash (a PHC string), failed_logins and locked_until are the sessions'.
        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            external_id TEXT,
            email TEXT,
            display_name TEXT,
            password_hash TEXT,
            failed_logins BIGINT NOT NULL DEFAULT 0,
            locked_until BIGINT,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            UNIQUE (tenant_id, id)
        );
        CREATE INDEX users_tenant ON users(tenant_id, created_at, id);
        CREATE UNIQUE INDEX users_external_id ON users(tenant_id, external_id) WHERE external_id IS NOT NULL;
        CREATE UNIQUE INDEX users_email ON users(tenant_id, email) WHERE email IS NOT NULL;

        -- hash: SHA-256 of the key's secret; the plaintext is never stored. scopes: comma-separated (read, trade,
        -- admin). user_id: a key bound to one user acts for that user only; not a reference (a deleted user's keys
        -- are revoked, and kept), so a trigger below keeps it a user of the key's tenant.
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            label TEXT NOT NULL,
            hash BYTEA NOT NULL,
            created_at BIGINT NOT NULL,
            revoked_at BIGINT,
            scopes TEXT NOT NULL DEFAULT '',
            user_id TEXT
        );
        CREATE INDEX api_keys_tenant ON api_keys(tenant_id, created_at);

        -- credentials_ciphertext: AES-256-GCM, bound to (tenant_id, id); see CredentialCipher. A user's connections
        -- go with the user.
        CREATE TABLE connections (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            user_id TEXT,
            broker TEXT NOT NULL,
            display_name TEXT NOT NULL,
            base_url TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL,
            status_detail TEXT,
            credentials_ciphertext BYTEA NOT NULL,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            UNIQUE (tenant_id, id),
            FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id) ON DELETE CASCADE
        );
        CREATE INDEX connections_tenant ON connections(tenant_id, created_at, id);
        CREATE INDEX connections_user ON connections(tenant_id, user_id, created_at, id);

        CREATE TABLE watchlists (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            user_id TEXT,
            name TEXT NOT NULL,
            instruments TEXT NOT NULL DEFAULT '[]',
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            UNIQUE (tenant_id, user_id, name),
            FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id) ON DELETE CASCADE
        );
        CREATE INDEX watchlists_tenant ON watchlists(tenant_id, created_at, id);
        CREATE INDEX watchlists_user ON watchlists(tenant_id, user_id, created_at, id);

        -- request_hash: a digest of the canonical request. A key whose expires_at has passed is taken over by the
        -- next claim. Keys are a cache of answers, so they go with their tenant.
        CREATE TABLE idempotency_keys (
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            request_hash TEXT NOT NULL,
            order_id TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            PRIMARY KEY (tenant_id, key)
        );

        -- The order journal: written before an order reaches a broker, never deleted by the gateway.
        -- connection_id is plain text: an order outlives an unlinked connection; the tenant reference has no
        -- cascade. request and "order" are JSON text (decimals as strings, dates as integer milliseconds).
        -- venue: the broker account the order went to (broker, base URL, account id, one per line); user_id: the
        -- connection's user when the intent was written, kept after the user is gone.
        CREATE TABLE orders (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            connection_id TEXT NOT NULL,
            account_id TEXT NOT NULL,
            client_order_id TEXT NOT NULL,
            request TEXT NOT NULL,
            state TEXT NOT NULL,
            broker_order_id TEXT,
            "order" TEXT,
            error_code TEXT,
            error_message TEXT,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            sent_at BIGINT,
            venue TEXT,
            user_id TEXT,
            UNIQUE (tenant_id, connection_id, client_order_id)
        );
        CREATE INDEX orders_tenant ON orders(tenant_id, id);
        CREATE INDEX orders_state ON orders(state, created_at);
        CREATE INDEX orders_connection ON orders(tenant_id, connection_id, created_at);

        -- Every broker id an order ever had; the primary key makes one broker order belong to at most one order of
        -- a connection, and the venue index to at most one order at a broker account, whatever tenant placed it.
        CREATE TABLE order_broker_ids (
            order_id TEXT NOT NULL REFERENCES orders(id),
            tenant_id TEXT NOT NULL,
            connection_id TEXT NOT NULL,
            broker_order_id TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            venue TEXT,
            PRIMARY KEY (tenant_id, connection_id, broker_order_id)
        );
        CREATE INDEX order_broker_ids_connection ON order_broker_ids(tenant_id, connection_id, created_at);
        CREATE INDEX order_broker_ids_venue ON order_broker_ids(venue, created_at);
        CREATE UNIQUE INDEX order_broker_ids_venue_order ON order_broker_ids(venue, broker_order_id)
            WHERE venue IS NOT NULL;

        CREATE TABLE order_events (
            order_id TEXT NOT NULL REFERENCES orders(id),
            tenant_id TEXT NOT NULL,
            sequence BIGINT NOT NULL,
            kind TEXT NOT NULL,
            state TEXT NOT NULL,
            status TEXT,
            broker_order_id TEXT,
            detail TEXT,
            at BIGINT NOT NULL,
            PRIMARY KEY (order_id, sequence)
        );

        CREATE TABLE link_states (
            state_hash BYTEA PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            connection_id TEXT NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            consumed_at BIGINT
        );
        CREATE INDEX link_states_connection ON link_states(tenant_id, connection_id);
        CREATE INDEX link_states_expiry ON link_states(expires_at);

        -- What happened in a tenant, newest last (sequence). detail: a JSON object of safe fields only.
        CREATE TABLE audit_events (
            sequence BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            at BIGINT NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            target TEXT,
            outcome TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX audit_events_tenant ON audit_events(tenant_id, sequence);

        CREATE TABLE devices (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            name TEXT NOT NULL,
            type TEXT NOT NULL,
            model TEXT,
            os TEXT,
            app_version TEXT,
            fingerprint TEXT,
            trusted BOOLEAN NOT NULL DEFAULT FALSE,
            created_at BIGINT NOT NULL,
            last_seen_at BIGINT NOT NULL,
            FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id) ON DELETE CASCADE
        );
        CREATE INDEX devices_user ON devices(tenant_id, user_id, created_at, id);
        CREATE UNIQUE INDEX devices_fingerprint ON devices(user_id, fingerprint) WHERE fingerprint IS NOT NULL;

        -- refresh_hash: SHA-256 of the session's one live refresh token.
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            refresh_hash BYTEA NOT NULL UNIQUE,
            created_at BIGINT NOT NULL,
            refreshed_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            revoked_at BIGINT,
            revoked_reason TEXT,
            FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id) ON DELETE CASCADE
        );
        CREATE INDEX sessions_user ON sessions(tenant_id, user_id, created_at);
        CREATE INDEX sessions_device ON sessions(device_id);

        CREATE TABLE spent_refresh_tokens (
            hash BYTEA PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            spent_at BIGINT NOT NULL
        );

        CREATE TABLE login_codes (
            hash BYTEA PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            expires_at BIGINT NOT NULL,
            used_at BIGINT,
            FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id) ON DELETE CASCADE
        );

        -- Refuses the statement with the trigger's message: the journal is append-only below the API too.
        CREATE FUNCTION brokergateway_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '%', TG_ARGV[0];
        END $$;

        CREATE TRIGGER orders_never_deleted BEFORE DELETE ON orders
            FOR EACH ROW EXECUTE FUNCTION brokergateway_refuse('journaled orders are never deleted');
        CREATE TRIGGER order_broker_ids_never_changed BEFORE UPDATE ON order_broker_ids
            FOR EACH ROW EXECUTE FUNCTION brokergateway_refuse('recorded broker order ids never change');
        CREATE TRIGGER order_broker_ids_never_deleted BEFORE DELETE ON order_broker_ids
            FOR EACH ROW EXECUTE FUNCTION brokergateway_refuse('recorded broker order ids are never deleted');
        CREATE TRIGGER order_events_never_changed BEFORE UPDATE ON order_events
            FOR EACH ROW EXECUTE FUNCTION brokergateway_refuse('order events are append-only');
        CREATE TRIGGER order_events_never_deleted BEFORE DELETE ON order_events
            FOR EACH ROW EXECUTE FUNCTION brokergateway_refuse('order events are append-only');

        -- Whatever writes a row, its user is one of its tenant's, and never changes.
        CREATE FUNCTION brokergateway_user_of_tenant() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.user_id IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id AND tenant_id = NEW.tenant_id) THEN
                RAISE EXCEPTION '%', TG_ARGV[0];
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER orders_user_of_tenant BEFORE INSERT ON orders
            FOR EACH ROW EXECUTE FUNCTION brokergateway_user_of_tenant('an order belongs to a user of its tenant');
        CREATE TRIGGER api_keys_user_of_tenant BEFORE INSERT ON api_keys
            FOR EACH ROW EXECUTE FUNCTION brokergateway_user_of_tenant('a key is bound to a user of its tenant');
        CREATE TRIGGER connections_user_never_changes BEFORE UPDATE OF user_id, tenant_id ON connections
            FOR EACH ROW EXECUTE FUNCTION brokergateway_refuse('a connection never changes its user');
        CREATE TRIGGER watchlists_user_never_changes BEFORE UPDATE OF user_id, tenant_id ON watchlists
            FOR EACH ROW EXECUTE FUNCTION brokergateway_refuse('a watchlist never changes its user');
        CREATE TRIGGER orders_user_never_changes BEFORE UPDATE OF user_id, tenant_id ON orders
            FOR EACH ROW EXECUTE FUNCTION brokergateway_refuse('an order never changes its user');
        """

    static let leasesV9 = """
        -- Named leases (the reconciler's leadership): held by holder until expires_at (milliseconds since 1970).
        CREATE TABLE leases (
            name TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            acquired_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        );
        """

    /// PostgreSQL only (SQLite has `PRAGMA data_version`): see `PostgresStore+ChangeStamp`.
    static let changeStampV10 = """
        -- The change stamp: bumped at commit by every transaction that wrote a table the application caches.
        CREATE TABLE store_change (
            id SMALLINT PRIMARY KEY CHECK (id = 1),
            stamp BIGINT NOT NULL
        );
        INSERT INTO store_change (id, stamp) VALUES (1, 0);
        CREATE FUNCTION brokergateway_bump_store_change() RETURNS trigger LANGUAGE plpgsql
            SET search_path FROM CURRENT AS $$
        BEGIN
            UPDATE store_change SET stamp = stamp + 1 WHERE id = 1;
            RETURN NULL;
        END
        $$;
        CREATE CONSTRAINT TRIGGER tenants_change AFTER INSERT OR UPDATE OR DELETE ON tenants
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION brokergateway_bump_store_change();
        CREATE CONSTRAINT TRIGGER api_keys_change AFTER INSERT OR UPDATE OR DELETE ON api_keys
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION brokergateway_bump_store_change();
        CREATE CONSTRAINT TRIGGER users_change AFTER INSERT OR UPDATE OR DELETE ON users
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION brokergateway_bump_store_change();
        CREATE CONSTRAINT TRIGGER sessions_change AFTER INSERT OR UPDATE OR DELETE ON sessions
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION brokergateway_bump_store_change();
        CREATE CONSTRAINT TRIGGER devices_change AFTER INSERT OR UPDATE OR DELETE ON devices
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION brokergateway_bump_store_change();
        CREATE CONSTRAINT TRIGGER connections_change AFTER INSERT OR UPDATE OR DELETE ON connections
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION brokergateway_bump_store_change();
        """

    /// The stream (issue 16), as SQLite's `v13-order-feed`: the broker's last known order status as a column, and
    /// the journal events' feed id, the order feed's cursor (taken under a lock that orders the commits, see
    /// `append`). An order whose JSON does not read is left without a status.
    static let orderFeedV13 = """
        ALTER TABLE orders ADD COLUMN broker_status TEXT;
        DO $$
        DECLARE r RECORD;
        BEGIN
            FOR r IN SELECT id, "order" FROM orders WHERE "order" IS NOT NULL LOOP
                BEGIN
                    UPDATE orders SET broker_status = (r."order"::jsonb ->> 'status') WHERE id = r.id;
                EXCEPTION WHEN others THEN NULL;
                END;
            END LOOP;
        END $$;
        CREATE INDEX orders_open ON orders(state, broker_status, updated_at);
        CREATE INDEX orders_user ON orders(tenant_id, user_id);
        ALTER TABLE order_events ADD COLUMN feed_id BIGSERIAL;
        CREATE UNIQUE INDEX order_events_feed ON order_events(feed_id);
        """

    /// A broker order id reused by a broker that started over (issue 26), as SQLite's `v14-broker-id-reuse`: a
    /// binding is retired (`retired_at`) by the placement answer that reuses its id, never deleted; at most one live
    /// binding per connection and per venue.
    static let brokerIdReuseV14 = """
        ALTER TABLE order_broker_ids ADD COLUMN retired_at BIGINT;
        ALTER TABLE order_broker_ids DROP CONSTRAINT order_broker_ids_pkey;
        ALTER TABLE order_broker_ids ADD PRIMARY KEY (tenant_id, connection_id, broker_order_id, order_id);
        CREATE UNIQUE INDEX order_broker_ids_live ON order_broker_ids(tenant_id, connection_id, broker_order_id)
            WHERE retired_at IS NULL;
        DROP INDEX order_broker_ids_venue_order;
        CREATE UNIQUE INDEX order_broker_ids_venue_order ON order_broker_ids(venue, broker_order_id)
            WHERE venue IS NOT NULL AND retired_at IS NULL;
        CREATE FUNCTION brokergateway_retire_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.retired_at IS NULL AND NEW.retired_at IS NOT NULL
                AND (NEW.order_id, NEW.tenant_id, NEW.connection_id, NEW.broker_order_id, NEW.created_at, NEW.venue)
                    IS NOT DISTINCT FROM
                    (OLD.order_id, OLD.tenant_id, OLD.connection_id, OLD.broker_order_id, OLD.created_at, OLD.venue) THEN
                RETURN NEW;
            END IF;
            RAISE EXCEPTION '%', TG_ARGV[0];
        END $$;
        DROP TRIGGER order_broker_ids_never_changed ON order_broker_ids;
        CREATE TRIGGER order_broker_ids_never_changed BEFORE UPDATE ON order_broker_ids
            FOR EACH ROW EXECUTE FUNCTION brokergateway_retire_only('recorded broker order ids never change (a binding is only retired, once)');
        """

    /// A device's push token (seed 003, issue 26), as SQLite's `v15-push-tokens`: one device per token per user; a
    /// token APNs reports invalid is kept inactive, with when and why; a delivery attempt names the device it pushed to.
    static let pushTokensV15 = """
        ALTER TABLE devices ADD COLUMN push_token TEXT;
        ALTER TABLE devices ADD COLUMN push_platform TEXT;
        ALTER TABLE devices ADD COLUMN push_active BOOLEAN;
        ALTER TABLE devices ADD COLUMN push_registered_at BIGINT;
        ALTER TABLE devices ADD COLUMN push_deactivated_at BIGINT;
        ALTER TABLE devices ADD COLUMN push_deactivated_reason TEXT;
        CREATE UNIQUE INDEX devices_push_token ON devices(tenant_id, user_id, push_token) WHERE push_token IS NOT NULL;
        ALTER TABLE alert_deliveries ADD COLUMN device_id TEXT;
        """

    /// Goals (issue 16, seed 002), as SQLite's `v11-goals`.
    static let goalsV11 = """
        CREATE TABLE goals (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            name TEXT NOT NULL,
            target_value TEXT NOT NULL,
            currency TEXT NOT NULL,
            allocations TEXT NOT NULL DEFAULT '[]',
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            UNIQUE (tenant_id, user_id, name),
            FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id) ON DELETE CASCADE
        );
        CREATE INDEX goals_user ON goals(tenant_id, user_id, created_at, id);
        CREATE TRIGGER goals_user_never_changes BEFORE UPDATE OF user_id, tenant_id ON goals
            FOR EACH ROW EXECUTE FUNCTION brokergateway_refuse('a goal never changes its user');
        """

    /// Alerts and their delivery logs (issue 16, alerts), as SQLite's `v12-alerts`.
    static let alertsV12 = """
        CREATE TABLE alerts (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            name TEXT,
            rule TEXT NOT NULL,
            channels TEXT NOT NULL DEFAULT '{}',
            enabled BOOLEAN NOT NULL DEFAULT TRUE,
            rearm TEXT NOT NULL,
            armed BOOLEAN NOT NULL DEFAULT TRUE,
            webhook_secret BYTEA NOT NULL,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            last_fired_at BIGINT,
            FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id) ON DELETE CASCADE
        );
        CREATE INDEX alerts_user ON alerts(tenant_id, user_id, created_at, id);
        CREATE INDEX alerts_enabled ON alerts(enabled);
        CREATE TRIGGER alerts_user_never_changes BEFORE UPDATE OF user_id, tenant_id ON alerts
            FOR EACH ROW EXECUTE FUNCTION brokergateway_refuse('an alert never changes its user');
        CREATE TABLE alert_deliveries (
            sequence BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            tenant_id TEXT NOT NULL,
            alert_id TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
            event_id TEXT NOT NULL,
            channel TEXT NOT NULL,
            attempt BIGINT NOT NULL,
            at BIGINT NOT NULL,
            outcome TEXT NOT NULL,
            http_status BIGINT,
            error TEXT,
            test BOOLEAN NOT NULL DEFAULT FALSE
        );
        CREATE INDEX alert_deliveries_alert ON alert_deliveries(tenant_id, alert_id, sequence);
        """
}
