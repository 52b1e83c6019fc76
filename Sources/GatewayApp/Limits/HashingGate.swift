import GatewayCore
import Synchronization

/// The password-hashing slots, shared fairly between tenants: at most `slots` hashes at once in the process, of
/// which one tenant holds at most `perTenant`; behind them each tenant may queue `queuePerTenant` more. A freed slot
/// goes to the tenants with waiters in turn (round-robin), so a tenant flooding logins waits behind its own share
/// and never in front of another tenant. A hash that finds its tenant's share and queue full is refused at once
/// (429 `rate_limited`), and a queued one that finds no slot within `wait` is refused then: never a long silence.
final class HashingGate: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var total = 0
        var inFlight: [String: Int] = [:]
        var waiters: [String: [Waiter]] = [:]
        /// Tenants with waiters, in the order they are served next.
        var turn: [String] = []
        var nextWaiter: UInt64 = 0

        func mayStart(_ tenant: String, slots: Int, perTenant: Int) -> Bool {
            total < slots && (inFlight[tenant] ?? 0) < perTenant
        }

        mutating func start(_ tenant: String) {
            total += 1
            inFlight[tenant, default: 0] += 1
        }

        mutating func removeWaiter(_ tenant: String, id: UInt64) -> Waiter? {
            guard var queue = waiters[tenant], let index = queue.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = queue.remove(at: index)
            if queue.isEmpty {
                waiters[tenant] = nil
                turn.removeAll { $0 == tenant }
            } else {
                waiters[tenant] = queue
            }
            return waiter
        }

        /// The waiters that may start now, in turn, each with its slot taken.
        mutating func grant(slots: Int, perTenant: Int) -> [Waiter] {
            var granted: [Waiter] = []
            var index = 0
            while total < slots, index < turn.count {
                let tenant = turn[index]
                guard (inFlight[tenant] ?? 0) < perTenant, var queue = waiters[tenant], !queue.isEmpty else {
                    index += 1
                    continue
                }
                granted.append(queue.removeFirst())
                start(tenant)
                turn.remove(at: index)
                if queue.isEmpty {
                    waiters[tenant] = nil
                } else {
                    waiters[tenant] = queue
                    turn.append(tenant)
                }
            }
            return granted
        }
    }

    let slots: Int
    let perTenant: Int
    let queuePerTenant: Int
    let wait: Duration
    private let state = Mutex(State())

    init(limits: LoginLimits) {
        self.slots = limits.hashingSlots
        self.perTenant = limits.hashingSlotsPerTenant
        self.queuePerTenant = limits.hashingQueuePerTenant
        self.wait = limits.hashingWait
    }

    /// Runs `body` in one of the tenant's hashing slots.
    func run<T: Sendable>(tenant: String, _ body: () async throws -> T) async throws -> T {
        try await acquire(tenant: tenant)
        defer { release(tenant: tenant) }
        return try await body()
    }

    /// Hashes running and waiting for a tenant (for tests and diagnostics).
    func load(tenant: String) -> (running: Int, waiting: Int) {
        state.withLock { ($0.inFlight[tenant] ?? 0, $0.waiters[tenant]?.count ?? 0) }
    }

    private func acquire(tenant: String) async throws {
        let (slots, perTenant) = (self.slots, self.perTenant)
        let started = state.withLock { state -> Bool in
            guard state.waiters[tenant] == nil, state.mayStart(tenant, slots: slots, perTenant: perTenant) else { return false }
            state.start(tenant)
            return true
        }
        if started { return }
        let wait = self.wait
        // Queue, racing the wait: whichever finishes first decides; a slot granted after the wait ran out is given
        // back at once, so none is ever lost. A full queue throws from the queueing child, at once.
        let got = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await self.enqueue(tenant: tenant)
                return true
            }
            group.addTask {
                try await Task.sleep(for: wait)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            if first { return true }
            while let outcome = await group.nextResult() {
                if case .success(true) = outcome { self.release(tenant: tenant) }
            }
            return false
        }
        guard got else { throw Self.refusal }
    }

    static let refusal = GatewayError(
        .rateLimited,
        "too many logins are being checked for this tenant right now: try again shortly",
        retryable: true,
        retryAfter: 1
    )

    private enum Admission { case start, queued, refused, cancelled }

    private func enqueue(tenant: String) async throws {
        let (slots, perTenant, queuePerTenant) = (self.slots, self.perTenant, self.queuePerTenant)
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admission = state.withLock { state -> Admission in
                    // Checked under the lock that the cancellation handler takes too: a waiter is never left behind.
                    if Task.isCancelled { return .cancelled }
                    if state.waiters[tenant] == nil, state.mayStart(tenant, slots: slots, perTenant: perTenant) {
                        state.start(tenant)
                        return .start
                    }
                    guard (state.waiters[tenant]?.count ?? 0) < queuePerTenant else { return .refused }
                    if state.waiters[tenant] == nil { state.turn.append(tenant) }
                    state.waiters[tenant, default: []].append(Waiter(id: id, continuation: continuation))
                    return .queued
                }
                switch admission {
                case .start: continuation.resume()
                case .queued: break
                case .refused: continuation.resume(throwing: Self.refusal)
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let removed = state.withLock { $0.removeWaiter(tenant, id: id) }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    private func release(tenant: String) {
        let (slots, perTenant) = (self.slots, self.perTenant)
        let granted = state.withLock { state -> [Waiter] in
            state.total -= 1
            let current = (state.inFlight[tenant] ?? 1) - 1
            state.inFlight[tenant] = current > 0 ? current : nil
            return state.grant(slots: slots, perTenant: perTenant)
        }
        for waiter in granted { waiter.continuation.resume() }
    }
}
