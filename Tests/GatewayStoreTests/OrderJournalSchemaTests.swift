import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Order journal: schema")
struct OrderJournalSchemaTests {
    @Test("v2-order-journal adds the journal's tables and indexes")
    func tablesAndIndexes() async throws {
        try await withStore { store, _ in
            #expect(
                try await store.appliedMigrations() == [
                    "v1-initial", "v2-order-journal", "v3-tenant-read-freshness", "v4-sandbox-urls-without-path", "v5-order-journal-venues",
                    "v6-link-states", "v7-tenancy", "v8-sessions", "v9-leases", "v11-goals", "v12-alerts", "v13-order-feed", "v14-broker-id-reuse",
                    "v15-push-tokens",
                ]
            )
            let tables = try await store.fetchRawStrings(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
            #expect(Set(["idempotency_keys", "orders", "order_broker_ids", "order_events"]).isSubset(of: tables))
            let indexes = try await store.fetchRawStrings(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
            #expect(
                Set([
                    "orders_tenant", "orders_state", "orders_connection", "order_broker_ids_connection", "order_broker_ids_venue",
                    "order_broker_ids_venue_order",
                ])
                .isSubset(of: indexes)
            )
            // connection_id is no foreign key: orders outlive connections.
            let orderReferences = try await store.fetchRawStrings(#"SELECT "table" FROM pragma_foreign_key_list('orders')"#)
            #expect(orderReferences == ["tenants"])
        }
    }

    @Test("the journal's look-ups use indexes, not scans")
    func queryPlans() async throws {
        try await withStore { store, _ in
            let byBrokerId = try await store.queryPlan(
                "SELECT order_id FROM order_broker_ids WHERE tenant_id = ? AND connection_id = ? AND broker_order_id = ?",
                arguments: ["t", "c", "b"]
            )
            #expect(byBrokerId.allSatisfy { !$0.hasPrefix("SCAN") }, "\(byBrokerId)")
            let pending = try await store.queryPlan(
                "SELECT id FROM orders WHERE state IN (?, ?) ORDER BY created_at, id LIMIT 10",
                arguments: ["unknown", "submitting"]
            )
            #expect(pending.contains { $0.contains("orders_state") }, "\(pending)")
            let claimed = try await store.queryPlan(
                "SELECT broker_order_id FROM order_broker_ids WHERE tenant_id = ? AND connection_id = ? AND created_at >= ?",
                arguments: ["t", "c", "0"]
            )
            #expect(claimed.contains { $0.contains("order_broker_ids_connection") }, "\(claimed)")
            let claimedAtVenue = try await store.queryPlan(
                "SELECT broker_order_id FROM order_broker_ids WHERE venue = ? AND created_at >= ?",
                arguments: ["v", "0"]
            )
            #expect(claimedAtVenue.contains { $0.contains("order_broker_ids_venue") }, "\(claimedAtVenue)")
            let heldAtVenue = try await store.queryPlan(
                "SELECT 1 FROM order_broker_ids WHERE venue = ? AND broker_order_id = ? AND order_id != ?",
                arguments: ["v", "b", "o"]
            )
            #expect(heldAtVenue.contains { $0.contains("order_broker_ids_venue_order") }, "\(heldAtVenue)")
            let events = try await store.queryPlan(
                "SELECT sequence FROM order_events WHERE order_id = ? AND tenant_id = ? ORDER BY sequence",
                arguments: ["o", "t"]
            )
            #expect(events.allSatisfy { !$0.hasPrefix("SCAN") && !$0.contains("TEMP B-TREE") }, "\(events)")
        }
    }

    @Test("a database made before the journal gains it on open, keeping its data")
    func upgradesAnEarlierDatabase() async throws {
        try await withTemporaryDirectory { directory in
            let path = databasePath(in: directory)
            let cipher = CredentialCipher.random()
            // A database as the first release left it: only v1, with a tenant and a connection.
            try SQLiteStore.makeOlderDatabase(
                path: path,
                upTo: "v1-initial",
                statements: [
                    "INSERT INTO tenants (id, name, created_at) VALUES ('ten_acme', 'Acme', 1)",
                    """
                    INSERT INTO connections (id, tenant_id, broker, display_name, base_url, status, credentials_ciphertext,
                        created_at, updated_at)
                    VALUES ('conn_acme', 'ten_acme', 'alpaca', 'Paper', 'https://paper-api.alpaca.markets', 'active', X'00', 1, 1)
                    """,
                ]
            )

            let second = try await SQLiteStore.opening(path: path, cipher: cipher)
            defer { try? second.close() }
            #expect(
                try await second.appliedMigrations() == [
                    "v1-initial", "v2-order-journal", "v3-tenant-read-freshness", "v4-sandbox-urls-without-path", "v5-order-journal-venues",
                    "v6-link-states", "v7-tenancy", "v8-sessions", "v9-leases", "v11-goals", "v12-alerts", "v13-order-feed", "v14-broker-id-reuse",
                    "v15-push-tokens",
                ]
            )
            let tenant = try #require(try await second.tenant(id: "ten_acme"))
            let connection = try #require(try await second.connection(tenantId: tenant.id, id: "conn_acme"))
            #expect(connection.displayName == "Paper" && connection.broker == .alpaca)
            // The tenant's one user, made by v7, owns it.
            #expect(connection.userId == (try await second.defaultUser(tenantId: tenant.id)).id)
            let intent = try await journalIntent(in: second, tenantId: tenant.id, connectionId: connection.id)
            #expect(try await second.journaledOrder(tenantId: tenant.id, id: intent.id) == intent)
        }
    }
}
