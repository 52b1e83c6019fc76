public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore

/// What a test send did.
public struct AlertTestSend: Sendable {
    /// The firing that was sent, as a real one would be (kind `test`).
    public var notification: AlertNotification
    /// Each webhook and APNs attempt the test made, as the delivery log records them.
    public var attempts: [AlertDeliveryAttempt]
    /// Whether it went on the user's stream (an `AlertEngine` is attached to the gateway).
    public var streamed: Bool
}

/// Alerts (issue 16): stored per user, fired by `AlertEngine`, delivered on the stream, by webhook and by APNs.
extension AlertService {
    /// The most entries one page of a delivery log holds.
    public static let alertDeliveriesPageLimit = 200

    /// The user's alerts, every rule and channel, in the store's order.
    public func alerts(owner: Owner) async throws -> [Alert] {
        try await store.alerts(tenantId: owner.tenant.id, userId: owner.userId)
    }

    /// One of the user's alerts; another user's alert is not found, the same as one that does not exist.
    public func alert(owner: Owner, id: String) async throws -> Alert {
        guard let alert = try await store.alert(tenantId: owner.tenant.id, userId: owner.userId, id: id) else {
            throw GatewayError(.notFound, "no alert '\(id)'")
        }
        return alert
    }

    /// Creates the alert with a fresh webhook secret, returned here once (the store keeps it sealed).
    public func createAlert(owner: Owner, _ input: AlertInput) async throws -> CreatedAlert {
        let problems = input.problems(creating: true)
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        guard let ruleInput = input.rule, case .success(let rule) = ruleInput.checked() else {
            throw GatewayError.unprocessable([FieldProblem(field: "rule", problem: "is required")])
        }
        try await checkConnection(owner: owner, rule.connectionId)
        let secret = WebhookSignature.makeSecret()
        let draft = AlertDraft(
            name: input.name,
            rule: rule,
            channels: input.channels ?? AlertChannels(),
            enabled: input.enabled ?? true,
            rearm: input.rearm ?? .crossBack
        )
        let alert = try await store.createAlert(
            tenantId: owner.tenant.id,
            userId: owner.userId,
            draft,
            webhookSecret: secret,
            limit: alertSettings.maxAlertsPerUser,
            audit: Self.alertAudit(owner, "alert.created", target: nil, draft: draft)
        )
        alertStream.alertsChanged(tenantId: owner.tenant.id, userId: owner.userId)
        return CreatedAlert(alert: alert, webhookSecret: secret)
    }

    /// Replaces what the input gives and keeps the rest (`channels` given replaces all of them); the alert is armed
    /// again.
    public func updateAlert(owner: Owner, id: String, _ input: AlertInput) async throws -> Alert {
        let problems = input.problems(creating: false)
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let existing = try await alert(owner: owner, id: id)
        var rule = existing.rule
        if let ruleInput = input.rule {
            guard case .success(let checked) = ruleInput.checked() else {
                throw GatewayError.unprocessable([FieldProblem(field: "rule", problem: "is not a valid rule")])
            }
            rule = checked
            try await checkConnection(owner: owner, rule.connectionId)
        }
        let draft = AlertDraft(
            name: input.name ?? existing.name,
            rule: rule,
            channels: input.channels ?? existing.channels,
            enabled: input.enabled ?? existing.enabled,
            rearm: input.rearm ?? existing.rearm
        )
        guard
            let alert = try await store.updateAlert(
                tenantId: owner.tenant.id,
                userId: owner.userId,
                id: id,
                draft,
                audit: Self.alertAudit(owner, "alert.updated", target: id, draft: draft)
            )
        else { throw GatewayError(.notFound, "no alert '\(id)'") }
        alertStream.alertsChanged(tenantId: owner.tenant.id, userId: owner.userId)
        return alert
    }

    /// Deletes one of the user's alerts, audited; the user's open streams stop watching it at once.
    public func deleteAlert(owner: Owner, id: String) async throws {
        let audit = AuditRecord(
            tenantId: owner.tenant.id,
            actor: owner.actor,
            action: "alert.deleted",
            target: id,
            detail: ["userId": owner.userId]
        )
        guard try await store.deleteAlert(tenantId: owner.tenant.id, userId: owner.userId, id: id, audit: audit) else {
            throw GatewayError(.notFound, "no alert '\(id)'")
        }
        alertStream.alertsChanged(tenantId: owner.tenant.id, userId: owner.userId)
    }

    /// The alert's delivery log, newest first.
    public func alertDeliveries(owner: Owner, id: String, before: String?, limit: Int) async throws -> [AlertDeliveryAttempt] {
        try await store.alertDeliveries(
            tenantId: owner.tenant.id,
            userId: owner.userId,
            alertId: id,
            before: before,
            limit: min(max(limit, 1), Self.alertDeliveriesPageLimit)
        )
    }

    /// Sends a test notification through the alert's channels now: the user's stream when an `AlertEngine` is attached
    /// to this gateway, then its webhook and APNs, retries included; answers with every webhook and APNs attempt
    /// made (also in the delivery log, marked `test`).
    public func testAlert(owner: Owner, id: String) async throws -> AlertTestSend {
        let alert = try await alert(owner: owner, id: id)
        let notification = AlertNotification(
            eventId: AlertEngine.makeEventId(),
            alertId: alert.id,
            alertName: alert.name,
            kind: .test,
            rule: alert.rule,
            message: "a test of alert \(alert.name ?? alert.id)",
            firedAt: Date()
        )
        var streamed = false
        if let stream = alertStream.current {
            await stream(owner.tenant.id, owner.userId, notification)
            streamed = true
        }
        let attempts = await alertDelivery.deliver(notification, alert: alert, tenantId: owner.tenant.id, userId: owner.userId, test: true)
        return AlertTestSend(notification: notification, attempts: attempts, streamed: streamed)
    }

    /// A connection a rule names must be the user's (another user's is not found, as everywhere).
    func checkConnection(owner: Owner, _ connectionId: String?) async throws {
        guard let connectionId else { return }
        guard let connection = try await store.connection(tenantId: owner.tenant.id, id: connectionId), owner.owns(connection) else {
            throw GatewayError(
                .unprocessable,
                "rule.connectionId names no connection of the user",
                details: [FieldProblem(field: "rule.connectionId", problem: "names no connection of the user")]
            )
        }
    }

    /// The audit record of an alert write: ids and kinds only (never the webhook URL, which may carry a token).
    static func alertAudit(_ owner: Owner, _ action: String, target: String?, draft: AlertDraft) -> AuditRecord {
        var detail = ["userId": owner.userId, "rule": draft.rule.type.rawValue]
        if draft.channels.webhook != nil { detail["webhook"] = "set" }
        if draft.channels.apns != nil { detail["apns"] = "set" }
        return AuditRecord(tenantId: owner.tenant.id, actor: owner.actor, action: action, target: target, detail: detail)
    }
}
