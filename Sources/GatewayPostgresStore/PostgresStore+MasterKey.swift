public import Foundation
import GatewayCore
public import GatewayStore

/// A master key rotation on PostgreSQL: the statements of `MasterKeySQL`, in this store's transactions. The rules are
/// `MasterKeyRotation`'s.
extension PostgresStore: MasterKeyStore {
    /// Implements `MasterKeyStore.masterKeyRecords()` on PostgreSQL.
    public func masterKeyRecords() async throws -> MasterKeyRecords {
        try await read("masterKeyRecords") { db in try await Self.masterKeyRecords(db) }
    }

    /// Implements `MasterKeyStore.recordMasterKeyRotation(next:previous:)` on PostgreSQL.
    public func recordMasterKeyRotation(next: Data, previous: Data) async throws -> MasterKeyRecords {
        try await write("recordMasterKeyRotation") { db in
            // Two operators starting at once: the row lock makes the second wait, then see the first's rotation.
            _ = try await db.row("SELECT value FROM store_meta WHERE key = ? FOR UPDATE", [StoreRules.keyCheckName])
            if !(try await Self.masterKeyRecords(db).isRotating) {
                try await db.execute(MasterKeySQL.insertIfAbsent, [MasterKeyRecords.nextName, next])
                try await db.execute(MasterKeySQL.insertIfAbsent, [MasterKeyRecords.previousName, previous])
            }
            return try await Self.masterKeyRecords(db)
        }
    }

    /// Implements `MasterKeyStore.finishMasterKeyRotation(next:check:)` on PostgreSQL.
    public func finishMasterKeyRotation(next: Data, check: Data) async throws -> Bool {
        try await write("finishMasterKeyRotation") { db in
            let stored = try await db.row(MasterKeySQL.next + " FOR UPDATE", [MasterKeyRecords.nextName])?.bytes("value")
            guard stored == next else { return false }
            try await db.execute(MasterKeySQL.replaceCheck, [check, StoreRules.keyCheckName])
            try await db.execute(MasterKeySQL.removeWraps, [MasterKeyRecords.nextName, MasterKeyRecords.previousName])
            return true
        }
    }

    /// Implements `MasterKeyStore.sealedSecrets(_:after:limit:)` on PostgreSQL.
    public func sealedSecrets(_ kind: SealedSecretKind, after: String?, limit: Int) async throws -> [SealedSecretRow] {
        try await read("sealedSecrets") { db in
            try await db.rows(MasterKeySQL.page(kind), [after ?? "", Int64(limit)]).map { row in
                SealedSecretRow(kind: kind, tenantId: try row.string("tenant_id"), id: try row.string("id"), sealed: try row.bytes("sealed"))
            }
        }
    }

    /// Implements `MasterKeyStore.replaceSealedSecret(_:with:)` on PostgreSQL.
    public func replaceSealedSecret(_ row: SealedSecretRow, with sealed: Data) async throws -> Bool {
        try await write("replaceSealedSecret") { db in
            try await db.count(MasterKeySQL.replace(row.kind) + " RETURNING id", [sealed, row.id, row.sealed]) > 0
        }
    }

    static func masterKeyRecords(_ db: PostgresSQL) async throws -> MasterKeyRecords {
        let rows = try await db.rows(MasterKeySQL.records, MasterKeySQL.recordNames)
        return MasterKeySQL.records(try rows.map { (key: try $0.string("key"), value: try $0.bytes("value")) })
    }
}
