import Foundation
import GatewayCore
import GatewayModel
import Logging

/// The quotes every stream and price alert watches, one feed per connection: however many clients watch a symbol at
/// a connection, one broker stream (where the broker has one: Alpaca) or one poll per interval (elsewhere, or while
/// the stream cannot be opened) serves the union of what is watched there, and each watcher is sent the quotes of
/// its own symbols when they change (bid, ask or last). A feed stops when its last watcher leaves; when what is
/// watched changes, its stream is opened again for the new set.
actor QuoteFeeds {
    /// Where a connection's quotes come from.
    struct Source: Sendable {
        /// One read of the quotes.
        var poll: @Sendable ([InstrumentReference]) async throws -> [Quote]
        /// Streams quotes until cancelled, calling the first closure once the broker confirmed the subscription;
        /// `false` at once when the connection has no stream (then it is polled).
        var stream:
            @Sendable (
                [InstrumentReference], @escaping @Sendable () async -> Void, @escaping @Sendable (Quote) async -> Void
            ) async throws -> Bool
    }

    enum Message: Sendable {
        case quote(Quote)
        /// The connection began failing (`error` set) or recovered.
        case source(SourceReport)
    }

    private struct Watcher {
        var keys: Set<String>
        var continuation: AsyncStream<Message>.Continuation
    }

    private struct Feed {
        var connection: ConnectionDescriptor
        var watchers: [UInt64: Watcher] = [:]
        /// The watched instruments by normalized symbol.
        var instruments: [String: InstrumentReference] = [:]
        var last: [String: Quote] = [:]
        var failing: SourceReport?
        var task: Task<Void, Never>?
        /// Bumped whenever the watched instruments change; a stream opened for an older set is opened again.
        var version = 0
        var changed: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Until when the feed polls because its stream failed.
        var pollUntil: ContinuousClock.Instant?
    }

    private let interval: Duration
    private let logger: Logger
    /// How long a feed whose stream failed polls before it tries the stream again.
    private let streamRetry: Duration = .seconds(30)
    private var feeds: [String: Feed] = [:]
    private var nextId: UInt64 = 0
    private var nextWaiter: UInt64 = 0

    init(interval: Duration, logger: Logger) {
        self.interval = interval
        self.logger = logger
    }

    /// A symbol as quotes name it (`BrokerReadService.symbolKey`): what a watcher asked for matches what the broker answers.
    nonisolated static func key(_ symbol: String) -> String {
        BrokerReadService.symbolKey(symbol)
    }

    /// Watches `instruments` at the connection; the last quote known of each comes at once.
    func watch(
        _ connection: ConnectionDescriptor,
        _ instruments: [InstrumentReference],
        capacity: Int,
        source: Source
    ) -> (id: UInt64, messages: AsyncStream<Message>) {
        let (messages, continuation) = AsyncStream.makeStream(
            of: Message.self,
            bufferingPolicy: .bufferingNewest(max(1, capacity))
        )
        nextId += 1
        let id = nextId
        var feed = feeds[connection.id] ?? Feed(connection: connection)
        var keys: Set<String> = []
        var added = false
        for instrument in instruments {
            let key = Self.key(instrument.symbol)
            keys.insert(key)
            if feed.instruments[key] == nil {
                feed.instruments[key] = instrument
                added = true
            }
            if let quote = feed.last[key] { continuation.yield(.quote(quote)) }
        }
        if added { Self.bump(&feed) }
        if let failing = feed.failing { continuation.yield(.source(failing)) }
        feed.watchers[id] = Watcher(keys: keys, continuation: continuation)
        if feed.task == nil {
            let connectionId = connection.id
            feed.task = Task { await self.run(connectionId, source: source) }
        }
        feeds[connection.id] = feed
        return (id, messages)
    }

    func stopWatching(_ connectionId: String, _ id: UInt64) {
        guard var feed = feeds[connectionId] else { return }
        feed.watchers.removeValue(forKey: id)?.continuation.finish()
        if feed.watchers.isEmpty {
            feed.task?.cancel()
            for waiter in feed.changed.values { waiter.resume() }
            feeds.removeValue(forKey: connectionId)
            return
        }
        // What nobody watches any more is no longer asked for.
        let watched = feed.watchers.values.reduce(into: Set<String>()) { $0.formUnion($1.keys) }
        if watched.count != feed.instruments.count { Self.bump(&feed) }
        feed.instruments = feed.instruments.filter { watched.contains($0.key) }
        feed.last = feed.last.filter { watched.contains($0.key) }
        feeds[connectionId] = feed
    }

    /// What is watched changed: a stream opened for the old set ends, to be opened for the new one.
    private static func bump(_ feed: inout Feed) {
        feed.version += 1
        for waiter in feed.changed.values { waiter.resume() }
        feed.changed = [:]
    }

    /// Returns once the feed's watched instruments are no longer those of `version`, the feed is gone, or the task
    /// is cancelled.
    private func changed(_ connectionId: String, since version: Int) async {
        guard let feed = feeds[connectionId], feed.version == version else { return }
        nextWaiter += 1
        let id = nextWaiter
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled || feeds[connectionId] == nil {
                    continuation.resume()
                } else {
                    feeds[connectionId]?.changed[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.stopWaiting(connectionId, id) }
        }
    }

    private func stopWaiting(_ connectionId: String, _ id: UInt64) {
        feeds[connectionId]?.changed.removeValue(forKey: id)?.resume()
    }

    /// How many connections are polled now (for tests and metrics).
    var feedCount: Int { feeds.count }

    private func run(_ connectionId: String, source: Source) async {
        while !Task.isCancelled {
            guard let feed = feeds[connectionId] else { return }
            let instruments = feed.instruments.values.sorted { $0.symbol < $1.symbol }
            if !instruments.isEmpty, feed.pollUntil.map({ ContinuousClock.now >= $0 }) ?? true {
                let version = feed.version
                let started = ContinuousClock.now
                do {
                    // The broker's stream, until what is watched changes (then again, for the new set).
                    enum Ended { case changed, closedByBroker, noStream }
                    let ended = try await withThrowingTaskGroup(of: Ended.self) { group in
                        group.addTask {
                            try await source.stream(
                                instruments,
                                {
                                    // Subscribed: what the stream will not push (the price now, and moves while it
                                    // was being opened) is read once. Without that read the watchers see a symbol's
                                    // price only at its next move; the stream itself works, so it is not a failing
                                    // source, but it is said.
                                    do {
                                        let quotes = try await source.poll(instruments)
                                        await self.received(quotes, connectionId: connectionId)
                                    } catch {
                                        await self.initialReadFailed(connectionId, error)
                                    }
                                },
                                { quote in
                                    await self.received([quote], connectionId: connectionId)
                                    await self.recovered(connectionId, latency: .zero)
                                }
                            ) ? .closedByBroker : .noStream
                        }
                        group.addTask {
                            await self.changed(connectionId, since: version)
                            return .changed
                        }
                        let first = try await group.next() ?? .noStream
                        group.cancelAll()
                        return first
                    }
                    switch ended {
                    case .changed:
                        continue
                    case .closedByBroker:
                        // Opened again after a pause, so a broker that keeps closing it is not hammered.
                        do { try await Task.sleep(for: interval) } catch { return }
                        continue
                    case .noStream:
                        // No stream at this connection: it is polled from now on.
                        feeds[connectionId]?.pollUntil = .now + .seconds(365 * 24 * 3600)
                    }
                } catch is CancellationError {
                    return
                } catch {
                    if Task.isCancelled { return }
                    let failure = error as? GatewayError ?? GatewayError(.upstreamUnavailable, "the quote stream failed")
                    logger.notice(
                        "a broker's quote stream failed; its quotes are polled for a while",
                        metadata: ["connection": .string(connectionId), "error": .string(failure.message)]
                    )
                    failed(connectionId, failure, latency: ContinuousClock.now - started)
                    feeds[connectionId]?.pollUntil = .now + streamRetry
                }
                continue
            }
            var pause = interval
            let started = ContinuousClock.now
            do {
                let quotes = instruments.isEmpty ? [] : try await source.poll(instruments)
                received(quotes, connectionId: connectionId)
                recovered(connectionId, latency: ContinuousClock.now - started)
            } catch is CancellationError {
                return
            } catch {
                let failure = error as? GatewayError ?? GatewayError(.upstreamUnavailable, "the quotes could not be read")
                failed(connectionId, failure, latency: ContinuousClock.now - started)
                // A broker that asks for a pause gets it; one that fails otherwise is asked again less often.
                if let retryAfter = failure.retryAfter {
                    pause = max(pause, .milliseconds(Int(retryAfter * 1000)))
                } else {
                    pause = pause * 4
                }
            }
            do { try await Task.sleep(for: pause) } catch { return }
        }
    }

    /// The read of the current quotes after a stream subscribed failed: logged, the stream goes on.
    private func initialReadFailed(_ connectionId: String, _ error: any Error) {
        if error is CancellationError || Task.isCancelled { return }
        let failure = error as? GatewayError ?? GatewayError(.upstreamUnavailable, "the quotes could not be read")
        logger.notice(
            "a broker's quote stream opened, but its current quotes could not be read; they arrive as they move",
            metadata: ["connection": .string(connectionId), "error": .string(failure.message)]
        )
    }

    private func received(_ quotes: [Quote], connectionId: String) {
        guard var feed = feeds[connectionId] else { return }
        for var quote in quotes {
            quote.connectionId = connectionId
            let key = Self.key(quote.instrument.symbol)
            guard feed.instruments[key] != nil else { continue }
            if let previous = feed.last[key], previous.bid == quote.bid, previous.ask == quote.ask,
                previous.last == quote.last
            {
                continue
            }
            feed.last[key] = quote
            for watcher in feed.watchers.values where watcher.keys.contains(key) {
                watcher.continuation.yield(.quote(quote))
            }
        }
        feeds[connectionId] = feed
    }

    private func failed(_ connectionId: String, _ error: GatewayError, latency: Duration) {
        guard var feed = feeds[connectionId] else { return }
        let report = SourceReport(
            connection: connectionId,
            broker: feed.connection.broker,
            status: .error,
            latencyMs: Int(latency.components.seconds * 1000 + latency.components.attoseconds / 1_000_000_000_000_000),
            asOf: Date(),
            error: SourceReport.Failure(error)
        )
        if feed.failing?.error != report.error {
            for watcher in feed.watchers.values { watcher.continuation.yield(.source(report)) }
        }
        feed.failing = report
        feeds[connectionId] = feed
    }

    private func recovered(_ connectionId: String, latency: Duration) {
        guard var feed = feeds[connectionId], feed.failing != nil else { return }
        feed.failing = nil
        let report = SourceReport(
            connection: connectionId,
            broker: feed.connection.broker,
            status: .ok,
            latencyMs: Int(latency.components.seconds * 1000 + latency.components.attoseconds / 1_000_000_000_000_000),
            asOf: Date(),
            served: .fresh
        )
        for watcher in feed.watchers.values { watcher.continuation.yield(.source(report)) }
        feeds[connectionId] = feed
    }
}
