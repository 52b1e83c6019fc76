import Foundation
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import Logging
import Synchronization
import Testing

@testable import GatewayApp

@Suite("Alert delivery: retries, backoff, the log")
struct AlertDeliveryTests {
    /// The waits asked for, recorded instead of slept.
    final class Waits: Sendable {
        let values = Mutex<[Duration]>([])
        func withLock<T: Sendable>(_ body: (inout [Duration]) -> T) -> T { values.withLock { body(&$0) } }
    }

    /// A store with one user's alert (a webhook), the delivery under `settings` with its waits recorded, not slept.
    static func with(
        _ answers: [BrokerResponse],
        maxAttempts: Int = 5,
        _ body: (AlertDelivery, Alert, Owner, ScriptedTransport, Waits, SQLiteStore) async throws -> Void
    ) async throws {
        let store = try SQLiteStore(inMemoryWith: .random())
        let tenant = try await store.createTenant(name: "Acme")
        let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
        let alert = try await store.createAlert(
            tenantId: tenant.id,
            userId: user.id,
            AlertDraft(
                name: "x",
                rule: .order(.init(on: .filled)),
                channels: AlertChannels(webhook: .init(url: "https://hooks.example/x")),
                enabled: true,
                rearm: .crossBack
            ),
            webhookSecret: "whsec_secret",
            limit: 10,
            audit: nil
        )
        // Each request gets the next scripted answer, the last one once the script runs out.
        let script = ScriptedTransport(answers: answers, afterLast: .repeatLast)
        let waits = Waits()
        let delivery = AlertDelivery(
            store: store,
            settings: AlertSettings(maxAttempts: maxAttempts, baseDelay: .seconds(1), maxDelay: .seconds(60), transport: script),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            sleep: { duration in waits.withLock { $0.append(duration) } }
        )
        try await body(delivery, alert, Owner(tenant: tenant, userId: user.id, actor: "test"), script, waits, store)
    }

    static func notification(_ alert: Alert) -> AlertNotification {
        AlertNotification(eventId: "evt_1", alertId: alert.id, kind: .test, rule: alert.rule, message: "m", firedAt: Date())
    }

    @Test("503, 503, 429 with Retry-After, 200: four attempts, doubling waits with jitter, the Retry-After honoured")
    func backoffAndRetryAfter() async throws {
        let answers = [
            BrokerResponse(status: 503), BrokerResponse(status: 503),
            BrokerResponse(status: 429, headers: [(name: "Retry-After", value: "30")]), BrokerResponse(status: 200),
        ]
        try await Self.with(answers) { delivery, alert, owner, script, waits, store in
            let attempts = await delivery.deliver(Self.notification(alert), alert: alert, tenantId: owner.tenant.id, userId: owner.userId)
            #expect(attempts.map(\.outcome) == [.retrying, .retrying, .retrying, .delivered])
            #expect(attempts.map(\.httpStatus) == [503, 503, 429, 200])
            #expect(attempts.map(\.attempt) == [1, 2, 3, 4])
            let slept = waits.withLock { $0 }
            #expect(slept.count == 3)
            #expect(slept[0] >= .seconds(1) && slept[0] <= .milliseconds(1250))
            #expect(slept[1] >= .seconds(2) && slept[1] <= .milliseconds(2500))
            #expect(slept[2] == .seconds(30))
            // Every attempt carries the same event id and a signature that verifies with the alert's secret.
            for request in script.requests {
                #expect(request.header("BrokerGateway-Event-Id") == "evt_1")
                let signature = try #require(request.header("BrokerGateway-Signature"))
                #expect(WebhookSignature.verify(header: signature, body: request.body ?? Data(), secret: "whsec_secret", now: Date()))
            }
            let log = try await store.alertDeliveries(tenantId: owner.tenant.id, userId: owner.userId, alertId: alert.id, before: nil, limit: 10)
            #expect(log.map(\.attempt) == [4, 3, 2, 1])
        }
    }

    @Test("attempts are bounded: the last failure is final; a 404 is never retried")
    func bounded() async throws {
        try await Self.with([BrokerResponse(status: 500)], maxAttempts: 3) { delivery, alert, owner, _, waits, _ in
            let attempts = await delivery.deliver(Self.notification(alert), alert: alert, tenantId: owner.tenant.id, userId: owner.userId)
            #expect(attempts.map(\.outcome) == [.retrying, .retrying, .failed])
            #expect(waits.withLock { $0.count } == 2)
        }
        try await Self.with([BrokerResponse(status: 404)]) { delivery, alert, owner, _, waits, _ in
            let attempts = await delivery.deliver(Self.notification(alert), alert: alert, tenantId: owner.tenant.id, userId: owner.userId)
            #expect(attempts.map(\.outcome) == [.failed])
            #expect(attempts.first?.error == "the receiver answered 404")
            #expect(waits.withLock { $0.isEmpty })
        }
    }

    @Test("the waits never pass maxDelay, whatever the Retry-After")
    func capped() async throws {
        let answers = [BrokerResponse(status: 429, headers: [(name: "Retry-After", value: "86400")]), BrokerResponse(status: 200)]
        try await Self.with(answers) { delivery, alert, owner, _, waits, _ in
            _ = await delivery.deliver(Self.notification(alert), alert: alert, tenantId: owner.tenant.id, userId: owner.userId)
            #expect(waits.withLock { $0 } == [.seconds(60)])
        }
    }
}
