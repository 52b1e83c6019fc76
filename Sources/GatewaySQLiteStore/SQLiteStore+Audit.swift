import Foundation
import GRDB
import GatewayCore
import GatewayModel
public import GatewayStore

extension SQLiteStore {
    /// Implements `AuditStore.recordAudit(_:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func recordAudit(_ record: AuditRecord) async throws {
        let now = StoreClock.nowMillis()
        try await write("recordAudit") { db in try Self.insertAudit(db, record, at: now) }
    }

    /// Newest first, by the log's own sequence (so events of one millisecond keep their order).
    public func auditEvents(tenantId: String, before: String?, limit: Int) async throws -> [AuditEvent] {
        try await read("auditEvents") { db in
            var arguments: StatementArguments = [tenantId]
            var cursor = ""
            if let before {
                guard
                    let sequence = try Int64.fetchOne(
                        db,
                        sql: "SELECT sequence FROM audit_events WHERE tenant_id = ? AND id = ?",
                        arguments: [tenantId, before]
                    )
                else {
                    throw GatewayError(
                        .notFound,
                        "no audit event '\(before)'",
                        details: [FieldProblem(field: "before", problem: "names no event of this tenant's log")]
                    )
                }
                cursor = " AND sequence < ?"
                arguments += [sequence]
            }
            arguments += [limit]
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT id, tenant_id, at, actor, action, target, outcome, detail FROM audit_events
                    WHERE tenant_id = ?\(cursor) ORDER BY sequence DESC LIMIT ?
                    """,
                arguments: arguments
            ).map(AuditEvent.init(row:))
        }
    }

    /// Writes an audit record inside the caller's transaction, so the event and what it tells of are one write.
    static func insertAudit(_ db: Database, _ record: AuditRecord, at: Int64) throws {
        try db.execute(
            sql: """
                INSERT INTO audit_events (id, tenant_id, at, actor, action, target, outcome, detail)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                StoreIdentifier.make(StoreIdentifier.auditEvent), record.tenantId, at, record.actor, record.action,
                record.target, record.outcome.rawValue, try StoreRules.encodeJSON(record.detail),
            ]
        )
    }
}
