import Foundation
import GatewayCore
import GatewayModel
import GatewayStore
import Logging
public import ServiceLifecycle
import Synchronization

/// What the gateway's streams share: the order feed's tail, the quote feeds, and the streams open per user.
final class StreamHub: Sendable {
    let settings: StreamSettings
    let tail: OrderFeedTail
    let quotes: QuoteFeeds
    /// Tells the open streams when the store's change stamp moves, so each re-checks its credential at once.
    let stampWatch: StampWatch
    /// The API keys that opened streams, by id, under the store's change stamp: at a change every stream re-checks
    /// its key, and the streams of one key read it once.
    let streamKeys = StampedCache<String, APIKeyInfo>(capacity: HotReads.capacity)
    private let open = Mutex<[OrderFeedTail.UserKey: Int]>([:])
    private let producers = Mutex<[UInt64: Task<Void, Never>]>([:])
    private let nextProducer = Atomic<UInt64>(0)
    private let closed = Atomic<Bool>(false)

    init(settings: StreamSettings, journal: any OrderJournalStore, logger: Logger) {
        self.settings = settings
        self.tail = OrderFeedTail(journal: journal, interval: settings.feedInterval, logger: logger)
        self.quotes = QuoteFeeds(interval: settings.quoteInterval, logger: logger)
        self.stampWatch = StampWatch(interval: settings.feedInterval, logger: logger)
    }

    /// Takes one of the user's stream slots, or refuses with 429 when they are all taken (or the gateway is stopping).
    func admit(_ user: OrderFeedTail.UserKey) throws {
        if closed.load(ordering: .relaxed) {
            throw GatewayError(.upstreamUnavailable, "the gateway is shutting down; reconnect to another instance", retryable: true)
        }
        let limit = settings.streamsPerUser
        let admitted = open.withLock { open -> Bool in
            let count = open[user, default: 0]
            guard count < limit else { return false }
            open[user] = count + 1
            return true
        }
        guard admitted else {
            throw GatewayError(
                .rateLimited,
                "the user has \(limit) streams open, the most allowed; close one first",
                retryable: true,
                retryAfter: 1
            )
        }
    }

    func release(_ user: OrderFeedTail.UserKey) {
        open.withLock { open in
            let count = open[user, default: 1] - 1
            open[user] = count > 0 ? count : nil
        }
    }

    /// Keeps a stream's producer so that shutting down ends it.
    func track(_ producer: Task<Void, Never>) -> UInt64 {
        let id = nextProducer.add(1, ordering: .relaxed).newValue
        producers.withLock { $0[id] = producer }
        if closed.load(ordering: .relaxed) { producer.cancel() }
        return id
    }

    func untrack(_ id: UInt64) {
        _ = producers.withLock { $0.removeValue(forKey: id) }
    }

    /// Ends every open stream and refuses new ones: the server's graceful shutdown does not wait on clients that
    /// would listen forever. Clients reconnect (with `Last-Event-ID`) to an instance that runs.
    func closeAll() {
        closed.store(true, ordering: .relaxed)
        for producer in producers.withLock({ Array($0.values) }) { producer.cancel() }
    }

    var openStreams: Int { open.withLock { $0.values.reduce(0, +) } }

    // MARK: One refresh of an order at a time

    private let refreshing = Mutex<Set<String>>([])

    /// Runs `body` unless the order watcher is already bringing this order up to date (a pass and a pushed change at
    /// once), so one change is journaled once.
    func refreshingOnce(_ orderId: String, _ body: () async throws -> Void) async rethrows {
        guard refreshing.withLock({ $0.insert(orderId).inserted }) else { return }
        defer { _ = refreshing.withLock { $0.remove(orderId) } }
        try await body()
    }

    // MARK: Alerts on the streams

    private let alertListeners = Mutex<[OrderFeedTail.UserKey: [UInt64: AsyncStream<AlertNotification>.Continuation]]>([:])

    /// The user's alert firings, from now until `stopListeningForAlerts`.
    func listenForAlerts(_ user: OrderFeedTail.UserKey) -> (id: UInt64, alerts: AsyncStream<AlertNotification>) {
        let (alerts, continuation) = AsyncStream.makeStream(
            of: AlertNotification.self,
            bufferingPolicy: .bufferingNewest(max(1, settings.bufferedMessages))
        )
        let id = nextProducer.add(1, ordering: .relaxed).newValue
        alertListeners.withLock { $0[user, default: [:]][id] = continuation }
        return (id, alerts)
    }

    func stopListeningForAlerts(_ user: OrderFeedTail.UserKey, _ id: UInt64) {
        let removed = alertListeners.withLock { listeners -> AsyncStream<AlertNotification>.Continuation? in
            let continuation = listeners[user]?.removeValue(forKey: id)
            if listeners[user]?.isEmpty == true { listeners[user] = nil }
            return continuation
        }
        removed?.finish()
    }

    /// Puts a firing on every stream the user has open on this instance.
    func publish(_ notification: AlertNotification, to user: OrderFeedTail.UserKey) {
        for continuation in alertListeners.withLock({ Array(($0[user] ?? [:]).values) }) {
            continuation.yield(notification)
        }
    }
}

/// Reads the store's change stamp (``StoreChangeStamp``) every `interval` while any stream watches it, once for all
/// of them, and wakes each watcher when it moves: a write anywhere (a key revoked, a session logged out, a user
/// deleted, by this process, the operator CLI or another instance) reaches every open stream within one interval,
/// without each stream asking the store.
final class StampWatch: Sendable {
    private struct Watcher {
        var continuation: AsyncStream<Void>.Continuation
        /// The stamp this watcher last knew of: the one it read before it last re-checked.
        var stamp: UInt64?
    }

    private struct State {
        var watchers: [UInt64: Watcher] = [:]
        var nextId: UInt64 = 0
        var reader: Task<Void, Never>?
    }

    let interval: Duration
    private let logger: Logger
    private let state = Mutex(State())

    init(interval: Duration, logger: Logger) {
        self.interval = interval
        self.logger = logger
    }

    /// A signal each time the stamp is found other than the watcher last knew (first `since`, the stamp it read
    /// before its own first check; several moves between two reads of the signal come as one), from now until
    /// `stop`. A change that lands between `since` and the shared reader's next read is signalled all the same.
    func watch(_ source: any StoreChangeStamp, since: UInt64?) -> (id: UInt64, changes: AsyncStream<Void>) {
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        return state.withLock { state in
            state.nextId += 1
            let id = state.nextId
            state.watchers[id] = Watcher(continuation: continuation, stamp: since)
            if state.reader == nil {
                state.reader = Task { [weak self] in await self?.read(source) }
            }
            return (id, changes)
        }
    }

    func stop(_ id: UInt64) {
        let removed = state.withLock { state -> AsyncStream<Void>.Continuation? in
            let watcher = state.watchers.removeValue(forKey: id)
            if state.watchers.isEmpty {
                state.reader?.cancel()
                state.reader = nil
            }
            return watcher?.continuation
        }
        removed?.finish()
    }

    private func read(_ source: any StoreChangeStamp) async {
        var unreadable = false
        while !Task.isCancelled {
            let stamp: UInt64
            do {
                stamp = try await source.changeStamp()
            } catch {
                // An unreadable stamp is not a change: the heartbeat's re-check still comes. But while it stays
                // unreadable a revoked key or ended session reaches open streams only at their heartbeat, which an
                // operator should know: said once when it starts, and again when it ends.
                if !unreadable, !Task.isCancelled {
                    unreadable = true
                    logger.warning(
                        "the store's change stamp cannot be read; open streams re-check their credentials at each heartbeat only",
                        metadata: ["error": .string("\(error)")]
                    )
                }
                do { try await Task.sleep(for: interval) } catch { return }
                continue
            }
            if unreadable {
                unreadable = false
                logger.notice("the store's change stamp can be read again; open streams re-check at each change")
            }
            let moved = state.withLock { state -> [AsyncStream<Void>.Continuation] in
                var moved: [AsyncStream<Void>.Continuation] = []
                for (id, watcher) in state.watchers where watcher.stamp != stamp {
                    state.watchers[id]?.stamp = stamp
                    moved.append(watcher.continuation)
                }
                return moved
            }
            for continuation in moved { continuation.yield() }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}

/// Ends the open streams when the service group shuts down gracefully. Run it after the HTTP server in the group, so
/// that it is told first (a group shuts its services down in reverse order).
public struct StreamShutdown: Service {
    let hub: StreamHub

    /// The shutdown of the gateway's streams.
    public init(gateway: Gateway) {
        self.hub = gateway.streams.streams
    }

    /// Waits for the graceful shutdown, then ends every open stream.
    public func run() async throws {
        // `gracefulShutdown()` throws only when this task is cancelled, which is a shutdown too: either way the
        // streams end.
        try? await gracefulShutdown()
        hub.closeAll()
    }
}
