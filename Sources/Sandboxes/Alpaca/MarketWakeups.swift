import SandboxKit

/// When a stream connection re-reads the market: on every ``MarketMoves`` signal and, with the wall clock, once per
/// price bucket (the path moves by itself then; with a ``ManualClock`` time moves only through the admin API, which
/// signals). The signal stream is registered when this is made, so a move right after is not missed.
struct MarketWakeups: Sendable {
    let signals: AsyncStream<Void>
    let period: Duration?

    init(market: MarketEngine) {
        self.signals = market.moves.watch()
        self.period = market.clock is ManualClock ? nil : .seconds(market.configuration.bucketSeconds)
    }

    func tasks(_ wake: @escaping @Sendable () -> Void) -> [@Sendable () async -> Void] {
        let signals = self.signals
        var tasks: [@Sendable () async -> Void] = [{ for await _ in signals { wake() } }]
        if let period {
            tasks.append {
                // A sampling period, not a synchronisation: the market path changes once per bucket.
                while (try? await Task.sleep(for: period)) != nil { wake() }
            }
        }
        return tasks
    }
}
