/// The instant by which the work running now must be done, as set by the innermost ``withDeadline(_:clock:_:)``
/// (the earliest of the nested ones). The broker-call pipeline bounds its calls by it, so a call never waits for a
/// rate-limit slot, or retries, past the time its caller will wait for it.
public enum DeadlineScope {
    /// The deadline of the work running now; `nil` when nothing bounds it.
    @TaskLocal public static var current: ContinuousClock.Instant?
}

/// Runs `operation`, and fails with `upstream_timeout` if it has not finished within `timeout`.
///
/// The operation is cancelled when the time is up; it must honour cancellation for this to return on time
/// (all I/O through AsyncHTTPClient and `Task.sleep` does). The operation sees the deadline as
/// ``DeadlineScope/current``.
public func withDeadline<T: Sendable>(
    _ timeout: Duration,
    clock: ContinuousClock = ContinuousClock(),
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        let deadline = min(clock.now + timeout, DeadlineScope.current ?? clock.now + timeout)
        group.addTask { try await DeadlineScope.$current.withValue(deadline) { try await operation() } }
        group.addTask {
            try await Task.sleep(for: timeout, clock: clock)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        guard let value = first else {
            throw GatewayError(.upstreamTimeout, "no answer within \(Int(timeout.milliseconds)) ms")
        }
        return value
    }
}
