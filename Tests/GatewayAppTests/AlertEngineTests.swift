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

@Suite("Alert engine: order updates, the unknown clock, once, and users kept apart")
struct AlertEngineTests {
    final class Stream: Sendable {
        let received = Mutex<[(tenantId: String, userId: String, notification: AlertNotification)]>([])
        var notifications: [AlertNotification] { received.withLock { $0.map(\.notification) } }
    }

    /// A gateway on an in-memory store with two users of one tenant, and an engine whose stream is recorded.
    static func with(_ body: (AlertEngine, any GatewayStore, Tenant, [String], Stream) async throws -> Void) async throws {
        let store = try SQLiteStore(inMemoryWith: .random())
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let gateway = Gateway(
            store: store,
            registry: AdapterRegistry(factories: [], transport: Self.noTransport(), logger: logger),
            router: BrokerRouter(),
            logger: logger,
            alerts: AlertSettings(transport: Self.noTransport())
        )
        let tenant = try await store.createTenant(name: "Acme")
        let first = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "a"), audit: nil)
        let second = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "b"), audit: nil)
        let stream = Stream()
        let engine = AlertEngine(gateway: gateway) { tenantId, userId, notification in
            stream.received.withLock { $0.append((tenantId, userId, notification)) }
        }
        try await body(engine, store, tenant, [first.id, second.id], stream)
    }

    /// No alert here has a webhook, so nothing may reach a transport.
    static func noTransport() -> ScriptedTransport {
        ScriptedTransport().onUnscripted { request in Issue.record("no alert here has a webhook: \(request.method) \(request.url)") }
    }

    static func create(
        _ store: any GatewayStore,
        _ tenant: Tenant,
        _ userId: String,
        _ rule: AlertRule,
        rearm: AlertRearm = .crossBack
    ) async throws -> Alert {
        try await store.createAlert(
            tenantId: tenant.id,
            userId: userId,
            AlertDraft(name: nil, rule: rule, channels: AlertChannels(), enabled: true, rearm: rearm),
            webhookSecret: "whsec_x",
            limit: 10,
            audit: nil
        )
    }

    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func update(_ kind: OrderUpdate.Kind, _ orderId: String, at seconds: Double, status: OrderStatus? = nil) -> OrderUpdate {
        OrderUpdate(kind: kind, orderId: orderId, connectionId: "conn_a", status: status, at: start.addingTimeInterval(seconds))
    }

    @Test("a filled order fires each filled alert of its user once, however many updates tell of it; another user's alerts never")
    func filledOnce() async throws {
        try await Self.with { engine, store, tenant, users, stream in
            let alert = try await Self.create(store, tenant, users[0], .order(.init(on: .filled)))
            let elsewhere = try await Self.create(store, tenant, users[0], .order(.init(on: .filled, connectionId: "conn_b")))
            _ = try await Self.create(store, tenant, users[1], .order(.init(on: .filled)))
            await engine.observe(update: Self.update(.placed, "o1", at: 0), tenantId: tenant.id, userId: users[0])
            await engine.observe(update: Self.update(.filled, "o1", at: 1), tenantId: tenant.id, userId: users[0])
            await engine.observe(update: Self.update(.reconciled, "o1", at: 2, status: .filled), tenantId: tenant.id, userId: users[0])
            let fired = stream.received.withLock { $0 }
            #expect(fired.count == 1)
            #expect(fired.first?.notification.alertId == alert.id && fired.first?.userId == users[0])
            #expect(fired.first?.notification.orderUpdate?.orderId == "o1" && fired.first?.notification.kind == .order)
            #expect(fired.first?.notification.message == "order o1 was filled")
            #expect(!stream.notifications.contains { $0.alertId == elsewhere.id })
            #expect(try await store.alert(tenantId: tenant.id, userId: users[0], id: alert.id)?.lastFiredAt == Self.start.addingTimeInterval(1))
        }
    }

    @Test("unknown for longer than N seconds fires from sweep, once per time the order became unknown; an answer in time stops it")
    func unknownClock() async throws {
        try await Self.with { engine, store, tenant, users, stream in
            let alert = try await Self.create(store, tenant, users[0], .order(.init(on: .unknown, unknownForSeconds: 30)))
            _ = try await Self.create(store, tenant, users[1], .order(.init(on: .unknown, unknownForSeconds: 1)))
            await engine.observe(update: Self.update(.unknown, "o1", at: 0), tenantId: tenant.id, userId: users[0])
            await engine.observe(update: Self.update(.unknown, "o2", at: 0), tenantId: tenant.id, userId: users[0])
            await engine.observe(update: Self.update(.reconciled, "o2", at: 20, status: .filled), tenantId: tenant.id, userId: users[0])
            await engine.sweep(now: Self.start.addingTimeInterval(30))
            #expect(stream.notifications.isEmpty)
            await engine.sweep(now: Self.start.addingTimeInterval(31))
            await engine.sweep(now: Self.start.addingTimeInterval(60))
            #expect(stream.notifications.map(\.alertId) == [alert.id])
            #expect(stream.notifications.first?.orderUpdate?.orderId == "o1")
            #expect(stream.notifications.first?.message == "order o1 has been unknown for more than 30 s")
            // Settled, then unknown again later: a new clock.
            await engine.observe(update: Self.update(.reconciled, "o1", at: 61, status: .open), tenantId: tenant.id, userId: users[0])
            await engine.observe(update: Self.update(.unknown, "o1", at: 100), tenantId: tenant.id, userId: users[0])
            await engine.sweep(now: Self.start.addingTimeInterval(131))
            #expect(stream.notifications.count == 2)
            // The other user's 1-second alert never saw user 0's orders.
            #expect(stream.received.withLock { $0.allSatisfy { $0.userId == users[0] } })
        }
    }

    @Test("a user's alerts are read once per alertsMaxAge; a write through the gateway is seen at once")
    func cachedUntilWritten() async throws {
        let store = try SQLiteStore(inMemoryWith: .random())
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let gateway = Gateway(
            store: store,
            registry: AdapterRegistry(factories: [], transport: Self.noTransport(), logger: logger),
            router: BrokerRouter(),
            logger: logger,
            alerts: AlertSettings(transport: Self.noTransport())
        )
        let tenant = try await store.createTenant(name: "Acme")
        let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
        let owner = Owner(tenant: tenant, userId: user.id, actor: "test")
        let stream = Stream()
        let engine = AlertEngine(gateway: gateway, alertsMaxAge: .seconds(3600)) { tenantId, userId, notification in
            stream.received.withLock { $0.append((tenantId, userId, notification)) }
        }
        let instrument = Instrument(symbol: "AAPL", assetClass: .equity)
        func quote(_ last: Decimal) async {
            await engine.observe(quote: Quote(instrument: instrument, last: last), tenantId: tenant.id, userId: user.id, at: Self.start)
        }
        await quote(10)
        // Written behind the gateway's back: not seen while the user's alerts read a moment ago are fresh.
        _ = try await Self.create(
            store,
            tenant,
            user.id,
            .price(.init(instrument: InstrumentReference(symbol: "AAPL"), condition: .above, threshold: 5))
        )
        await quote(11)
        #expect(stream.notifications.isEmpty)
        // Written through the gateway (the API's path): seen by the next quote.
        let input = AlertInput(rule: AlertRuleInput(type: .price, instrument: InstrumentReference(symbol: "AAPL"), condition: .above, threshold: 1))
        let created = try await gateway.alerts.createAlert(owner: owner, input)
        await quote(12)
        #expect(Set(stream.notifications.map(\.alertId)).contains(created.alert.id))
        #expect(stream.notifications.count == 2)
    }

    @Test("once: a price alert disables itself when it fires and is no longer watched; cross_back keeps it, disarmed")
    func onceAndWatched() async throws {
        try await Self.with { engine, store, tenant, users, stream in
            let reference = InstrumentReference(symbol: "BTC/USD", assetClass: .crypto)
            let once = try await Self.create(
                store,
                tenant,
                users[0],
                .price(.init(instrument: reference, condition: .below, threshold: 50_000)),
                rearm: .once
            )
            let again = try await Self.create(
                store,
                tenant,
                users[1],
                .price(.init(instrument: reference, condition: .below, threshold: 50_000))
            )
            let watched = try await engine.instrumentsWatched()
            #expect(watched[AlertUserKey(tenantId: tenant.id, userId: users[0])] == [reference])
            #expect(watched[AlertUserKey(tenantId: tenant.id, userId: users[1])] == [reference])
            let quote = Quote(instrument: Instrument(symbol: "BTC/USD", assetClass: .crypto), bid: 49_000, ask: 49_010)
            for user in users { await engine.observe(quote: quote, tenantId: tenant.id, userId: user, at: Self.start) }
            #expect(Set(stream.notifications.map(\.alertId)) == [once.id, again.id])
            #expect(stream.notifications.first?.price == 49_005)
            let stored = try #require(try await store.alert(tenantId: tenant.id, userId: users[0], id: once.id))
            #expect(!stored.enabled && !stored.armed)
            #expect(try await store.alert(tenantId: tenant.id, userId: users[1], id: again.id)?.enabled == true)
            #expect(try await engine.instrumentsWatched().keys.map(\.userId) == [users[1]])
            // Back above: re-armed in the store; below again: fires again.
            await engine.observe(quote: Quote(instrument: quote.instrument, last: 51_000), tenantId: tenant.id, userId: users[1], at: Self.start)
            #expect(try await store.alert(tenantId: tenant.id, userId: users[1], id: again.id)?.armed == true)
            await engine.observe(quote: quote, tenantId: tenant.id, userId: users[1], at: Self.start)
            #expect(stream.notifications.filter { $0.alertId == again.id }.count == 2)
        }
    }
}
