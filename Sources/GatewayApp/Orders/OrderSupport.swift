import Crypto
public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Synchronization

/// How the order pipeline behaves.
public struct OrderSettings: Sendable {
    /// How long one placement, change or cancel may take at the broker before its outcome counts as unknown.
    public var brokerTimeout: Duration
    /// How long idempotency keys are kept (at least 24 hours).
    public var idempotencyRetention: TimeInterval
    /// How long after an intent an order the broker does not know is still given time to appear, before
    /// reconciliation concludes that it never arrived.
    public var reconcileGrace: TimeInterval
    /// How long a preview stays valid.
    public var previewLifetime: TimeInterval

    /// Order settings from configuration; the defaults are the gateway's own.
    public init(
        brokerTimeout: Duration = .seconds(10),
        idempotencyRetention: TimeInterval = 24 * 3600,
        reconcileGrace: TimeInterval = 30,
        previewLifetime: TimeInterval = 300
    ) {
        self.brokerTimeout = brokerTimeout
        self.idempotencyRetention = max(idempotencyRetention, 24 * 3600)
        self.reconcileGrace = reconcileGrace
        self.previewLifetime = previewLifetime
    }
}

/// Placements running in this process, so that a concurrent request with the same idempotency key waits for the
/// first one's outcome instead of guessing.
final class InFlightOrders: Sendable {
    let waiters = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// Marks the placement running; `false` (and nothing changed) when it already was, so the caller does not own it
    /// and must not `finish` it.
    @discardableResult
    func begin(_ orderId: String) -> Bool {
        waiters.withLock { waiters in
            guard waiters[orderId] == nil else { return false }
            waiters[orderId] = []
            return true
        }
    }

    func isRunning(_ orderId: String) -> Bool {
        waiters.withLock { $0[orderId] != nil }
    }

    func finish(_ orderId: String) {
        let continuations = waiters.withLock { $0.removeValue(forKey: orderId) } ?? []
        for continuation in continuations { continuation.resume() }
    }

    /// Returns when the placement of `orderId` has finished (at once if it is not running here).
    func wait(_ orderId: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let registered = waiters.withLock { state -> Bool in
                guard state[orderId] != nil else { return false }
                state[orderId]!.append(continuation)
                return true
            }
            if !registered { continuation.resume() }
        }
    }
}

/// Previews the gateway made, so a placement can reference one while it is valid.
final class PreviewCache: Sendable {
    struct Entry: Sendable {
        var tenantId: String
        var preview: OrderPreview
    }
    let entries = Mutex<[String: Entry]>([:])

    func store(_ preview: OrderPreview, tenantId: String) {
        entries.withLock { entries in
            let now = Date()
            entries = entries.filter { $0.value.preview.expiresAt > now }
            entries[preview.id] = Entry(tenantId: tenantId, preview: preview)
        }
    }

    func preview(_ id: String, tenantId: String) -> OrderPreview? {
        entries.withLock { $0[id] }.flatMap { $0.tenantId == tenantId ? $0.preview : nil }
    }
}

/// The account ids of each connection, briefly remembered so that checking an order's account costs no broker call
/// on every placement. Concurrent checks of one connection share one load (a burst of placements is one call).
final class AccountCache: Sendable {
    let entries = Mutex<[String: (at: Date, ids: Set<String>)]>([:])
    let loading = Mutex<[String: Task<Set<String>, any Error>]>([:])
    let lifetime: TimeInterval = 60

    func ids(connectionId: String, load: @escaping @Sendable () async throws -> Set<String>) async throws -> Set<String> {
        if let entry = entries.withLock({ $0[connectionId] }), Date().timeIntervalSince(entry.at) < lifetime {
            return entry.ids
        }
        let task = loading.withLock { loading in
            if let running = loading[connectionId] { return running }
            let task = Task { try await load() }
            loading[connectionId] = task
            return task
        }
        do {
            let ids = try await task.value
            entries.withLock { $0[connectionId] = (Date(), ids) }
            loading.withLock { if $0[connectionId] == task { $0[connectionId] = nil } }
            return ids
        } catch {
            loading.withLock { if $0[connectionId] == task { $0[connectionId] = nil } }
            throw error
        }
    }
}

/// One writer at a time per order in this process: a record compares with the stored row and writes, and another
/// record of the same order waits for it (see ``Gateway/record(_:order:kind:detail:)``).
final class OrderRecordLocks: Sendable {
    let waiters = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    func serialize<T: Sendable>(_ orderId: String, _ body: () async throws -> T) async throws -> T {
        await acquire(orderId)
        defer { release(orderId) }
        return try await body()
    }

    private func acquire(_ orderId: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let owned = waiters.withLock { state -> Bool in
                guard state[orderId] != nil else {
                    state[orderId] = []
                    return true
                }
                state[orderId]!.append(continuation)
                return false
            }
            if owned { continuation.resume() }
        }
    }

    /// Hands the lock to the next waiter, or frees it.
    private func release(_ orderId: String) {
        let next = waiters.withLock { state -> CheckedContinuation<Void, Never>? in
            guard var queue = state[orderId], !queue.isEmpty else {
                state[orderId] = nil
                return nil
            }
            let first = queue.removeFirst()
            state[orderId] = queue
            return first
        }
        next?.resume()
    }
}

enum OrderDigest {
    /// A stable digest of a request: the same fields give the same text whatever order they came in.
    /// A request that cannot be encoded has no digest: it throws rather than share one (the digest of nothing) with
    /// every other such request, which would let a different order pass the idempotency mismatch check.
    static func hash(_ request: OrderRequest) throws -> String {
        let data: Data
        do {
            data = try request.canonicalJSON()
        } catch {
            throw GatewayError(.internalError, "the order could not be digested for its idempotency check")
        }
        return RandomIdentifier.hex(SHA256.hash(data: data))
    }

    /// The client order id for an idempotency key: derived, so a retry after a crash sends the same one.
    static func clientOrderId(tenantId: String, key: String) -> String {
        let digest = SHA256.hash(data: Data("\(tenantId)\n\(key)".utf8))
        return "gw-" + RandomIdentifier.hex(digest.prefix(16))
    }

    static func newOrderId() -> String { newId(prefix: "ord_") }

    /// `prefix` + 24 random hex digits.
    static func newId(prefix: String) -> String {
        RandomIdentifier.prefixed(prefix)
    }
}

/// The answer to a placement: the order, and whether the broker's acceptance is known.
public struct PlacementResult: Sendable {
    /// Whether the broker accepted the order (201), or its answer is not known yet and the reconciler will find out (202).
    public enum Outcome: Sendable { case accepted, unknown }
    /// The order as the client sees it: the broker's once known, else the journaled intent.
    public var order: Order
    /// Accepted, or not known yet.
    public var outcome: Outcome
    /// True when this answer repeats an earlier request with the same idempotency key.
    public var replayed: Bool
}

/// The journal's types under names the generated server can bind to (`typeOverrides`): inside a module named
/// `GatewayStore` that also has a protocol named `GatewayStore`, `GatewayStore.JournalState` does not resolve.
public typealias OrderJournalState = JournalState
/// The journal's event type under a name the generated server can bind to, as above.
public typealias OrderJournalEvent = OrderEvent
