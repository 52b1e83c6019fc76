public import Foundation
import GatewayCore
public import GatewayModel
import GatewayStore
import Logging
public import ServiceLifecycle
import Synchronization

/// What the gateway knows of the `AlertEngine` made for it (the latest one wins; empty until then): the stream its
/// test sends go on, and whom to tell that a user's alerts were written through the API (the engine drops what it
/// cached of them).
final class AlertStreamRelay: Sendable {
    private let sink = Mutex<AlertEngine.StreamSink?>(nil)
    private let changed = Mutex<(@Sendable (AlertUserKey) -> Void)?>(nil)

    func attach(_ sink: @escaping AlertEngine.StreamSink, alertsChanged: @escaping @Sendable (AlertUserKey) -> Void) {
        self.sink.withLock { $0 = sink }
        changed.withLock { $0 = alertsChanged }
    }

    var current: AlertEngine.StreamSink? { sink.withLock { $0 } }

    func alertsChanged(tenantId: String, userId: String) {
        changed.withLock { $0 }?(AlertUserKey(tenantId: tenantId, userId: userId))
    }
}

/// One user of one tenant: whose alerts, quotes and orders these are.
public struct AlertUserKey: Hashable, Sendable {
    /// The tenant the user belongs to.
    public var tenantId: String
    /// The user within that tenant.
    public var userId: String

    /// The key of one tenant's user.
    public init(tenantId: String, userId: String) {
        self.tenantId = tenantId
        self.userId = userId
    }
}

/// Fires alerts from what the stream sees: quotes for price alerts, order updates for order alerts, and the clock for
/// orders that stay unknown. Every firing goes to `onStream` at once (the user's stream), updates the alert's
/// `lastFiredAt` (and `armed`) in the store, and is queued for webhook and APNs delivery, which `run()` carries out
/// (a Service: run it beside the stream; retries with backoff happen there, never in the caller of `observe`).
///
/// Each call names its tenant and user and reads only that user's alerts, so one user's quotes or orders never
/// reach another's alerts. The rules are `AlertRules` (pure); this keeps their state in memory: a price alert's
/// window and whether it is armed (also stored, so a restart does not fire a crossing again), the orders seen
/// unknown, and which order each order alert has fired for.
public final class AlertEngine: Service, Sendable {
    /// Where a firing goes at once: the user's open streams (the gateway's hub, or a test's recorder).
    public typealias StreamSink = @Sendable (_ tenantId: String, _ userId: String, AlertNotification) async -> Void

    typealias Scheduler = AlertDeliveryScheduler<AlertDelivery.Job>

    struct State {
        /// By alert id: the state and the `updatedAt` of the alert it belongs to (an edit starts it afresh).
        var prices: [String: (updatedAt: Date?, state: AlertRules.PriceState)] = [:]
        var unknown: [AlertUserKey: AlertRules.UnknownOrders] = [:]
        /// `alertId|orderId|…` of the order firings made, so an order fires an alert once.
        var firedOrders: Set<String> = []
        /// Each user's alerts as last read, and when; dropped when they are written (here, or through this gateway's
        /// API). `generation` moves with every drop, so a read that was in flight across one is not kept.
        var cache: [AlertUserKey: (loaded: ContinuousClock.Instant, alerts: [Alert])] = [:]
        var generation = 0

        /// Far more than any gateway holds; past it the memory is dropped rather than grown (a price alert then
        /// starts from its stored `armed`, an order alert may fire again for an order it already told of).
        static let maximumEntries = 200_000
    }

    let store: any GatewayStore
    let delivery: AlertDelivery
    let onStream: StreamSink
    let logger: Logger
    let metrics: ApplicationMetrics
    let alertsMaxAge: Duration
    private let state = Mutex(State())
    /// The deliveries waiting, running and waiting for a retry, per tenant (`AlertSettings` bounds them).
    private let scheduler: Mutex<Scheduler>
    /// Tells `run()` to look for deliveries to start: one was queued or a slot came free (many wake-ups fold into one).
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// - Parameters:
    ///   - onStream: called with every firing, before any other channel; put it on the user's stream.
    ///   - alertsMaxAge: how long a user's alerts, once read, are used without reading them again. Writes through this
    ///     gateway (the API's, the engine's own) are seen at once; another instance's within this time.
    public convenience init(
        gateway: Gateway,
        alertsMaxAge: Duration = .seconds(1),
        onStream: @escaping StreamSink
    ) {
        self.init(alerts: gateway.alerts, alertsMaxAge: alertsMaxAge, onStream: onStream)
    }

    /// `alerts`: the service whose store, delivery and settings the engine shares, and whose test sends it streams.
    public init(
        alerts gateway: AlertService,
        alertsMaxAge: Duration = .seconds(1),
        onStream: @escaping StreamSink
    ) {
        self.store = gateway.store
        self.delivery = gateway.alertDelivery
        self.onStream = onStream
        self.logger = gateway.logger
        self.metrics = gateway.metrics
        self.alertsMaxAge = alertsMaxAge
        let settings = gateway.alertSettings
        scheduler = Mutex(
            Scheduler(
                limits: .init(
                    total: settings.maxConcurrentDeliveries,
                    perTenant: settings.maxConcurrentPerTenant,
                    perDestination: settings.maxConcurrentPerDestination,
                    pendingPerTenant: settings.maxPendingPerTenant
                )
            )
        )
        let made = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wakeUps = made.stream
        wake = made.continuation
        // Test sends (`POST /v1/alerts/{id}/test`) go on the stream through this engine's closure too, and the API's
        // alert writes drop what this engine cached of the user's alerts.
        gateway.alertStream.attach(onStream) { [weak self] key in self?.forget(key) }
    }

    /// A notification's event id: `evt_` and 20 base32 characters.
    public static func makeEventId() -> String {
        "evt_" + RandomIdentifier.base32(count: 20)
    }

    // MARK: What the stream calls

    /// The instruments each user's enabled price alerts need quotes of.
    public func instrumentsWatched() async throws -> [AlertUserKey: Set<InstrumentReference>] {
        var watched: [AlertUserKey: Set<InstrumentReference>] = [:]
        for owned in try await store.enabledAlerts() {
            guard case .price(let rule) = owned.alert.rule else { continue }
            watched[AlertUserKey(tenantId: owned.tenantId, userId: owned.userId), default: []].insert(rule.instrument)
        }
        return watched
    }

    /// A quote one of the user's connections gave at `at`: the user's price alerts that watch it are judged.
    public func observe(quote: Quote, tenantId: String, userId: String, at: Date) async {
        guard let price = AlertRules.price(of: quote) else { return }
        guard let alerts = await userAlerts(tenantId: tenantId, userId: userId) else { return }
        var fired: [(Alert, String)] = []
        var rearmed: [Alert] = []
        state.withLock { state in
            if state.prices.count > State.maximumEntries { state.prices.removeAll() }
            for alert in alerts where alert.enabled {
                guard case .price(let rule) = alert.rule, AlertRules.watches(rule, quote) else { continue }
                let fresh = (updatedAt: alert.updatedAt, state: AlertRules.PriceState(armed: alert.armed))
                var entry = state.prices[alert.id] ?? fresh
                if entry.updatedAt != alert.updatedAt { entry = fresh }
                switch AlertRules.evaluate(rule, price: price, at: at, state: &entry.state) {
                case .fire(let message): fired.append((alert, message))
                case .rearm: rearmed.append(alert)
                case .none: break
                }
                state.prices[alert.id] = entry
            }
        }
        for alert in rearmed {
            await record(tenantId: tenantId, userId: userId, alert.id, armed: true, firedAt: nil, disable: false)
        }
        for (alert, message) in fired {
            let notification = AlertNotification(
                eventId: Self.makeEventId(),
                alertId: alert.id,
                alertName: alert.name,
                kind: .price,
                rule: alert.rule,
                message: message,
                price: price,
                quote: quote,
                firedAt: at
            )
            await fire(notification, alert: alert, tenantId: tenantId, userId: userId, armed: false, disable: alert.rearm == .once)
        }
    }

    /// A change of one of the user's orders: order alerts on `filled` and `rejected` fire at once; `unknown` starts or
    /// stops the order's clock (judged by `sweep`).
    public func observe(update: OrderUpdate, tenantId: String, userId: String) async {
        let key = AlertUserKey(tenantId: tenantId, userId: userId)
        state.withLock { state in
            if update.kind == .unknown {
                if state.unknown[key] != nil || state.unknown.count < State.maximumEntries {
                    state.unknown[key, default: AlertRules.UnknownOrders()].observe(update)
                }
            } else if var orders = state.unknown[key] {
                orders.observe(update)
                state.unknown[key] = orders.pending.isEmpty ? nil : orders
            }
        }
        guard update.kind != .unknown else { return }
        guard let alerts = await userAlerts(tenantId: tenantId, userId: userId) else { return }
        var fired: [(Alert, AlertRule.OrderRule)] = []
        state.withLock { state in
            if state.firedOrders.count > State.maximumEntries { state.firedOrders.removeAll() }
            for alert in alerts where alert.enabled {
                guard case .order(let rule) = alert.rule, AlertRules.fires(rule, update) else { continue }
                if state.firedOrders.insert("\(alert.id)|\(update.orderId)|\(rule.on.rawValue)").inserted {
                    fired.append((alert, rule))
                }
            }
        }
        for (alert, rule) in fired {
            let notification = AlertNotification(
                eventId: Self.makeEventId(),
                alertId: alert.id,
                alertName: alert.name,
                kind: .order,
                rule: alert.rule,
                message: AlertRules.message(rule, update),
                orderUpdate: update,
                firedAt: update.at
            )
            await fire(notification, alert: alert, tenantId: tenantId, userId: userId, armed: alert.armed, disable: false)
        }
    }

    /// Fires the `unknown` order alerts whose orders have been unknown for longer than their `unknownForSeconds` at
    /// `now`. Call it every second or so.
    public func sweep(now: Date) async {
        let users = state.withLock { state in Array(state.unknown.keys) }
        for key in users {
            guard let alerts = await userAlerts(tenantId: key.tenantId, userId: key.userId) else { continue }
            var fired: [(Alert, AlertRule.OrderRule, OrderUpdate)] = []
            state.withLock { state in
                guard let orders = state.unknown[key] else { return }
                for alert in alerts where alert.enabled {
                    guard case .order(let rule) = alert.rule, rule.on == .unknown else { continue }
                    for update in orders.overdue(rule, now: now) {
                        let mark = "\(alert.id)|\(update.orderId)|unknown|\(update.at.timeIntervalSince1970)"
                        if state.firedOrders.insert(mark).inserted { fired.append((alert, rule, update)) }
                    }
                }
            }
            for (alert, rule, update) in fired {
                let notification = AlertNotification(
                    eventId: Self.makeEventId(),
                    alertId: alert.id,
                    alertName: alert.name,
                    kind: .order,
                    rule: alert.rule,
                    message: AlertRules.message(rule, update),
                    orderUpdate: update,
                    firedAt: now
                )
                await fire(notification, alert: alert, tenantId: key.tenantId, userId: key.userId, armed: alert.armed, disable: false)
            }
        }
    }

    // MARK: Delivery

    /// Delivers queued notifications on their webhook and APNs channels until cancelled or the service group shuts
    /// down gracefully: one attempt at a time per delivery, as many at once as `AlertSettings` allows in all, per
    /// tenant and per receiver, the tenants' queues served round-robin (`AlertDeliveryScheduler`). A delivery waiting
    /// for its retry's backoff holds no slot: it sleeps in its own child task, then goes back to the front of its
    /// tenant's queue.
    public func run() async throws {
        let wakeUps = self.wakeUps
        try await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for await _ in wakeUps {
                    while let entry = self.scheduler.withLock({ $0.next() }) {
                        group.addTask { await self.carry(entry) }
                    }
                }
            }
        }
    }

    /// Runs one started delivery's attempt, frees its slot, and queues what follows: its retry once the backoff has
    /// passed, or one delivery per device.
    func carry(_ entry: Scheduler.Entry) async {
        switch await delivery.step(entry.item) {
        case .finished:
            scheduler.withLock { $0.release(entry, retrying: false) }
            wake.yield()
        case .fanOut(let jobs):
            scheduler.withLock { $0.release(entry, retrying: false) }
            await admit(jobs)
        case .retry(let wait, let job):
            scheduler.withLock { $0.release(entry, retrying: true) }
            wake.yield()
            do {
                try await delivery.sleep(wait)
            } catch {
                scheduler.withLock { $0.abandon(tenant: entry.tenant) }
                return
            }
            scheduler.withLock { $0.requeue(Scheduler.Entry(item: job, tenant: entry.tenant, destination: entry.destination)) }
            wake.yield()
        }
    }

    /// Queues new deliveries behind their tenant's; one its tenant's full queue refuses is dropped (logged, counted).
    func admit(_ jobs: [AlertDelivery.Job]) async {
        var refused: [AlertDelivery.Job] = []
        scheduler.withLock { scheduler in
            for job in jobs where !scheduler.enqueue(Scheduler.Entry(item: job, tenant: job.tenantId, destination: job.destination)) {
                refused.append(job)
            }
        }
        wake.yield()
        let limit = scheduler.withLock { $0.limits.pendingPerTenant }
        for job in refused { await delivery.dropped(job, pendingLimit: limit) }
    }

    func fire(_ notification: AlertNotification, alert: Alert, tenantId: String, userId: String, armed: Bool, disable: Bool) async {
        await record(tenantId: tenantId, userId: userId, alert.id, armed: armed, firedAt: notification.firedAt, disable: disable)
        metrics.alertFired(kind: notification.kind)
        logger.info(
            "alert fired",
            metadata: ["alert": "\(alert.id)", "event": "\(notification.eventId)", "kind": "\(notification.kind.rawValue)"]
        )
        await onStream(tenantId, userId, notification)
        let jobs = delivery.jobs(notification, alert: alert, tenantId: tenantId, userId: userId)
        if !jobs.isEmpty { await admit(jobs) }
    }

    func record(tenantId: String, userId: String, _ id: String, armed: Bool, firedAt: Date?, disable: Bool) async {
        do {
            _ = try await store.recordAlertState(tenantId: tenantId, userId: userId, id: id, armed: armed, firedAt: firedAt, disable: disable)
        } catch {
            logger.error("an alert's state could not be stored", metadata: ["alert": "\(id)", "error": "\(AlertDelivery.describe(error))"])
        }
        forget(AlertUserKey(tenantId: tenantId, userId: userId))
    }

    /// Drops what is cached of the user's alerts (they were written).
    func forget(_ key: AlertUserKey) {
        state.withLock { state in
            state.cache[key] = nil
            state.generation &+= 1
        }
    }

    /// The user's alerts: as read less than `alertsMaxAge` ago and not written since, else read now.
    func userAlerts(tenantId: String, userId: String) async -> [Alert]? {
        let key = AlertUserKey(tenantId: tenantId, userId: userId)
        let now = ContinuousClock.now
        let maxAge = alertsMaxAge
        let (cached, generation) = state.withLock { state in
            (state.cache[key].flatMap { now - $0.loaded < maxAge ? $0.alerts : nil }, state.generation)
        }
        if let cached { return cached }
        do {
            let alerts = try await store.alerts(tenantId: tenantId, userId: userId)
            state.withLock { state in
                guard state.generation == generation else { return }
                if state.cache.count >= State.maximumEntries { state.cache.removeAll() }
                state.cache[key] = (now, alerts)
            }
            return alerts
        } catch {
            logger.error("a user's alerts could not be read", metadata: ["error": "\(AlertDelivery.describe(error))"])
            return nil
        }
    }
}
