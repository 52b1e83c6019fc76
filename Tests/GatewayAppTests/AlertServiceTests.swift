import Foundation
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import Logging
import Metrics
import Testing

@testable import GatewayApp

/// Issue 28: a service is built from only the collaborators it uses, with no `Gateway` around it.
@Suite("Alert service, built alone: a user's alerts are that user's, and each write is audited")
struct AlertServiceTests {
    /// The alert service on an in-memory store, with its delivery, metrics and audit trail and nothing else.
    static func service(_ store: SQLiteStore) -> AlertService {
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let settings = AlertSettings(
            transport: ScriptedTransport().onUnscripted { request in Issue.record("no alert here has a webhook: \(request.url)") }
        )
        return AlertService(
            store: store,
            logger: logger,
            metrics: ApplicationMetrics(factory: NOOPMetricsHandler.instance),
            audit: AuditTrail(store: store),
            alertSettings: settings,
            alertDelivery: AlertDelivery(store: store, settings: settings, logger: logger),
            alertStream: AlertStreamRelay()
        )
    }

    @Test func anAlertIsItsOwnersOnly() async throws {
        let store = try SQLiteStore(inMemoryWith: .random())
        let alerts = Self.service(store)
        let tenant = try await store.createTenant(name: "Acme")
        let first = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "a"), audit: nil)
        let second = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "b"), audit: nil)
        let owner = Owner(tenant: tenant, userId: first.id, actor: "key:test")
        let other = Owner(tenant: tenant, userId: second.id, actor: "key:test")

        let created = try await alerts.createAlert(owner: owner, AlertInput(rule: AlertRuleInput(type: .order, on: .rejected)))
        #expect(created.webhookSecret.isEmpty == false)
        #expect(try await alerts.alerts(owner: owner).map(\.id) == [created.alert.id])
        #expect(try await alerts.alerts(owner: other).isEmpty)
        await #expect(throws: GatewayError.self) { _ = try await alerts.alert(owner: other, id: created.alert.id) }
        await #expect(throws: GatewayError.self) { try await alerts.deleteAlert(owner: other, id: created.alert.id) }

        try await alerts.deleteAlert(owner: owner, id: created.alert.id)
        #expect(try await alerts.alerts(owner: owner).isEmpty)
        let actions = try await store.auditEvents(tenantId: tenant.id, before: nil, limit: 10).map(\.action)
        #expect(actions.contains("alert.created"))
        #expect(actions.contains("alert.deleted"))
    }

    @Test func aRuleThatIsMissingIsRefusedBeforeTheStore() async throws {
        let store = try SQLiteStore(inMemoryWith: .random())
        let alerts = Self.service(store)
        let tenant = try await store.createTenant(name: "Acme")
        let user = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "a"), audit: nil)
        let owner = Owner(tenant: tenant, userId: user.id, actor: "key:test")
        let error = await #expect(throws: GatewayError.self) { _ = try await alerts.createAlert(owner: owner, AlertInput(name: "no rule")) }
        #expect(error?.code == .unprocessable)
        #expect(try await alerts.alerts(owner: owner).isEmpty)
    }
}
