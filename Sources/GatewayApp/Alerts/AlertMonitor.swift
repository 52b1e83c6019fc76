import Foundation
import GatewayCore
import GatewayModel
import GatewayStore
import Logging
public import ServiceLifecycle

/// Feeds the `AlertEngine` what its rules judge, whether or not anyone has a stream open: every order update of the
/// journal's feed (each user's to that user's alerts), the quotes of what the enabled price alerts watch (through the
/// same shared quote feeds as the streams, so an instrument a stream and an alert both watch is asked for once), and
/// the clock (`sweep`, for orders unknown too long).
///
/// With `leadership` (several instances on one database), only the lease holder feeds the engine, so an alert fires
/// once, not once per instance.
public struct AlertMonitor: Service {
    let streaming: StreamService
    let engine: AlertEngine
    let interval: Duration
    let leadership: ReconcilerLeadership?

    /// `interval`: how often the price alerts' instruments are read again and the clock is swept.
    public init(gateway: Gateway, engine: AlertEngine, interval: Duration = .seconds(1), leadership: ReconcilerLeadership? = nil) {
        self.init(streaming: gateway.streams, engine: engine, interval: interval, leadership: leadership)
    }

    /// `streaming`: the streams' shared quote feeds and order feed, which the alerts read too.
    public init(streaming: StreamService, engine: AlertEngine, interval: Duration = .seconds(1), leadership: ReconcilerLeadership? = nil) {
        self.streaming = streaming
        self.engine = engine
        self.interval = interval
        self.leadership = leadership
    }

    /// Watches for firings while this instance leads (always, without `leadership`), until the service group
    /// shuts down.
    public func run() async throws {
        let streaming = self.streaming
        let engine = self.engine
        var leading: Task<Void, Never>?
        defer { leading?.cancel() }
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            let leads = await leadership?.lead() ?? true
            if leads, leading == nil {
                let interval = self.interval
                leading = Task { await Self.lead(streaming: streaming, engine: engine, interval: interval) }
            } else if !leads, let running = leading {
                running.cancel()
                leading = nil
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: leadership == nil ? .seconds(3600) : interval * 5) }
            } catch {
                break
            }
        }
    }

    /// Everything the engine needs, while this instance leads.
    static func lead(streaming: StreamService, engine: AlertEngine, interval: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await orderUpdates(streaming: streaming, engine: engine) }
            group.addTask { await prices(streaming: streaming, engine: engine, interval: interval) }
            group.addTask {
                while !Task.isCancelled {
                    await engine.sweep(now: Date())
                    do { try await Task.sleep(for: interval) } catch { return }
                }
            }
        }
    }

    /// Every journal event, in feed order, to its user's order alerts. A listener that fell behind reads what it
    /// missed from the store before it listens again, so no update is skipped.
    static func orderUpdates(streaming: StreamService, engine: AlertEngine) async {
        let hub = streaming.streams
        var last: Int64?
        while !Task.isCancelled {
            do {
                let listener = try await hub.tail.listen(user: nil, capacity: 10_000)
                var delivered = last ?? listener.from
                if let from = last {
                    var cursor = from
                    while true {
                        let page = try await streaming.journal.orderFeed(after: cursor, limit: 500)
                        for event in page { await observe(event, engine) }
                        cursor = page.last?.cursor ?? cursor
                        if page.count < 500 { break }
                    }
                    delivered = cursor
                }
                for await event in listener.events where event.cursor > delivered {
                    await observe(event, engine)
                    delivered = event.cursor
                    last = delivered
                }
                await hub.tail.stopListening(listener.id)
                last = delivered
            } catch {
                streaming.logger.warning("the alerts cannot read the order feed; they try again", metadata: ["error": "\(error)"])
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
            }
        }
    }

    private static func observe(_ event: OrderFeedEvent, _ engine: AlertEngine) async {
        guard let userId = event.userId, let update = OrderUpdate(event) else { return }
        await engine.observe(update: update, tenantId: event.tenantId, userId: userId)
    }

    /// Keeps one quote watch per connection of each user with enabled price alerts, for the instruments those alerts
    /// watch, and gives each quote to that user's alerts. What is watched is read again every `interval`.
    static func prices(streaming: StreamService, engine: AlertEngine, interval: Duration) async {
        struct Watch {
            var instruments: Set<InstrumentReference>
            var task: Task<Void, Never>
        }
        var watches: [String: Watch] = [:]
        defer { for watch in watches.values { watch.task.cancel() } }
        while !Task.isCancelled {
            var wanted: [String: (connection: ConnectionDescriptor, user: AlertUserKey, instruments: Set<InstrumentReference>)] = [:]
            do {
                for (user, instruments) in try await engine.instrumentsWatched() {
                    for connection in try await streaming.store.connections(tenantId: user.tenantId, userId: user.userId)
                    where connection.status == .active
                        && (streaming.registry.factory(for: connection.broker)?.capabilities.support(for: .quotes) ?? .unsupported)
                            != .unsupported
                    {
                        wanted[connection.id] = (connection, user, instruments)
                    }
                }
            } catch {
                // The watches stay as they are: a store that cannot answer for a moment must not stop every quote.
                streaming.logger.warning("the alerts cannot read what their prices watch", metadata: ["error": "\(error)"])
                do { try await Task.sleep(for: interval) } catch { return }
                continue
            }
            for (connectionId, watch) in watches where wanted[connectionId]?.instruments != watch.instruments {
                watch.task.cancel()
                watches.removeValue(forKey: connectionId)
            }
            for (connectionId, want) in wanted where watches[connectionId] == nil {
                let hub = streaming.streams
                let source = streaming.quoteSource(want.connection)
                let task = Task {
                    let (id, messages) = await hub.quotes.watch(
                        want.connection,
                        Array(want.instruments),
                        capacity: 1000,
                        source: source
                    )
                    for await message in messages {
                        guard case .quote(let quote) = message else { continue }
                        await engine.observe(quote: quote, tenantId: want.user.tenantId, userId: want.user.userId, at: Date())
                    }
                    await hub.quotes.stopWatching(connectionId, id)
                }
                watches[connectionId] = Watch(instruments: want.instruments, task: task)
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}
