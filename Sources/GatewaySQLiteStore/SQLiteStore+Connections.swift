import Foundation
import GRDB
public import GatewayCore
import GatewayModel
public import GatewayStore
import Logging

extension SQLiteStore {
    static let connectionColumns =
        "id, tenant_id, user_id, broker, display_name, base_url, settings, status, status_detail, created_at, updated_at"

    /// Saves a connection of one of the tenant's users with its credentials sealed to the new row.
    /// - Throws: `GatewayError(.notFound)` for an unknown tenant, or a user that is not the tenant's.
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
            try Self.requireTenant(db, tenantId)
            if let userId { try Self.requireUser(db, tenantId: tenantId, userId) }
            let now = try Self.creationTime(db, in: "connections", tenantId: tenantId)
            try db.execute(
                sql: """
                    INSERT INTO connections (
                        id, tenant_id, user_id, broker, display_name, base_url, settings, status, status_detail,
                        credentials_ciphertext, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)
                    """,
                arguments: [
                    id, tenantId, userId, connection.broker.rawValue, connection.displayName, connection.baseURL, settings,
                    connection.status.rawValue, sealed, now, now,
                ]
            )
            return connection.stored(id: id, tenantId: tenantId, userId: userId, at: now)
        }
    }

    /// Oldest first (`created_at`, then `id`): the router relies on this order being stable.
    public func connections(tenantId: String) async throws -> [ConnectionDescriptor] {
        try await read("connections") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.connectionColumns) FROM connections WHERE tenant_id = ? ORDER BY created_at, id",
                arguments: [tenantId]
            ).map(ConnectionDescriptor.init(row:))
        }
    }

    /// One user's connections, oldest first.
    public func connections(tenantId: String, userId: String) async throws -> [ConnectionDescriptor] {
        try await read("userConnections") { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.connectionColumns) FROM connections WHERE tenant_id = ? AND user_id = ?
                        ORDER BY created_at, id
                        """
                ),
                arguments: [tenantId, userId]
            ).map(ConnectionDescriptor.init(row:))
        }
    }

    /// Implements `ConnectionStore.connection(tenantId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func connection(tenantId: String, id: String) async throws -> ConnectionDescriptor? {
        try await read("connection") { db in
            try Self.fetchConnection(db, tenantId: tenantId, id: id)
        }
    }

    /// Implements `ConnectionStore.deleteConnection(tenantId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func deleteConnection(tenantId: String, id: String) async throws -> Bool {
        try await write("deleteConnection") { db in
            try db.execute(sql: "DELETE FROM connections WHERE tenant_id = ? AND id = ?", arguments: [tenantId, id])
            return db.changesCount > 0
        }
    }

    /// - Throws: `GatewayError(.notFound)` when the tenant has no such connection; `GatewayError(.internalError)`
    ///   when the stored value does not decrypt (another master key, or a ciphertext moved from another row).
    public func credentials(tenantId: String, connectionId: String) async throws -> BrokerCredentials {
        let sealed = try await read("credentials") { db in
            try Data.fetchOne(
                db,
                sql: "SELECT credentials_ciphertext FROM connections WHERE tenant_id = ? AND id = ?",
                arguments: [tenantId, connectionId]
            )
        }
        return try await openCredentials(sealed, tenantId: tenantId, connectionId: connectionId, logger: logger)
    }

    /// Replaces the credentials and moves `updatedAt` strictly forward.
    /// - Throws: `GatewayError(.notFound)` when the tenant has no such connection.
    public func updateCredentials(tenantId: String, connectionId: String, _ credentials: BrokerCredentials) async throws {
        let sealed = try cipher.seal(credentials, tenantId: tenantId, connectionId: connectionId)
        let now = StoreClock.nowMillis()
        try await write("updateCredentials") { db in
            try db.execute(
                sql: """
                    UPDATE connections SET credentials_ciphertext = ?, updated_at = MAX(?, updated_at + 1)
                    WHERE tenant_id = ? AND id = ?
                    """,
                arguments: [sealed, now, tenantId, connectionId]
            )
            guard db.changesCount > 0 else { throw StoreRules.connectionNotFound(connectionId) }
        }
    }

    /// Sets the status and its detail (`nil` clears the detail) and moves `updatedAt` strictly forward.
    /// `nil` when the tenant has no such connection.
    public func updateConnectionStatus(
        tenantId: String,
        connectionId: String,
        status: ConnectionStatus,
        detail: [String: String]?
    ) async throws -> ConnectionDescriptor? {
        let detailJSON = try detail.map(StoreRules.encodeJSON)
        let now = StoreClock.nowMillis()
        return try await write("updateConnectionStatus") { db in
            try db.execute(
                sql: """
                    UPDATE connections SET status = ?, status_detail = ?, updated_at = MAX(?, updated_at + 1)
                    WHERE tenant_id = ? AND id = ?
                    """,
                arguments: [status.rawValue, detailJSON, now, tenantId, connectionId]
            )
            guard db.changesCount > 0 else { return nil }
            return try Self.fetchConnection(db, tenantId: tenantId, id: connectionId)
        }
    }

    static func fetchConnection(_ db: Database, tenantId: String, id: String) throws -> ConnectionDescriptor? {
        try Row.fetchOne(
            db,
            sql: "SELECT \(connectionColumns) FROM connections WHERE tenant_id = ? AND id = ?",
            arguments: [tenantId, id]
        ).map(ConnectionDescriptor.init(row:))
    }

    // MARK: JSON columns

}
