public import Foundation
import GRDB
package import GatewayCore
public import GatewayModel
public import GatewayStore

extension SQLiteStore {
    static let alertColumns = "id, tenant_id, user_id, name, rule, channels, enabled, rearm, armed, created_at, updated_at, last_fired_at"
    static let alertDeliveryColumns = "id, alert_id, event_id, channel, attempt, at, outcome, http_status, error, test, device_id"

    /// Implements `AlertStore.alerts(tenantId:userId:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func alerts(tenantId: String, userId: String) async throws -> [Alert] {
        try await userRows("alerts", of: "alerts", columns: Self.alertColumns, tenantId: tenantId, userId: userId, Alert.init(row:))
    }

    /// Implements `AlertStore.alert(tenantId:userId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func alert(tenantId: String, userId: String, id: String) async throws -> Alert? {
        try await read("alert") { db in try Self.fetchAlert(db, tenantId: tenantId, userId: userId, id: id) }
    }

    /// Implements `AlertStore.enabledAlerts()` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func enabledAlerts() async throws -> [OwnedAlert] {
        try await read("enabledAlerts") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.alertColumns) FROM alerts WHERE enabled = 1 ORDER BY tenant_id, user_id, created_at, id"
            ).map { row in
                OwnedAlert(tenantId: try row.decode(forColumn: "tenant_id"), userId: try row.decode(forColumn: "user_id"), alert: try Alert(row: row))
            }
        }
    }

    /// Implements `AlertStore.createAlert(tenantId:userId:_:webhookSecret:limit:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func createAlert(
        tenantId: String,
        userId: String,
        _ draft: AlertDraft,
        webhookSecret: String,
        limit: Int,
        audit: AuditRecord?
    ) async throws -> Alert {
        let id = StoreIdentifier.make(StoreIdentifier.alert)
        let sealed = try cipher.seal(webhookSecret: webhookSecret, tenantId: tenantId, alertId: id)
        let alert = try AlertWrite(draft)
        return try await write("createAlert") { db in
            try Self.requireTenant(db, tenantId)
            try Self.requireUser(db, tenantId: tenantId, userId)
            let count =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM alerts WHERE tenant_id = ? AND user_id = ?",
                    arguments: [tenantId, userId]
                ) ?? 0
            try StoreRules.requireRoomForAlert(count: count, limit: limit)
            let now = try Self.creationTime(db, in: "alerts", tenantId: tenantId)
            try db.execute(
                sql: """
                    INSERT INTO alerts (id, tenant_id, user_id, name, rule, channels, enabled, rearm, armed, webhook_secret,
                        created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
                    """,
                arguments: [id, tenantId, userId, alert.name, alert.rule, alert.channels, draft.enabled, draft.rearm.rawValue, sealed, now, now]
            )
            if let audit { try Self.insertAudit(db, audit.targeting(id), at: now) }
            return alert.stored(id: id, at: now)
        }
    }

    /// Implements `AlertStore.updateAlert(tenantId:userId:id:_:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func updateAlert(
        tenantId: String,
        userId: String,
        id: String,
        _ draft: AlertDraft,
        audit: AuditRecord?
    ) async throws -> Alert? {
        let alert = try AlertWrite(draft)
        let now = StoreClock.nowMillis()
        return try await write("updateAlert") { db in
            try db.execute(
                sql: """
                    UPDATE alerts SET name = ?, rule = ?, channels = ?, enabled = ?, rearm = ?, armed = 1,
                        updated_at = MAX(?, updated_at + 1)
                    WHERE tenant_id = ? AND user_id = ? AND id = ?
                    """,
                arguments: [alert.name, alert.rule, alert.channels, draft.enabled, draft.rearm.rawValue, now, tenantId, userId, id]
            )
            guard db.changesCount > 0 else { return nil }
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return try Self.fetchAlert(db, tenantId: tenantId, userId: userId, id: id)
        }
    }

    /// Implements `AlertStore.deleteAlert(tenantId:userId:id:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func deleteAlert(tenantId: String, userId: String, id: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("deleteAlert") { db in
            try db.execute(
                sql: "DELETE FROM alerts WHERE tenant_id = ? AND user_id = ? AND id = ?",
                arguments: [tenantId, userId, id]
            )
            guard db.changesCount > 0 else { return false }
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    /// Implements `AlertStore.alertWebhookSecret(tenantId:userId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func alertWebhookSecret(tenantId: String, userId: String, id: String) async throws -> String? {
        let sealed = try await read("alertWebhookSecret") { db in
            try Data.fetchOne(
                db,
                sql: "SELECT webhook_secret FROM alerts WHERE tenant_id = ? AND user_id = ? AND id = ?",
                arguments: [tenantId, userId, id]
            )
        }
        guard let sealed else { return nil }
        return try await openWebhookSecret(sealed, tenantId: tenantId, alertId: id, logger: logger)
    }

    /// Implements `AlertStore.recordAlertState(tenantId:userId:id:armed:firedAt:disable:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func recordAlertState(
        tenantId: String,
        userId: String,
        id: String,
        armed: Bool,
        firedAt: Date?,
        disable: Bool
    ) async throws -> Bool {
        try await write("recordAlertState") { db in
            try db.execute(
                sql: """
                    UPDATE alerts SET armed = ?, last_fired_at = COALESCE(?, last_fired_at),
                        enabled = CASE WHEN ? THEN 0 ELSE enabled END
                    WHERE tenant_id = ? AND user_id = ? AND id = ?
                    """,
                arguments: [armed, firedAt.map { StoreClock.millis($0) }, disable, tenantId, userId, id]
            )
            return db.changesCount > 0
        }
    }

    /// Implements `AlertStore.dropAlertDeviceToken(tenantId:userId:id:deviceToken:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func dropAlertDeviceToken(tenantId: String, userId: String, id: String, deviceToken: String) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("dropAlertDeviceToken") { db in
            guard var alert = try Self.fetchAlert(db, tenantId: tenantId, userId: userId, id: id),
                alert.channels.apns?.deviceToken == deviceToken
            else { return false }
            alert.channels.apns = nil
            try db.execute(
                sql: "UPDATE alerts SET channels = ?, updated_at = MAX(?, updated_at + 1) WHERE tenant_id = ? AND user_id = ? AND id = ?",
                arguments: [try StoreRules.encodeJSON(alert.channels), now, tenantId, userId, id]
            )
            return true
        }
    }

    /// Implements `AlertStore.recordAlertDelivery(tenantId:userId:_:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func recordAlertDelivery(tenantId: String, userId: String, _ attempt: AlertDeliveryAttempt) async throws {
        try await write("recordAlertDelivery") { db in
            // Only the user's own alert gets an entry.
            guard try Self.fetchAlert(db, tenantId: tenantId, userId: userId, id: attempt.alertId) != nil else { return }
            try db.execute(
                sql: """
                    INSERT INTO alert_deliveries (id, tenant_id, alert_id, event_id, channel, attempt, at, outcome, http_status, error, test, device_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    attempt.id, tenantId, attempt.alertId, attempt.eventId, attempt.channel.rawValue, attempt.attempt,
                    StoreClock.millis(attempt.at), attempt.outcome.rawValue, attempt.httpStatus, attempt.error, attempt.test,
                    attempt.deviceId,
                ]
            )
            try db.execute(
                sql: """
                    DELETE FROM alert_deliveries WHERE tenant_id = ? AND alert_id = ? AND sequence <= (
                        SELECT sequence FROM alert_deliveries WHERE tenant_id = ? AND alert_id = ?
                        ORDER BY sequence DESC LIMIT 1 OFFSET ?)
                    """,
                arguments: [tenantId, attempt.alertId, tenantId, attempt.alertId, AlertDraft.deliveryLogLength]
            )
        }
    }

    /// Implements `AlertStore.alertDeliveries(tenantId:userId:alertId:before:limit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func alertDeliveries(
        tenantId: String,
        userId: String,
        alertId: String,
        before: String?,
        limit: Int
    ) async throws -> [AlertDeliveryAttempt] {
        try await read("alertDeliveries") { db in
            guard try Self.fetchAlert(db, tenantId: tenantId, userId: userId, id: alertId) != nil else {
                throw GatewayError(.notFound, "no alert '\(alertId)'")
            }
            var arguments: StatementArguments = [tenantId, alertId]
            var cursor = ""
            if let before {
                guard
                    let sequence = try Int64.fetchOne(
                        db,
                        sql: "SELECT sequence FROM alert_deliveries WHERE tenant_id = ? AND alert_id = ? AND id = ?",
                        arguments: [tenantId, alertId, before]
                    )
                else {
                    throw GatewayError(
                        .notFound,
                        "no delivery '\(before)' of this alert",
                        details: [FieldProblem(field: "before", problem: "names no entry of this alert's delivery log")]
                    )
                }
                cursor = " AND sequence < ?"
                arguments += [sequence]
            }
            arguments += [limit]
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.alertDeliveryColumns) FROM alert_deliveries
                    WHERE tenant_id = ? AND alert_id = ?\(cursor) ORDER BY sequence DESC LIMIT ?
                    """,
                arguments: arguments
            ).map(AlertDeliveryAttempt.init(row:))
        }
    }

    static func fetchAlert(_ db: Database, tenantId: String, userId: String, id: String) throws -> Alert? {
        try userRow(db, of: "alerts", columns: alertColumns, tenantId: tenantId, userId: userId, id: id, Alert.init(row:))
    }

}
