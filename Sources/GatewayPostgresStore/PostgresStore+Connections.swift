import Foundation
public import GatewayCore
import GatewayModel
public import GatewayStore
import Logging
import PostgresNIO

extension PostgresStore {
    static let connectionColumns =
        "id, tenant_id, user_id, broker, display_name, base_url, settings, status, status_detail, created_at, updated_at"

    /// Saves a connection of one of the tenant's users with its credentials sealed to the new row.
    public func createConnection(
        tenantId: String,
        userId: String?,
        _ connection: NewConnection
    ) async throws
        -> ConnectionDescriptor
    {
        let id = connection.id ?? NewConnection.makeId()
        let sealed = try cipher.seal(connection.credentials, tenantId: tenantId, connectionId: id)
        let settings = try StoreRules.encodeJSON(connection.settings)
        return try await write("createConnection", conflict: "a connection with this id already exists") { db in
            try await Self.lockTenant(db, tenantId)
            if let userId { try await Self.requireUser(db, tenantId: tenantId, userId) }
            let now = try await Self.creationTime(db, in: "connections", tenantId: tenantId)
            try await db.execute(
                """
                INSERT INTO connections (
                    id, tenant_id, user_id, broker, display_name, base_url, settings, status, status_detail,
                    credentials_ciphertext, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)
                """,
                [
                    id, tenantId, userId, connection.broker.rawValue, connection.displayName, connection.baseURL, settings,
                    connection.status.rawValue, sealed, now, now,
                ]
            )
            return connection.stored(id: id, tenantId: tenantId, userId: userId, at: now)
        }
    }

    /// Implements `ConnectionStore.connections(tenantId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func connections(tenantId: String) async throws -> [ConnectionDescriptor] {
        try await read("connections") { db in
            try await db.rows(
                "SELECT \(Self.connectionColumns) FROM connections WHERE tenant_id = ? ORDER BY created_at, id",
                [tenantId]
            ).map(ConnectionDescriptor.init(row:))
        }
    }

    /// Implements `ConnectionStore.connections(tenantId:userId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func connections(tenantId: String, userId: String) async throws -> [ConnectionDescriptor] {
        try await read("userConnections") { db in
            try await db.rows(
                """
                SELECT \(Self.connectionColumns) FROM connections WHERE tenant_id = ? AND user_id = ?
                ORDER BY created_at, id
                """,
                [tenantId, userId]
            ).map(ConnectionDescriptor.init(row:))
        }
    }

    /// Implements `ConnectionStore.connection(tenantId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func connection(tenantId: String, id: String) async throws -> ConnectionDescriptor? {
        try await read("connection") { db in try await Self.fetchConnection(db, tenantId: tenantId, id: id) }
    }

    /// Implements `ConnectionStore.deleteConnection(tenantId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func deleteConnection(tenantId: String, id: String) async throws -> Bool {
        try await write("deleteConnection") { db in
            try await db.count("DELETE FROM connections WHERE tenant_id = ? AND id = ? RETURNING id", [tenantId, id]) > 0
        }
    }

    /// Implements `ConnectionStore.credentials(tenantId:connectionId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func credentials(tenantId: String, connectionId: String) async throws -> BrokerCredentials {
        let sealed = try await read("credentials") { db in
            try await db.row(
                "SELECT credentials_ciphertext FROM connections WHERE tenant_id = ? AND id = ?",
                [tenantId, connectionId]
            )?.bytes("credentials_ciphertext")
        }
        return try await openCredentials(sealed, tenantId: tenantId, connectionId: connectionId, logger: logger)
    }

    /// Implements `ConnectionStore.updateCredentials(tenantId:connectionId:_:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func updateCredentials(tenantId: String, connectionId: String, _ credentials: BrokerCredentials) async throws {
        let sealed = try cipher.seal(credentials, tenantId: tenantId, connectionId: connectionId)
        let now = StoreClock.nowMillis()
        try await write("updateCredentials") { db in
            let changed = try await db.count(
                """
                UPDATE connections SET credentials_ciphertext = ?, updated_at = GREATEST(?, updated_at + 1)
                WHERE tenant_id = ? AND id = ? RETURNING id
                """,
                [sealed, now, tenantId, connectionId]
            )
            guard changed > 0 else { throw StoreRules.connectionNotFound(connectionId) }
        }
    }

    /// Implements `ConnectionStore.updateConnectionStatus(tenantId:connectionId:status:detail:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func updateConnectionStatus(
        tenantId: String,
        connectionId: String,
        status: ConnectionStatus,
        detail: [String: String]?
    ) async throws -> ConnectionDescriptor? {
        let detailJSON = try detail.map(StoreRules.encodeJSON)
        let now = StoreClock.nowMillis()
        return try await write("updateConnectionStatus") { db in
            try await db.row(
                """
                UPDATE connections SET status = ?, status_detail = ?, updated_at = GREATEST(?, updated_at + 1)
                WHERE tenant_id = ? AND id = ? RETURNING \(Self.connectionColumns)
                """,
                [status.rawValue, detailJSON, now, tenantId, connectionId]
            ).map(ConnectionDescriptor.init(row:))
        }
    }

    static func fetchConnection(_ db: PostgresSQL, tenantId: String, id: String) async throws -> ConnectionDescriptor? {
        try await db.row("SELECT \(connectionColumns) FROM connections WHERE tenant_id = ? AND id = ?", [tenantId, id])
            .map(ConnectionDescriptor.init(row:))
    }
}
