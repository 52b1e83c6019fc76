import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Alerts in the store")
struct AlertStoreTests {
    static let priceRule = AlertRule.price(
        .init(
            instrument: InstrumentReference(symbol: "AAPL", assetClass: .equity),
            condition: .above,
            threshold: Decimal(string: "200.000000000000000001")!
        )
    )
    static let orderRule = AlertRule.order(.init(on: .unknown, connectionId: "conn_a", unknownForSeconds: 30))
    static let channels = AlertChannels(
        webhook: .init(url: "https://hooks.example/alerts"),
        apns: .init(deviceToken: String(repeating: "ab", count: 32))
    )

    static func draft(_ rule: AlertRule = priceRule, name: String? = "AAPL breakout") -> AlertDraft {
        AlertDraft(name: name, rule: rule, channels: channels, enabled: true, rearm: .crossBack)
    }

    @Test("create, get, list, update, delete; the threshold kept exactly; an update re-arms", arguments: StoreBackend.all)
    func lifecycle(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let created = try await store.createAlert(
                tenantId: tenant.id,
                userId: user.id,
                Self.draft(name: "  AAPL breakout "),
                webhookSecret: "whsec_one",
                limit: 10,
                audit: nil
            )
            #expect(created.id.hasPrefix("alr_"))
            #expect(created.name == "AAPL breakout")
            #expect(created.armed && created.enabled && created.lastFiredAt == nil)
            let fetched = try #require(try await store.alert(tenantId: tenant.id, userId: user.id, id: created.id))
            #expect(fetched == created)
            #expect(fetched.rule == Self.priceRule)
            #expect(fetched.channels == Self.channels)
            #expect(try await store.alertWebhookSecret(tenantId: tenant.id, userId: user.id, id: created.id) == "whsec_one")

            let firedAt = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(
                try await store.recordAlertState(tenantId: tenant.id, userId: user.id, id: created.id, armed: false, firedAt: firedAt, disable: false)
            )
            let fired = try #require(try await store.alert(tenantId: tenant.id, userId: user.id, id: created.id))
            #expect(!fired.armed && fired.lastFiredAt == firedAt && fired.enabled)
            #expect(fired.updatedAt == created.updatedAt)

            var draft = Self.draft(Self.orderRule, name: nil)
            draft.enabled = false
            draft.rearm = .once
            let changed = try #require(try await store.updateAlert(tenantId: tenant.id, userId: user.id, id: created.id, draft, audit: nil))
            #expect(changed.rule == Self.orderRule && changed.name == nil && !changed.enabled && changed.rearm == .once)
            #expect(changed.armed)
            #expect(changed.lastFiredAt == firedAt)
            #expect(try #require(changed.updatedAt) > (try #require(created.updatedAt)))
            #expect(try await store.enabledAlerts().isEmpty)
            #expect(try await store.alerts(tenantId: tenant.id, userId: user.id) == [changed])

            #expect(try await store.dropAlertDeviceToken(tenantId: tenant.id, userId: user.id, id: created.id, deviceToken: "other") == false)
            #expect(
                try await store.dropAlertDeviceToken(
                    tenantId: tenant.id,
                    userId: user.id,
                    id: created.id,
                    deviceToken: String(repeating: "ab", count: 32)
                )
            )
            #expect(
                try await store.alert(tenantId: tenant.id, userId: user.id, id: created.id)?.channels == AlertChannels(webhook: Self.channels.webhook)
            )

            #expect(try await store.deleteAlert(tenantId: tenant.id, userId: user.id, id: created.id, audit: nil))
            #expect(try await store.deleteAlert(tenantId: tenant.id, userId: user.id, id: created.id, audit: nil) == false)
            #expect(try await store.alert(tenantId: tenant.id, userId: user.id, id: created.id) == nil)
            #expect(try await store.updateAlert(tenantId: tenant.id, userId: user.id, id: created.id, draft, audit: nil) == nil)
            #expect(try await store.alertWebhookSecret(tenantId: tenant.id, userId: user.id, id: created.id) == nil)
        }
    }

    @Test("the webhook secret is never stored in clear, and does not open in another row", arguments: StoreBackend.all)
    func secretSealed(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let secret = "whsec_" + String(repeating: "q", count: 40)
            let first = try await store.createAlert(tenantId: tenant.id, userId: user.id, Self.draft(), webhookSecret: secret, limit: 10, audit: nil)
            let second = try await store.createAlert(
                tenantId: tenant.id,
                userId: user.id,
                Self.draft(),
                webhookSecret: "whsec_2",
                limit: 10,
                audit: nil
            )
            let hex = try await store.rawStrings(
                backend == .sqlite ? "SELECT hex(webhook_secret) FROM alerts" : "SELECT encode(webhook_secret, 'hex') FROM alerts"
            )
            let secretHex = Data(secret.utf8).map { String(format: "%02x", $0) }.joined()
            #expect(hex.count == 2)
            #expect(hex.allSatisfy { !$0.lowercased().contains(secretHex) && !$0.lowercased().contains("7768736563") })
            // A ciphertext copied to another alert's row does not open there.
            try await store.rawExecute(
                "UPDATE alerts SET webhook_secret = (SELECT webhook_secret FROM alerts WHERE id = ?) WHERE id = ?",
                [first.id, second.id]
            )
            await expectGatewayError(.internalError) {
                try await store.alertWebhookSecret(tenantId: tenant.id, userId: user.id, id: second.id)
            }
            #expect(try await store.alertWebhookSecret(tenantId: tenant.id, userId: user.id, id: first.id) == secret)
        }
    }

    @Test("a user has at most the limit of alerts; one more is a 422", arguments: StoreBackend.all)
    func limit(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let other = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "b"), audit: nil)
            for _ in 0..<3 {
                _ = try await store.createAlert(tenantId: tenant.id, userId: user.id, Self.draft(), webhookSecret: "s", limit: 3, audit: nil)
            }
            await expectGatewayError(.unprocessable) {
                try await store.createAlert(tenantId: tenant.id, userId: user.id, Self.draft(), webhookSecret: "s", limit: 3, audit: nil)
            }
            // Another user's alerts count for them only.
            _ = try await store.createAlert(tenantId: tenant.id, userId: other.id, Self.draft(), webhookSecret: "s", limit: 3, audit: nil)
            #expect(try await store.alerts(tenantId: tenant.id, userId: user.id).count == 3)
        }
    }

    @Test("another user's or tenant's alert and log are out of reach; deleting the user deletes their alerts", arguments: StoreBackend.all)
    func isolation(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let other = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "b"), audit: nil)
            let otherTenant = try await store.createTenant(name: "Other")
            let alert = try await store.createAlert(tenantId: tenant.id, userId: user.id, Self.draft(), webhookSecret: "s", limit: 10, audit: nil)
            let attempt = AlertDeliveryAttempt(
                id: "dlv_x",
                alertId: alert.id,
                eventId: "evt_x",
                channel: .webhook,
                attempt: 1,
                at: Date(),
                outcome: .delivered,
                httpStatus: 200
            )
            for (tenantId, userId) in [(tenant.id, other.id), (otherTenant.id, user.id)] {
                #expect(try await store.alert(tenantId: tenantId, userId: userId, id: alert.id) == nil)
                #expect(try await store.alerts(tenantId: tenantId, userId: userId).isEmpty)
                #expect(try await store.updateAlert(tenantId: tenantId, userId: userId, id: alert.id, Self.draft(), audit: nil) == nil)
                #expect(try await store.deleteAlert(tenantId: tenantId, userId: userId, id: alert.id, audit: nil) == false)
                #expect(try await store.alertWebhookSecret(tenantId: tenantId, userId: userId, id: alert.id) == nil)
                #expect(
                    try await store.recordAlertState(tenantId: tenantId, userId: userId, id: alert.id, armed: false, firedAt: Date(), disable: true)
                        == false
                )
                try await store.recordAlertDelivery(tenantId: tenantId, userId: userId, attempt)
                await expectGatewayError(.notFound) {
                    try await store.alertDeliveries(tenantId: tenantId, userId: userId, alertId: alert.id, before: nil, limit: 10)
                }
            }
            #expect(try await store.alertDeliveries(tenantId: tenant.id, userId: user.id, alertId: alert.id, before: nil, limit: 10).isEmpty)
            #expect(try await store.alert(tenantId: tenant.id, userId: user.id, id: alert.id) == alert)
            #expect(try await store.enabledAlerts() == [OwnedAlert(tenantId: tenant.id, userId: user.id, alert: alert)])
            try await store.recordAlertDelivery(tenantId: tenant.id, userId: user.id, attempt)
            #expect(try await store.deleteUser(tenantId: tenant.id, id: user.id, audit: nil))
            #expect(try await store.rawStrings("SELECT id FROM alerts").isEmpty)
            #expect(try await store.rawStrings("SELECT id FROM alert_deliveries").isEmpty)
        }
    }

    @Test("the delivery log: newest first, paged by a cursor, an unknown cursor is a 404", arguments: StoreBackend.all)
    func deliveryLog(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let alert = try await store.createAlert(tenantId: tenant.id, userId: user.id, Self.draft(), webhookSecret: "s", limit: 10, audit: nil)
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            let attempts = (1...5).map { number in
                AlertDeliveryAttempt(
                    id: "dlv_\(number)",
                    alertId: alert.id,
                    eventId: "evt_1",
                    channel: .webhook,
                    attempt: number,
                    at: at.addingTimeInterval(Double(number)),
                    outcome: number == 5 ? .delivered : .retrying,
                    httpStatus: number == 5 ? 200 : nil,
                    error: number == 5 ? nil : "upstream_timeout: no answer",
                    test: number == 1
                )
            }
            for attempt in attempts { try await store.recordAlertDelivery(tenantId: tenant.id, userId: user.id, attempt) }
            let first = try await store.alertDeliveries(tenantId: tenant.id, userId: user.id, alertId: alert.id, before: nil, limit: 2)
            #expect(first == [attempts[4], attempts[3]])
            let next = try await store.alertDeliveries(tenantId: tenant.id, userId: user.id, alertId: alert.id, before: "dlv_4", limit: 10)
            #expect(next == [attempts[2], attempts[1], attempts[0]])
            await expectGatewayError(.notFound) {
                try await store.alertDeliveries(tenantId: tenant.id, userId: user.id, alertId: alert.id, before: "dlv_none", limit: 10)
            }
        }
    }

    @Test("each alert write is audited in the same write; a write that changes nothing audits nothing", arguments: StoreBackend.all)
    func audited(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            func record(_ action: String, _ target: String?) -> AuditRecord {
                AuditRecord(tenantId: tenant.id, actor: "key_x", action: action, target: target, detail: ["userId": user.id])
            }
            let alert = try await store.createAlert(
                tenantId: tenant.id,
                userId: user.id,
                Self.draft(),
                webhookSecret: "s",
                limit: 1,
                audit: record("alert.created", nil)
            )
            _ = try await store.updateAlert(
                tenantId: tenant.id,
                userId: user.id,
                id: alert.id,
                Self.draft(),
                audit: record("alert.updated", alert.id)
            )
            await expectGatewayError(.unprocessable) {
                try await store.createAlert(
                    tenantId: tenant.id,
                    userId: user.id,
                    Self.draft(),
                    webhookSecret: "s",
                    limit: 1,
                    audit: record("alert.created", nil)
                )
            }
            #expect(try await store.deleteAlert(tenantId: tenant.id, userId: user.id, id: alert.id, audit: record("alert.deleted", alert.id)))
            #expect(
                try await store.deleteAlert(tenantId: tenant.id, userId: user.id, id: alert.id, audit: record("alert.deleted", alert.id)) == false
            )
            let events = try await store.auditEvents(tenantId: tenant.id, before: nil, limit: 50).filter { $0.action.hasPrefix("alert.") }
            #expect(events.map(\.action) == ["alert.deleted", "alert.updated", "alert.created"])
            #expect(events.allSatisfy { $0.target == alert.id })
        }
    }
}
