import Foundation
import GRDB
import GatewayStore

extension SQLiteStore {
    /// Implements `TenantStore.migrationsApplied()` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func migrationsApplied() async throws -> Bool {
        try await read("migrationsApplied") { db in try Self.migrator.hasCompletedMigrations(db) }
    }

    /// The schema, one named migration per change. Applied migrations are recorded in `grdb_migrations`; opening
    /// a database applies only the ones it lacks. Never edit a released migration: add the next `vN-…`.
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
                    """
            )
        }

        // The order journal: written before an order reaches a broker, never deleted by the gateway.
        migrator.registerMigration("v2-order-journal") { db in
            try db.execute(
                sql: """
                    -- request_hash: a digest of the canonical request. A key whose expires_at has passed is taken
                    -- over by the next claim. Keys are a cache of answers, so they go with their tenant.
                    CREATE TABLE idempotency_keys (
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        key TEXT NOT NULL,
                        request_hash TEXT NOT NULL,
                        order_id TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        PRIMARY KEY (tenant_id, key)
                    );

                    -- connection_id is plain text, not a foreign key: an order outlives an unlinked connection.
                    -- The tenant reference has no cascade either, so a tenant with journaled orders cannot be
                    -- deleted by accident. request and "order" are JSON (decimals as strings, dates as integer
                    -- milliseconds); "order" is the broker's latest view, NULL until the broker has the order.
                    CREATE TABLE orders (
                        id TEXT PRIMARY KEY NOT NULL,
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
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        UNIQUE (tenant_id, connection_id, client_order_id)
                    );
                    CREATE INDEX orders_tenant ON orders(tenant_id, id);
                    CREATE INDEX orders_state ON orders(state, created_at);
                    CREATE INDEX orders_connection ON orders(tenant_id, connection_id, created_at);

                    -- Every broker id an order ever had (a replace gives it a new one), so an old id still finds
                    -- the order; the primary key makes one broker order belong to at most one order.
                    -- created_at: when the id was recorded.
                    CREATE TABLE order_broker_ids (
                        order_id TEXT NOT NULL REFERENCES orders(id),
                        tenant_id TEXT NOT NULL,
                        connection_id TEXT NOT NULL,
                        broker_order_id TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (tenant_id, connection_id, broker_order_id)
                    );
                    CREATE INDEX order_broker_ids_connection ON order_broker_ids(tenant_id, connection_id, created_at);

                    -- An order's history, sequence from 1. status: the broker's order status after the event.
                    CREATE TABLE order_events (
                        order_id TEXT NOT NULL REFERENCES orders(id),
                        tenant_id TEXT NOT NULL,
                        sequence INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        state TEXT NOT NULL,
                        status TEXT,
                        broker_order_id TEXT,
                        detail TEXT,
                        at INTEGER NOT NULL,
                        PRIMARY KEY (order_id, sequence)
                    );

                    -- The journal is append-only below the API too: a bug (or a hand-written statement) that
                    -- would rewrite history or drop an order fails instead. Removing rows on purpose (retention,
                    -- erasure) takes a migration that drops these triggers.
                    CREATE TRIGGER orders_never_deleted BEFORE DELETE ON orders
                    BEGIN SELECT RAISE(ABORT, 'journaled orders are never deleted'); END;
                    CREATE TRIGGER order_broker_ids_never_changed BEFORE UPDATE ON order_broker_ids
                    BEGIN SELECT RAISE(ABORT, 'recorded broker order ids never change'); END;
                    CREATE TRIGGER order_broker_ids_never_deleted BEFORE DELETE ON order_broker_ids
                    BEGIN SELECT RAISE(ABORT, 'recorded broker order ids are never deleted'); END;
                    CREATE TRIGGER order_events_never_changed BEFORE UPDATE ON order_events
                    BEGIN SELECT RAISE(ABORT, 'order events are append-only'); END;
                    CREATE TRIGGER order_events_never_deleted BEFORE DELETE ON order_events
                    BEGIN SELECT RAISE(ABORT, 'order events are append-only'); END;
                    """
            )
        }

        // A tenant's default read freshness (`maxAgeMs`); NULL leaves it to the gateway's setting.
        migrator.registerMigration("v3-tenant-read-freshness") { db in
            try db.execute(sql: "ALTER TABLE tenants ADD COLUMN read_max_age_ms INTEGER")
        }

        // Built-in sandbox connections are `sandbox://<name>` only: the adapter's base path (Saxo's `/sim/openapi`,
        // TradeOgre's `/api/v1`) now comes with the sandbox's registration, and a `sandbox://` URL with a path is
        // refused (it reached the sandboxes' `/_sandbox/` admin API). The demo connections were stored with the path.
        migrator.registerMigration("v4-sandbox-urls-without-path") { db in
            for (name, path) in [("saxo", "/sim/openapi"), ("tradeogre", "/api/v1")] {
                try db.execute(
                    sql: "UPDATE connections SET base_url = ? WHERE base_url IN (?, ?)",
                    arguments: ["sandbox://\(name)", "sandbox://\(name)\(path)", "sandbox://\(name)\(path)/"]
                )
            }
        }

        // Released placements and claims across tenants (issue 12).
        migrator.registerMigration("v5-order-journal-venues") { db in
            try db.execute(
                sql: """
                    -- sent_at: when the intent was last sent (a released intent is sent again under the same row);
                    -- NULL for rows from before, which were sent once, at created_at.
                    ALTER TABLE orders ADD COLUMN sent_at INTEGER;

                    -- venue: the broker account the order went to, the same for every tenant and connection that
                    -- reach that account (broker, base URL, account id; see SQLiteStore.venueOfConnection), so that
                    -- reconciliation by matching never gives one broker order to two intents of any tenants.
                    ALTER TABLE orders ADD COLUMN venue TEXT;
                    UPDATE orders SET venue = (
                        SELECT \(SQLiteStore.venueOfConnection("connections", account: "orders.account_id")) FROM connections
                        WHERE connections.id = orders.connection_id);
                    ALTER TABLE order_broker_ids ADD COLUMN venue TEXT;
                    DROP TRIGGER order_broker_ids_never_changed;
                    UPDATE order_broker_ids SET venue = (SELECT venue FROM orders WHERE orders.id = order_broker_ids.order_id);
                    CREATE TRIGGER order_broker_ids_never_changed BEFORE UPDATE ON order_broker_ids
                    BEGIN SELECT RAISE(ABORT, 'recorded broker order ids never change'); END;
                    CREATE INDEX order_broker_ids_venue ON order_broker_ids(venue, created_at);
                    CREATE INDEX order_broker_ids_venue_order ON order_broker_ids(venue, broker_order_id);
                    """
            )
        }

        // Interactive links in progress, indexed by the state nonce's hash (see SQLiteStore+LinkStates).
        migrator.registerMigration("v6-link-states") { db in
            try db.execute(
                sql: """
                    -- state_hash: SHA-256 of the nonce the browser brings back to the callback; the nonce itself is
                    -- never stored. A connection has at most one row (a new link replaces it). consumed_at is set by
                    -- exactly one completion; a row past expires_at completes nothing.
                    CREATE TABLE link_states (
                        state_hash BLOB PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        connection_id TEXT NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        consumed_at INTEGER
                    );
                    CREATE INDEX link_states_connection ON link_states(tenant_id, connection_id);
                    CREATE INDEX link_states_expiry ON link_states(expires_at);
                    """
            )
        }

        // Tenancy (issue 13): users inside tenants own connections, watchlists and orders; API keys get scopes and may
        // be bound to a user; tenants can be disabled; an audit log per tenant.
        migrator.registerMigration("v7-tenancy") { db in
            try db.execute(
                sql: """
                    -- An end user inside a tenant. external_id: the app's own id for the user; email: lower-cased.
                    -- Both unique per tenant where set. password_hash (a PHC string), failed_logins and locked_until
                    -- are the end-user sessions' (NULL, 0, NULL until a password is set).
                    CREATE TABLE users (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        external_id TEXT,
                        email TEXT,
                        display_name TEXT,
                        password_hash TEXT,
                        failed_logins INTEGER NOT NULL DEFAULT 0,
                        locked_until INTEGER,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        UNIQUE (tenant_id, id)
                    );
                    CREATE INDEX users_tenant ON users(tenant_id, created_at, id);
                    CREATE UNIQUE INDEX users_external_id ON users(tenant_id, external_id) WHERE external_id IS NOT NULL;
                    CREATE UNIQUE INDEX users_email ON users(tenant_id, email) WHERE email IS NOT NULL;

                    -- A user's connections (and so their sealed credentials and link states) and gateway watchlists (below)
                    -- go with the user. The journal keeps user_id without a reference: orders moved money, so their rows
                    -- outlive the user (readable by a tenant admin only).
                    ALTER TABLE connections ADD COLUMN user_id TEXT REFERENCES users(id) ON DELETE CASCADE;
                    CREATE INDEX connections_user ON connections(tenant_id, user_id, created_at, id);
                    ALTER TABLE orders ADD COLUMN user_id TEXT;

                    -- scopes: comma-separated (read, trade, admin); '' grants nothing. user_id: a key bound to one
                    -- user acts for that user only. Not a reference: a deleted user's keys are revoked, and kept.
                    ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT '';
                    ALTER TABLE api_keys ADD COLUMN user_id TEXT;

                    -- A disabled tenant's keys (and sessions) are refused on their next request.
                    ALTER TABLE tenants ADD COLUMN disabled_at INTEGER;

                    -- What happened in a tenant, newest last (sequence). actor: a key id, a user id or 'operator'.
                    -- detail: a JSON object of safe fields only, never a secret, a password, a token or credentials.
                    CREATE TABLE audit_events (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        at INTEGER NOT NULL,
                        actor TEXT NOT NULL,
                        action TEXT NOT NULL,
                        target TEXT,
                        outcome TEXT NOT NULL,
                        detail TEXT NOT NULL DEFAULT '{}'
                    );
                    CREATE INDEX audit_events_tenant ON audit_events(tenant_id, sequence);
                    """
            )
            // Every tenant so far gets one user that owns everything it had, and every key is bound to it with all
            // three scopes: the demo key keeps showing the demo data, and older databases keep working.
            let demoTenant = try Data.fetchOne(
                db,
                sql: "SELECT value FROM store_meta WHERE key = ?",
                arguments: [StoreRules.demoTenantKey]
            ).map { String(decoding: $0, as: UTF8.self) }
            let now = StoreClock.nowMillis()
            for tenantId in try String.fetchAll(db, sql: "SELECT id FROM tenants ORDER BY created_at, id") {
                let userId = StoreIdentifier.make(StoreIdentifier.user)
                let isDemo = tenantId == demoTenant
                try db.execute(
                    sql: """
                        INSERT INTO users (id, tenant_id, external_id, display_name, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [userId, tenantId, isDemo ? "demo" : "default", isDemo ? "Demo user" : "Default user", now, now]
                )
                for table in ["connections", "orders"] {
                    try db.execute(sql: "UPDATE \(table) SET user_id = ? WHERE tenant_id = ?", arguments: [userId, tenantId])
                }
                try db.execute(
                    sql: "UPDATE api_keys SET user_id = ?, scopes = ? WHERE tenant_id = ?",
                    arguments: [userId, StoreRules.allScopesText, tenantId]
                )
            }
            // Watchlist names become unique per user (they were per tenant), which takes a new table; its user is a
            // user of its tenant by a composite reference.
            try db.execute(
                sql: """
                    CREATE TABLE watchlists_by_user (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        user_id TEXT,
                        name TEXT NOT NULL,
                        instruments TEXT NOT NULL DEFAULT '[]',
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        UNIQUE (tenant_id, user_id, name),
                        FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id) ON DELETE CASCADE
                    );
                    INSERT INTO watchlists_by_user (id, tenant_id, user_id, name, instruments, created_at, updated_at)
                    SELECT w.id, w.tenant_id, (SELECT u.id FROM users u WHERE u.tenant_id = w.tenant_id), w.name,
                        w.instruments, w.created_at, w.updated_at
                    FROM watchlists w;
                    DROP TABLE watchlists;
                    ALTER TABLE watchlists_by_user RENAME TO watchlists;
                    CREATE INDEX watchlists_tenant ON watchlists(tenant_id, created_at, id);
                    CREATE INDEX watchlists_user ON watchlists(tenant_id, user_id, created_at, id);
                    """
            )
            try db.execute(
                sql: """
                    -- Whatever writes a row, its user is one of its tenant's.
                    CREATE TRIGGER connections_user_of_tenant BEFORE INSERT ON connections
                    WHEN NEW.user_id IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id AND tenant_id = NEW.tenant_id)
                    BEGIN SELECT RAISE(ABORT, 'a connection belongs to a user of its tenant'); END;
                    CREATE TRIGGER orders_user_of_tenant BEFORE INSERT ON orders
                    WHEN NEW.user_id IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id AND tenant_id = NEW.tenant_id)
                    BEGIN SELECT RAISE(ABORT, 'an order belongs to a user of its tenant'); END;
                    CREATE TRIGGER api_keys_user_of_tenant BEFORE INSERT ON api_keys
                    WHEN NEW.user_id IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id AND tenant_id = NEW.tenant_id)
                    BEGIN SELECT RAISE(ABORT, 'a key is bound to a user of its tenant'); END;
                    CREATE TRIGGER connections_user_never_changes BEFORE UPDATE OF user_id, tenant_id ON connections
                    BEGIN SELECT RAISE(ABORT, 'a connection never changes its user'); END;
                    CREATE TRIGGER watchlists_user_never_changes BEFORE UPDATE OF user_id, tenant_id ON watchlists
                    BEGIN SELECT RAISE(ABORT, 'a watchlist never changes its user'); END;
                    CREATE TRIGGER orders_user_never_changes BEFORE UPDATE OF user_id, tenant_id ON orders
                    BEGIN SELECT RAISE(ABORT, 'an order never changes its user'); END;
                    """
            )
        }

        // End-user sessions (issue 13): a user's devices, their sessions (one live refresh token each, stored as a
        // hash; spent ones are kept to detect reuse), and one-time login codes minted by the tenant's backend.
        migrator.registerMigration("v8-sessions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE devices (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        type TEXT NOT NULL,
                        model TEXT,
                        os TEXT,
                        app_version TEXT,
                        fingerprint TEXT,
                        trusted INTEGER NOT NULL DEFAULT 0,
                        created_at INTEGER NOT NULL,
                        last_seen_at INTEGER NOT NULL
                    );
                    CREATE INDEX devices_user ON devices(tenant_id, user_id, created_at, id);
                    CREATE UNIQUE INDEX devices_fingerprint ON devices(user_id, fingerprint) WHERE fingerprint IS NOT NULL;

                    -- refresh_hash: SHA-256 of the session's one live refresh token. expires_at: the session's absolute
                    -- end. revoked_at/revoked_reason: logout, device removal, or refresh reuse (the whole family).
                    CREATE TABLE sessions (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                        refresh_hash BLOB NOT NULL UNIQUE,
                        created_at INTEGER NOT NULL,
                        refreshed_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        revoked_at INTEGER,
                        revoked_reason TEXT
                    );
                    CREATE INDEX sessions_user ON sessions(tenant_id, user_id, created_at);
                    CREATE INDEX sessions_device ON sessions(device_id);

                    -- Refresh tokens already exchanged: presenting one again revokes its session.
                    CREATE TABLE spent_refresh_tokens (
                        hash BLOB PRIMARY KEY NOT NULL,
                        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                        spent_at INTEGER NOT NULL
                    );

                    -- hash: SHA-256 of a one-time login code; spent once, before it expires.
                    CREATE TABLE login_codes (
                        hash BLOB PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        expires_at INTEGER NOT NULL,
                        used_at INTEGER
                    );
                    """
            )
        }

        // Named leases (issue 14): which of several processes on one database is the reconciler's leader.
        migrator.registerMigration("v9-leases") { db in
            try db.execute(
                sql: """
                    -- holder: the instance's own random id; expires_at: milliseconds since 1970. A lease past its expiry
                    -- is free; see LeaderLeaseStore.
                    CREATE TABLE leases (
                        name TEXT PRIMARY KEY NOT NULL,
                        holder TEXT NOT NULL,
                        acquired_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    """
            )
        }

        // Goals (issue 16, seed 002): a user's target value and the holdings allocated to it. allocations is JSON
        // (decimals as strings); target_value the decimal's canonical text.
        migrator.registerMigration("v11-goals") { db in
            try db.execute(
                sql: """
                    CREATE TABLE goals (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        user_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        target_value TEXT NOT NULL,
                        currency TEXT NOT NULL,
                        allocations TEXT NOT NULL DEFAULT '[]',
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        UNIQUE (tenant_id, user_id, name),
                        FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id) ON DELETE CASCADE
                    );
                    CREATE INDEX goals_user ON goals(tenant_id, user_id, created_at, id);
                    CREATE TRIGGER goals_user_never_changes BEFORE UPDATE OF user_id, tenant_id ON goals
                    BEGIN SELECT RAISE(ABORT, 'a goal never changes its user'); END;
                    """
            )
        }

        // Alerts (issue 16, alerts): a user's price and order alerts and each one's delivery log. rule and channels
        // are JSON (the threshold a decimal string); webhook_secret is sealed with the credential cipher (the tenant
        // and alert ids authenticated), never stored in clear. The log's sequence orders it (newest first on reads).
        migrator.registerMigration("v12-alerts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE alerts (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
                        user_id TEXT NOT NULL,
                        name TEXT,
                        rule TEXT NOT NULL,
                        channels TEXT NOT NULL DEFAULT '{}',
                        enabled INTEGER NOT NULL DEFAULT 1,
                        rearm TEXT NOT NULL,
                        armed INTEGER NOT NULL DEFAULT 1,
                        webhook_secret BLOB NOT NULL,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        last_fired_at INTEGER,
                        FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id) ON DELETE CASCADE
                    );
                    CREATE INDEX alerts_user ON alerts(tenant_id, user_id, created_at, id);
                    CREATE INDEX alerts_enabled ON alerts(enabled);
                    CREATE TRIGGER alerts_user_never_changes BEFORE UPDATE OF user_id, tenant_id ON alerts
                    BEGIN SELECT RAISE(ABORT, 'an alert never changes its user'); END;
                    CREATE TABLE alert_deliveries (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        tenant_id TEXT NOT NULL,
                        alert_id TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
                        event_id TEXT NOT NULL,
                        channel TEXT NOT NULL,
                        attempt INTEGER NOT NULL,
                        at INTEGER NOT NULL,
                        outcome TEXT NOT NULL,
                        http_status INTEGER,
                        error TEXT,
                        test INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX alert_deliveries_alert ON alert_deliveries(tenant_id, alert_id, sequence);
                    """
            )
        }

        // The stream (issue 16): the broker's last known order status as a column, so that the order watcher finds
        // the open orders without reading every order's JSON; the journal's rowid is the order feed's cursor. An
        // order whose JSON does not read is left without one (it is not watched; reading it reports the damage).
        migrator.registerMigration("v13-order-feed") { db in
            try db.execute(
                sql: """
                    ALTER TABLE orders ADD COLUMN broker_status TEXT;
                    UPDATE orders SET broker_status = json_extract("order", '$.status')
                        WHERE "order" IS NOT NULL AND json_valid("order");
                    CREATE INDEX orders_open ON orders(state, broker_status, updated_at);
                    CREATE INDEX orders_user ON orders(tenant_id, user_id);
                    """
            )
        }

        // A broker that starts over (a paper account reset, a simulator without its state) hands out order ids it
        // gave before (issue 26). A broker order id is bound to at most one live order of a connection and of a
        // venue, as before; the placement answer that reuses one retires the older binding (`retired_at`) instead of
        // being refused, so the new order is recorded as itself and the older one keeps its history and its view.
        // Bindings are still never deleted, and the only change a row may take is its retirement, once.
        migrator.registerMigration("v14-broker-id-reuse") { db in
            try db.execute(
                sql: """
                    CREATE TABLE order_broker_ids_v14 (
                        order_id TEXT NOT NULL REFERENCES orders(id),
                        tenant_id TEXT NOT NULL,
                        connection_id TEXT NOT NULL,
                        broker_order_id TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        venue TEXT,
                        retired_at INTEGER,
                        PRIMARY KEY (tenant_id, connection_id, broker_order_id, order_id)
                    );
                    INSERT INTO order_broker_ids_v14 (order_id, tenant_id, connection_id, broker_order_id, created_at, venue)
                        SELECT order_id, tenant_id, connection_id, broker_order_id, created_at, venue FROM order_broker_ids;
                    DROP TABLE order_broker_ids;
                    ALTER TABLE order_broker_ids_v14 RENAME TO order_broker_ids;
                    CREATE UNIQUE INDEX order_broker_ids_live ON order_broker_ids(tenant_id, connection_id, broker_order_id)
                        WHERE retired_at IS NULL;
                    CREATE INDEX order_broker_ids_connection ON order_broker_ids(tenant_id, connection_id, created_at);
                    CREATE INDEX order_broker_ids_venue ON order_broker_ids(venue, created_at);
                    CREATE INDEX order_broker_ids_venue_order ON order_broker_ids(venue, broker_order_id);
                    CREATE TRIGGER order_broker_ids_never_changed BEFORE UPDATE ON order_broker_ids
                    WHEN NOT (OLD.retired_at IS NULL AND NEW.retired_at IS NOT NULL AND NEW.order_id IS OLD.order_id
                        AND NEW.tenant_id IS OLD.tenant_id AND NEW.connection_id IS OLD.connection_id
                        AND NEW.broker_order_id IS OLD.broker_order_id AND NEW.created_at IS OLD.created_at
                        AND NEW.venue IS OLD.venue)
                    BEGIN SELECT RAISE(ABORT, 'recorded broker order ids never change (a binding is only retired, once)'); END;
                    CREATE TRIGGER order_broker_ids_never_deleted BEFORE DELETE ON order_broker_ids
                    BEGIN SELECT RAISE(ABORT, 'recorded broker order ids are never deleted'); END;
                    """
            )
        }

        // A device's push token (seed 003, issue 26): registered by the app for its current device, pushed to by an
        // alert whose APNs channel targets the user's devices. One device per token per user (registering it on
        // another device moves it); a token APNs reports invalid is kept inactive, with when and why. A delivery
        // attempt names the device it pushed to.
        migrator.registerMigration("v15-push-tokens") { db in
            try db.execute(
                sql: """
                    ALTER TABLE devices ADD COLUMN push_token TEXT;
                    ALTER TABLE devices ADD COLUMN push_platform TEXT;
                    ALTER TABLE devices ADD COLUMN push_active INTEGER;
                    ALTER TABLE devices ADD COLUMN push_registered_at INTEGER;
                    ALTER TABLE devices ADD COLUMN push_deactivated_at INTEGER;
                    ALTER TABLE devices ADD COLUMN push_deactivated_reason TEXT;
                    CREATE UNIQUE INDEX devices_push_token ON devices(tenant_id, user_id, push_token)
                        WHERE push_token IS NOT NULL;
                    ALTER TABLE alert_deliveries ADD COLUMN device_id TEXT;
                    """
            )
        }

        return migrator
    }()

    /// The venue of an order placed through the connection row `table` for the account `account` (SQL expressions):
    /// broker, base URL (lower case, without a trailing slash) and account id, one per line. Two tenants that link
    /// the same broker account get the same venue.
    static func venueOfConnection(_ table: String, account: String) -> String {
        "\(table).broker || char(10) || rtrim(lower(\(table).base_url), '/') || char(10) || \(account)"
    }
}
