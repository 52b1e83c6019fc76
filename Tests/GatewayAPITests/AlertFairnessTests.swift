import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Prometheus
import TestWorlds
import Testing

/// Issue 27, N4: one tenant's alerts firing at webhooks that never answer must not hold up another tenant's alert, and
/// a tenant's full delivery queue costs only that tenant. Real receivers on loopback sockets (one hangs until the test
/// ends), the engine's `run()` as the gateway runs it, small limits from `AlertSettings`.
@Suite("Alerts: one tenant's hanging webhooks never starve another's", .heavyWorld)
struct AlertFairnessTests {
    /// The hanging receiver's requests outlive the test (the bound is the test's own end, never an attempt timeout).
    static func settings(total: Int, perTenant: Int, pending: Int = 1_000) -> AlertSettings {
        AlertSettings(
            maxAttempts: 1,
            timeout: .seconds(600),
            transport: HTTPClientTransport.loopbackForTests,
            maxConcurrentDeliveries: total,
            maxConcurrentPerTenant: perTenant,
            maxConcurrentPerDestination: total,
            maxPendingPerTenant: pending
        )
    }

    static let instrument = Instrument(symbol: "AAPL", assetClass: .equity)

    static func draft(webhook url: String) -> AlertDraft {
        AlertDraft(
            name: nil,
            rule: .price(.init(instrument: InstrumentReference(symbol: "AAPL", assetClass: .equity), condition: .above, threshold: 200)),
            channels: AlertChannels(webhook: .init(url: url)),
            enabled: true,
            rearm: .crossBack
        )
    }

    /// A tenant with one user and `count` price alerts (above 200) whose webhook is `url`.
    static func tenant(
        _ store: SQLiteStore,
        _ name: String,
        alerts count: Int,
        webhook url: String
    ) async throws -> (tenant: Tenant, userId: String, alerts: [Alert]) {
        let tenant = try await store.createTenant(name: name)
        let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
        var alerts: [Alert] = []
        for _ in 0..<count {
            alerts.append(
                try await store.createAlert(
                    tenantId: tenant.id,
                    userId: user.id,
                    draft(webhook: url),
                    webhookSecret: "whsec_\(name)",
                    limit: 100,
                    audit: nil
                )
            )
        }
        return (tenant, user.id, alerts)
    }

    /// Fires every price alert of the user: a quote below the threshold, then one above it.
    static func fire(_ engine: AlertEngine, tenantId: String, userId: String) async {
        await engine.observe(quote: Quote(instrument: instrument, last: 199), tenantId: tenantId, userId: userId, at: Date())
        await engine.observe(quote: Quote(instrument: instrument, last: 201), tenantId: tenantId, userId: userId, at: Date())
    }

    /// Runs `body` beside the engine's delivery service, which is cancelled (as a shutdown does) when `body` returns.
    static func running(_ engine: AlertEngine, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            do {
                try await body()
            } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }

    static func log(_ store: SQLiteStore, _ owner: (tenant: Tenant, userId: String, alerts: [Alert])) async throws -> [[AlertDeliveryAttempt]] {
        var logs: [[AlertDeliveryAttempt]] = []
        for alert in owner.alerts {
            logs.append(try await store.alertDeliveries(tenantId: owner.tenant.id, userId: owner.userId, alertId: alert.id, before: nil, limit: 50))
        }
        return logs
    }

    @Test("tenant A's 6 alerts at a hanging webhook (4 slots, 2 per tenant): tenant B's alert is delivered while all of A's still hang")
    func hangingTenantDoesNotDelayAnother() async throws {
        try await WebhookReceiver.with(statuses: [.ok], hangs: true) { hanging, hangingURL in
            try await WebhookReceiver.with(statuses: [.ok]) { receiver, url in
                try await APIHarness.with(alerts: Self.settings(total: 4, perTenant: 2)) { harness, _ in
                    let a = try await Self.tenant(harness.store, "a", alerts: 6, webhook: hangingURL)
                    let b = try await Self.tenant(harness.store, "b", alerts: 1, webhook: url)
                    let engine = AlertEngine(gateway: harness.gateway) { _, _, _ in }
                    try await Self.running(engine) {
                        await Self.fire(engine, tenantId: a.tenant.id, userId: a.userId)
                        // A's share of the slots reaches the hanging receiver, and stays there.
                        for _ in 0..<2 { #expect(await hanging.next(within: .seconds(60)) != nil) }
                        await Self.fire(engine, tenantId: b.tenant.id, userId: b.userId)
                        let delivered = await receiver.next(within: .seconds(60))
                        #expect(delivered != nil, "tenant B's alert was not delivered while tenant A's webhooks hang")
                        let eventId = delivered?.headers[HTTPField.Name("BrokerGateway-Event-Id")!]
                        #expect(eventId?.hasPrefix("evt_") == true)
                        // B's went out while none of A's attempts has ended, and A never went past its share.
                        let logs = try await Self.log(harness.store, a)
                        #expect(logs.allSatisfy { $0.isEmpty })
                        #expect(await hanging.arrived == 2)
                    }
                }
            }
        }
    }

    @Test("tenant A's full queue drops A's newest deliveries (in A's delivery log, counted), never tenant B's")
    func fullQueueDropsOnlyItsOwn() async throws {
        try await WebhookReceiver.with(statuses: [.ok], hangs: true) { hanging, hangingURL in
            try await WebhookReceiver.with(statuses: [.ok]) { receiver, url in
                let pipeline = BrokerPipeline(metrics: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
                try await APIHarness.with(pipeline: pipeline, alerts: Self.settings(total: 2, perTenant: 1, pending: 3)) { harness, client in
                    let a = try await Self.tenant(harness.store, "a", alerts: 6, webhook: hangingURL)
                    let b = try await Self.tenant(harness.store, "b", alerts: 1, webhook: url)
                    let engine = AlertEngine(gateway: harness.gateway) { _, _, _ in }
                    try await Self.running(engine) {
                        // One of A's runs (and hangs), two wait, the three newest are dropped.
                        await Self.fire(engine, tenantId: a.tenant.id, userId: a.userId)
                        #expect(await hanging.next(within: .seconds(60)) != nil)
                        await Self.fire(engine, tenantId: b.tenant.id, userId: b.userId)
                        #expect(await receiver.next(within: .seconds(60)) != nil, "tenant B's alert was not delivered")

                        let logs = try await Self.log(harness.store, a)
                        #expect(logs.map(\.count).sorted() == [0, 0, 0, 1, 1, 1])
                        let drops = logs.flatMap { $0 }
                        #expect(drops.allSatisfy { $0.outcome == .failed && $0.channel == .webhook && $0.attempt == 1 })
                        #expect(drops.allSatisfy { ($0.error ?? "").hasPrefix("dropped: the tenant already has 3") }, "\(drops)")
                        let metrics = try await client.execute(uri: "/metrics", method: .get) { try PrometheusText(String(buffer: $0.body)) }
                        #expect(metrics.sum("brokergateway_alert_deliveries_dropped_total", ["channel": "webhook"]) == 3)
                        #expect(await hanging.arrived == 1)
                    }
                }
            }
        }
    }
}
