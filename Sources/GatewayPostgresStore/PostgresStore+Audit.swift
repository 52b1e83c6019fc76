import Foundation
import GatewayCore
import GatewayModel
public import GatewayStore
import PostgresNIO

extension PostgresStore {
    /// Implements `AuditStore.recordAudit(_:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func recordAudit(_ record: AuditRecord) async throws {
        let now = StoreClock.nowMillis()
        try await write("recordAudit") { db in try await Self.insertAudit(db, record, at: now) }
    }

    /// Newest first, by the log's own sequence.
    public func auditEvents(tenantId: String, before: String?, limit: Int) async throws -> [AuditEvent] {
        try await read("auditEvents") { db in
            var arguments: [any SQLArgument] = [tenantId]
            var cursor = ""
            if let before {
                guard
                    let sequence = try await db.row(
                        "SELECT sequence FROM audit_events WHERE tenant_id = ? AND id = ?",
                        [tenantId, before]
                    )?.int64("sequence")
                else {
                    throw GatewayError(
                        .notFound,
                        "no audit event '\(before)'",
                        details: [FieldProblem(field: "before", problem: "names no event of this tenant's log")]
                    )
                }
                cursor = " AND sequence < ?"
                arguments.append(sequence)
            }
            arguments.append(limit)
            return try await db.rows(
                """
                SELECT id, tenant_id, at, actor, action, target, outcome, detail FROM audit_events
                WHERE tenant_id = ?\(cursor) ORDER BY sequence DESC LIMIT ?
                """,
                arguments
            ).map(AuditEvent.init(row:))
        }
    }

    /// Writes an audit record inside the caller's transaction, so the event and what it tells of are one write.
    static func insertAudit(_ db: PostgresSQL, _ record: AuditRecord, at: Int64) async throws {
        try await db.execute(
            """
            INSERT INTO audit_events (id, tenant_id, at, actor, action, target, outcome, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                StoreIdentifier.make(StoreIdentifier.auditEvent), record.tenantId, at, record.actor, record.action,
                record.target, record.outcome.rawValue, try StoreRules.encodeJSON(record.detail),
            ]
        )
    }
}
