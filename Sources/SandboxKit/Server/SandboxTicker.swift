public import ServiceLifecycle

/// Runs a simulator's matching "tick" on a schedule, as a swift-service-lifecycle `Service`.
///
/// Simulators already tick lazily at the start of every request, which is all tests need. In a long-running
/// gateway a ticker also fills resting orders while nobody is asking, so fills carry the time the price was reached.
///
/// ```swift
/// let alpaca = AlpacaSandbox()
/// let ticker = SandboxTicker(every: .seconds(1)) { alpaca.evaluate() }
/// ```
public struct SandboxTicker: Service {
    private let interval: Duration
    private let tick: @Sendable () -> Void

    /// Makes a ticker that calls `tick` every `interval` (one second by default).
    public init(every interval: Duration = .seconds(1), _ tick: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.tick = tick
    }

    /// Ticks until graceful shutdown or cancellation; the first tick comes one interval after start.
    public func run() async throws {
        // Ends on graceful shutdown or cancellation; a tick is never interrupted half-way (it is synchronous).
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: self.interval)
                self.tick()
            }
        }
    }
}
