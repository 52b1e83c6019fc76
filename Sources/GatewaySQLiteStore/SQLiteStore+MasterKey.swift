public import Foundation
import GRDB
import GatewayCore
public import GatewayStore

/// A master key rotation on SQLite: the statements of `MasterKeySQL`, in GRDB's transactions. The rules are
/// `MasterKeyRotation`'s.
extension SQLiteStore: MasterKeyStore {
    /// Implements `MasterKeyStore.masterKeyRecords()` on SQLite.
    public func masterKeyRecords() async throws -> MasterKeyRecords {
        try await read("masterKeyRecords") { db in try Self.masterKeyRecords(db) }
    }

    /// Implements `MasterKeyStore.recordMasterKeyRotation(next:previous:)` on SQLite.
    public func recordMasterKeyRotation(next: Data, previous: Data) async throws -> MasterKeyRecords {
        try await write("recordMasterKeyRotation") { db in
            if !(try Self.masterKeyRecords(db).isRotating) {
                try db.execute(sql: MasterKeySQL.insertIfAbsent, arguments: [MasterKeyRecords.nextName, next])
                try db.execute(sql: MasterKeySQL.insertIfAbsent, arguments: [MasterKeyRecords.previousName, previous])
            }
            return try Self.masterKeyRecords(db)
        }
    }

    /// Implements `MasterKeyStore.finishMasterKeyRotation(next:check:)` on SQLite.
    public func finishMasterKeyRotation(next: Data, check: Data) async throws -> Bool {
        try await write("finishMasterKeyRotation") { db in
            guard try Data.fetchOne(db, sql: MasterKeySQL.next, arguments: [MasterKeyRecords.nextName]) == next else { return false }
            try db.execute(sql: MasterKeySQL.replaceCheck, arguments: [check, StoreRules.keyCheckName])
            try db.execute(sql: MasterKeySQL.removeWraps, arguments: [MasterKeyRecords.nextName, MasterKeyRecords.previousName])
            return true
        }
    }

    /// Implements `MasterKeyStore.sealedSecrets(_:after:limit:)` on SQLite.
    public func sealedSecrets(_ kind: SealedSecretKind, after: String?, limit: Int) async throws -> [SealedSecretRow] {
        try await read("sealedSecrets") { db in
            try Row.fetchAll(db, sql: MasterKeySQL.page(kind), arguments: [after ?? "", limit]).map { row in
                SealedSecretRow(kind: kind, tenantId: row["tenant_id"], id: row["id"], sealed: row["sealed"])
            }
        }
    }

    /// Implements `MasterKeyStore.replaceSealedSecret(_:with:)` on SQLite.
    public func replaceSealedSecret(_ row: SealedSecretRow, with sealed: Data) async throws -> Bool {
        try await write("replaceSealedSecret") { db in
            try db.execute(sql: MasterKeySQL.replace(row.kind), arguments: [sealed, row.id, row.sealed])
            return db.changesCount > 0
        }
    }

    static func masterKeyRecords(_ db: Database) throws -> MasterKeyRecords {
        let rows = try Row.fetchAll(db, sql: MasterKeySQL.records, arguments: StatementArguments(MasterKeySQL.recordNames))
        return MasterKeySQL.records(rows.map { (key: $0["key"], value: $0["value"]) })
    }
}
