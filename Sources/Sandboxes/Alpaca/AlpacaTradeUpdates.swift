import Foundation
import Synchronization

/// The trading streams listening to `trade_updates`, per account. A listener's buffer holds the newest 10,000
/// updates; a client that falls further behind loses the oldest (Alpaca disconnects slow clients instead).
final class AlpacaTradeUpdates: Sendable {
    private let listeners = Mutex<[UUID: (account: UUID, continuation: AsyncStream<AlpacaTradeUpdate>.Continuation)]>([:])

    /// Updates of `account` from now on, until `stop` is called (nothing published after it reaches the stream)
    /// or the consumer stops iterating.
    func listen(account: UUID) -> (updates: AsyncStream<AlpacaTradeUpdate>, stop: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: AlpacaTradeUpdate.self, bufferingPolicy: .bufferingNewest(10_000))
        let id = UUID()
        listeners.withLock { $0[id] = (account, continuation) }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.removeValue(forKey: id) }
        }
        return (stream, { continuation.finish() })
    }

    func publish(_ updates: [AlpacaTradeUpdate], account: UUID) {
        guard !updates.isEmpty else { return }
        let targets = listeners.withLock { $0.values.filter { $0.account == account }.map { $0.continuation } }
        for continuation in targets {
            for update in updates { continuation.yield(update) }
        }
    }
}
