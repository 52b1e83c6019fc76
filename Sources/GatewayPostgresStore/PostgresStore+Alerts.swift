public import Foundation
import GatewayCore
public import GatewayModel
public import GatewayStore
import PostgresNIO

extension PostgresStore {
    static let alertColumns = "id, tenant_id, user_id, name, rule, channels, enabled, rearm, armed, created_at, updated_at, last_fired_at"
    static let alertDeliveryColumns = "id, alert_id, event_id, channel, attempt, at, outcome, http_status, error, test, device_id"

    /// Implements `AlertStore.alerts(tenantId:userId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func alerts(tenantId: String, userId: String) async throws -> [Alert] {
        try await userRows("alerts", of: "alerts", columns: Self.alertColumns, tenantId: tenantId, userId: userId, Alert.init(row:))
    }

    /// Implements `AlertStore.alert(tenantId:userId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func alert(tenantId: String, userId: String, id: String) async throws -> Alert? {
        try await read("alert") { db in try await Self.fetchAlert(db, tenantId: tenantId, userId: userId, id: id) }
    }

    /// Implements `AlertStore.enabledAlerts()` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func enabledAlerts() async throws -> [OwnedAlert] {
        try await read("enabledAlerts") { db in
            try await db.rows(
                "SELECT \(Self.alertColumns) FROM alerts WHERE enabled ORDER BY tenant_id, user_id, created_at, id"
            ).map { row in
                OwnedAlert(tenantId: try row.string("tenant_id"), userId: try row.string("user_id"), alert: try Alert(row: row))
            }
        }
    }

    /// Implements `AlertStore.createAlert(tenantId:userId:_:webhookSecret:limit:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
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
            // The tenant's lock serializes the user's creates, so the count holds until this commits.
            try await Self.lockTenant(db, tenantId)
            try await Self.requireUser(db, tenantId: tenantId, userId)
            let count = try await db.count("SELECT 1 FROM alerts WHERE tenant_id = ? AND user_id = ?", [tenantId, userId])
            try StoreRules.requireRoomForAlert(count: count, limit: limit)
            let now = try await Self.creationTime(db, in: "alerts", tenantId: tenantId)
            try await db.execute(
                """
                INSERT INTO alerts (id, tenant_id, user_id, name, rule, channels, enabled, rearm, armed, webhook_secret,
                    created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, TRUE, ?, ?, ?)
                """,
                [id, tenantId, userId, alert.name, alert.rule, alert.channels, draft.enabled, draft.rearm.rawValue, sealed, now, now]
            )
            if let audit { try await Self.insertAudit(db, audit.targeting(id), at: now) }
            return alert.stored(id: id, at: now)
        }
    }

    /// Implements `AlertStore.updateAlert(tenantId:userId:id:_:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
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
            let updated = try await db.row(
                """
                UPDATE alerts SET name = ?, rule = ?, channels = ?, enabled = ?, rearm = ?, armed = TRUE,
                    updated_at = GREATEST(?, updated_at + 1)
                WHERE tenant_id = ? AND user_id = ? AND id = ?
                RETURNING \(Self.alertColumns)
                """,
                [alert.name, alert.rule, alert.channels, draft.enabled, draft.rearm.rawValue, now, tenantId, userId, id]
            ).map(Alert.init(row:))
            if updated != nil, let audit { try await Self.insertAudit(db, audit, at: now) }
            return updated
        }
    }

    /// Implements `AlertStore.deleteAlert(tenantId:userId:id:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func deleteAlert(tenantId: String, userId: String, id: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("deleteAlert") { db in
            let deleted =
                try await db.count(
                    "DELETE FROM alerts WHERE tenant_id = ? AND user_id = ? AND id = ? RETURNING id",
                    [tenantId, userId, id]
                ) > 0
            if deleted, let audit { try await Self.insertAudit(db, audit, at: now) }
            return deleted
        }
    }

    /// Implements `AlertStore.alertWebhookSecret(tenantId:userId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func alertWebhookSecret(tenantId: String, userId: String, id: String) async throws -> String? {
        let sealed = try await read("alertWebhookSecret") { db in
            try await db.row(
                "SELECT webhook_secret FROM alerts WHERE tenant_id = ? AND user_id = ? AND id = ?",
                [tenantId, userId, id]
            )?.bytes("webhook_secret")
        }
        guard let sealed else { return nil }
        return try await openWebhookSecret(sealed, tenantId: tenantId, alertId: id, logger: logger)
    }

    /// Implements `AlertStore.recordAlertState(tenantId:userId:id:armed:firedAt:disable:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func recordAlertState(
        tenantId: String,
        userId: String,
        id: String,
        armed: Bool,
        firedAt: Date?,
        disable: Bool
    ) async throws -> Bool {
        try await write("recordAlertState") { db in
            try await db.count(
                """
                UPDATE alerts SET armed = ?, last_fired_at = COALESCE(?, last_fired_at),
                    enabled = CASE WHEN ? THEN FALSE ELSE enabled END
                WHERE tenant_id = ? AND user_id = ? AND id = ? RETURNING id
                """,
                [armed, firedAt.map { StoreClock.millis($0) }, disable, tenantId, userId, id]
            ) > 0
        }
    }

    /// Implements `AlertStore.dropAlertDeviceToken(tenantId:userId:id:deviceToken:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func dropAlertDeviceToken(tenantId: String, userId: String, id: String, deviceToken: String) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("dropAlertDeviceToken") { db in
            guard
                var alert = try await db.row(
                    "SELECT \(Self.alertColumns) FROM alerts WHERE tenant_id = ? AND user_id = ? AND id = ? FOR UPDATE",
                    [tenantId, userId, id]
                ).map(Alert.init(row:)),
                alert.channels.apns?.deviceToken == deviceToken
            else { return false }
            alert.channels.apns = nil
            try await db.execute(
                "UPDATE alerts SET channels = ?, updated_at = GREATEST(?, updated_at + 1) WHERE tenant_id = ? AND user_id = ? AND id = ?",
                [try StoreRules.encodeJSON(alert.channels), now, tenantId, userId, id]
            )
            return true
        }
    }

    /// Implements `AlertStore.recordAlertDelivery(tenantId:userId:_:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func recordAlertDelivery(tenantId: String, userId: String, _ attempt: AlertDeliveryAttempt) async throws {
        try await write("recordAlertDelivery") { db in
            guard try await Self.fetchAlert(db, tenantId: tenantId, userId: userId, id: attempt.alertId) != nil else { return }
            try await db.execute(
                """
                INSERT INTO alert_deliveries (id, tenant_id, alert_id, event_id, channel, attempt, at, outcome, http_status, error, test, device_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    attempt.id, tenantId, attempt.alertId, attempt.eventId, attempt.channel.rawValue, attempt.attempt,
                    StoreClock.millis(attempt.at), attempt.outcome.rawValue, attempt.httpStatus, attempt.error, attempt.test,
                    attempt.deviceId,
                ]
            )
            try await db.execute(
                """
                DELETE FROM alert_deliveries WHERE tenant_id = ? AND alert_id = ? AND sequence <= (
                    SELECT sequence FROM alert_deliveries WHERE tenant_id = ? AND alert_id = ?
                    ORDER BY sequence DESC LIMIT 1 OFFSET ?)
                """,
                [tenantId, attempt.alertId, tenantId, attempt.alertId, AlertDraft.deliveryLogLength]
            )
        }
    }

    /// Implements `AlertStore.alertDeliveries(tenantId:userId:alertId:before:limit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func alertDeliveries(
        tenantId: String,
        userId: String,
        alertId: String,
        before: String?,
        limit: Int
    ) async throws -> [AlertDeliveryAttempt] {
        try await read("alertDeliveries") { db in
            guard try await Self.fetchAlert(db, tenantId: tenantId, userId: userId, id: alertId) != nil else {
                throw GatewayError(.notFound, "no alert '\(alertId)'")
            }
            var arguments: [any SQLArgument] = [tenantId, alertId]
            var cursor = ""
            if let before {
                guard
                    let sequence = try await db.row(
                        "SELECT sequence FROM alert_deliveries WHERE tenant_id = ? AND alert_id = ? AND id = ?",
                        [tenantId, alertId, before]
                    )?.int64("sequence")
                else {
                    throw GatewayError(
                        .notFound,
                        "no delivery '\(before)' of this alert",
                        details: [FieldProblem(field: "before", problem: "names no entry of this alert's delivery log")]
                    )
                }
                cursor = " AND sequence < ?"
                arguments.append(sequence)
            }
            arguments.append(limit)
            return try await db.rows(
                """
                SELECT \(Self.alertDeliveryColumns) FROM alert_deliveries
                WHERE tenant_id = ? AND alert_id = ?\(cursor) ORDER BY sequence DESC LIMIT ?
                """,
                arguments
            ).map(AlertDeliveryAttempt.init(row:))
        }
    }

    static func fetchAlert(_ db: PostgresSQL, tenantId: String, userId: String, id: String) async throws -> Alert? {
        try await userRow(db, of: "alerts", columns: alertColumns, tenantId: tenantId, userId: userId, id: id, Alert.init(row:))
    }
}
