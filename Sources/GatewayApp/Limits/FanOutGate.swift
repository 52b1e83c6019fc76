import GatewayCore
import Synchronization

/// How many fan-out reads each tenant may have in flight at once. A read beyond the limit waits for a slot, first
/// come first served, for as long as its own deadline allows, then fails with 429 `rate_limited`: one tenant's two
/// hundred concurrent readers queue behind their own slots and never take another tenant's.
final class FanOutGate: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var inFlight: [String: Int] = [:]
        var waiters: [String: [Waiter]] = [:]
        var nextWaiter: UInt64 = 0
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` in one of the tenant's slots, waiting at most `wait` for one.
    func run<T: Sendable>(tenantId: String, wait: Duration, _ body: () async throws -> T) async throws -> T {
        try await acquire(tenantId: tenantId, wait: wait)
        defer { release(tenantId: tenantId) }
        return try await body()
    }

    /// The reads in flight for a tenant (for tests and diagnostics).
    func inFlight(tenantId: String) -> Int {
        state.withLock { $0.inFlight[tenantId] ?? 0 }
    }

    /// The reads waiting for a slot.
    func waiting(tenantId: String) -> Int {
        state.withLock { $0.waiters[tenantId]?.count ?? 0 }
    }

    private func acquire(tenantId: String, wait: Duration) async throws {
        let limit = self.limit
        let admitted = state.withLock { state in
            let current = state.inFlight[tenantId] ?? 0
            guard current < limit, state.waiters[tenantId]?.isEmpty ?? true else { return false }
            state.inFlight[tenantId] = current + 1
            return true
        }
        if admitted { return }
        // Queue, racing the wait: whichever finishes first decides; a slot granted after the wait ran out is given
        // back at once, so none is ever lost.
        let got = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await self.queue(tenantId: tenantId)
                return true
            }
            group.addTask {
                try await Task.sleep(for: wait)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            if first { return true }
            // The queued child ends now: cancelled out of the queue, or it was granted a slot just in time.
            while let outcome = await group.nextResult() {
                if case .success(true) = outcome { self.release(tenantId: tenantId) }
            }
            return false
        }
        guard got else {
            throw GatewayError(
                .rateLimited,
                "this tenant already has \(limit) reads in flight; this one found no slot before its deadline",
                retryable: true,
                retryAfter: 1
            )
        }
    }

    private func queue(tenantId: String) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let granted = state.withLock { state in
                    let current = state.inFlight[tenantId] ?? 0
                    if current < limit, state.waiters[tenantId]?.isEmpty ?? true {
                        state.inFlight[tenantId] = current + 1
                        return true
                    }
                    state.waiters[tenantId, default: []].append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if granted { continuation.resume() }
            }
        } onCancel: {
            let removed = state.withLock { state -> Waiter? in
                guard var queue = state.waiters[tenantId], let index = queue.firstIndex(where: { $0.id == id }) else {
                    return nil
                }
                let waiter = queue.remove(at: index)
                state.waiters[tenantId] = queue.isEmpty ? nil : queue
                return waiter
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    private func release(tenantId: String) {
        let next = state.withLock { state -> Waiter? in
            if var queue = state.waiters[tenantId], !queue.isEmpty {
                let first = queue.removeFirst()
                // The slot passes to the first waiter: the count stays.
                state.waiters[tenantId] = queue.isEmpty ? nil : queue
                return first
            }
            let current = (state.inFlight[tenantId] ?? 1) - 1
            state.inFlight[tenantId] = current > 0 ? current : nil
            return nil
        }
        next?.continuation.resume()
    }
}
