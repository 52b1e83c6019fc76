/// Runs `operation`, and fails with `upstream_timeout` if it has not finished within `timeout`.
///
/// The operation is cancelled when the time is up; it must honour cancellation for this to return on time
/// (all I/O through AsyncHTTPClient and `Task.sleep` does).
public func withDeadline<T: Sendable>(
    _ timeout: Duration,
    clock: ContinuousClock = ContinuousClock(),
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
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
