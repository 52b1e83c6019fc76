import Foundation
import Synchronization

/// Tells the market's watchers (the streaming endpoints) that prices may have moved: a pin set or cleared, or the
/// sandbox's clock advanced through the admin API. With the wall clock, prices also move with every new price
/// bucket, which a watcher samples itself; nothing here runs on a timer.
///
/// Each watcher gets its own stream that keeps only the newest signal: a watcher re-reads the prices it cares
/// about when woken, so coalescing signals loses nothing.
public final class MarketMoves: Sendable {
    private let watchers = Mutex<[UUID: AsyncStream<Void>.Continuation]>([:])

    init() {}

    /// A stream of "prices may have moved" signals; it ends when the consumer stops iterating (or is cancelled).
    public func watch() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        watchers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.watchers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Wakes every watcher.
    public func signal() {
        for continuation in watchers.withLock({ Array($0.values) }) { continuation.yield() }
    }

    /// How many watchers are registered (for tests: a watcher is registered before its subscription is answered).
    public var watcherCount: Int { watchers.withLock { $0.count } }
}
