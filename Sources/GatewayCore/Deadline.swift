/// The instant by which the work running now must be done, and whether something above already enforces it.
///
/// A broker call is bounded by one deadline, set once where its budget begins (the router per source, an
/// application call site's ``withDeadline(_:clock:_:)``) and read by every layer below: the pipeline bounds its
/// rate-limit waits and retries by it, and `HTTPClientTransport` hands it to AsyncHTTPClient's own deadline. The
/// layer that sets it also *watches* it: it cancels the work when the deadline passes (one timer per
/// `withDeadline`, which the router runs once per source), so the layers below need no timer of their own. A layer whose deadline is earlier than any
/// watcher's (a request's own shorter timeout), or that runs with no watcher at all (a background call), keeps one
/// backstop itself (``DeadlineScope/isWatched(until:)`` says which).
///
/// A watcher cancels the structured tasks under it (child tasks, `async let`, task groups). An unstructured
/// `Task {}` inherits the deadline but is not cancelled by the watcher above it: such a task bounds its own broker
/// calls with ``withDeadline(_:clock:_:)``.
public enum DeadlineScope {
    /// The deadline of the work running now, the earliest of the nested ones; `nil` when nothing bounds it.
    public static var current: ContinuousClock.Instant? { binding?.deadline }

    /// What is bound now.
    @TaskLocal static var binding: Binding?

    /// A deadline and when a watcher above cancels the work (never before the deadline it watches).
    struct Binding: Sendable {
        /// The earliest deadline of the nested scopes.
        var deadline: ContinuousClock.Instant
        /// When the earliest watcher above cancels the work running now; `nil` when none does.
        var watchedUntil: ContinuousClock.Instant?
    }

    /// The deadline of one call that may take `timeout`: the earlier of `now + timeout` and the scope's.
    static func deadline(within timeout: Duration, now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        let own = now + max(timeout, .zero)
        guard let scoped = current else { return own }
        return min(own, scoped)
    }

    /// Whether a watcher above cancels the work running now at or before `deadline`: then a layer bounded by
    /// `deadline` needs no timer of its own (its I/O still gets `deadline`, so it ends on its own where it can).
    static func isWatched(until deadline: ContinuousClock.Instant) -> Bool {
        guard let watched = binding?.watchedUntil else { return false }
        return watched <= deadline
    }

    /// Runs `body` with `deadline` bound (or the scope's, if earlier) and marked as watched: the caller promises to
    /// cancel `body` once `deadline` passes.
    static func watching<T>(
        _ deadline: ContinuousClock.Instant,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        let outer = binding
        let bound = Binding(
            deadline: min(deadline, outer?.deadline ?? deadline),
            watchedUntil: min(deadline, outer?.watchedUntil ?? deadline)
        )
        return try await $binding.withValue(bound, operation: body, isolation: isolation)
    }
}

/// Runs `operation`, and fails with `upstream_timeout` if it has not finished within `timeout`.
///
/// The operation is cancelled when the time is up; it must honour cancellation for this to return on time
/// (all I/O through AsyncHTTPClient and `Task.sleep` does). The operation sees the deadline as
/// ``DeadlineScope/current`` (the earlier of this one and any enclosing one), and knows it watched: the broker-call
/// pipeline and the transport under it start no timer of their own for it. This costs one task group with a
/// sleeping child: the one timer of a broker call (``BrokerRouter`` runs one per source).
public func withDeadline<T: Sendable>(
    _ timeout: Duration,
    clock: ContinuousClock = ContinuousClock(),
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withDeadline(at: clock.now + timeout, reporting: timeout, clock: clock, operation)
}

/// ``withDeadline(_:clock:_:)`` for an instant already known (a layer's backstop, so that the deadline it binds and
/// the one its timer fires at are the same instant); `reporting` is the budget its timeout message names.
func withDeadline<T: Sendable>(
    at deadline: ContinuousClock.Instant,
    reporting timeout: Duration,
    clock: ContinuousClock = ContinuousClock(),
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await DeadlineScope.watching(deadline) { try await operation() } }
        group.addTask {
            try await Task.sleep(until: deadline, clock: clock)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        guard let value = first else {
            throw GatewayError(.upstreamTimeout, "no answer within \(Int(max(timeout, .zero).milliseconds)) ms")
        }
        return value
    }
}
