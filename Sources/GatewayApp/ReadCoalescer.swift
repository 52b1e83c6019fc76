import Foundation
public import GatewayCore
import Synchronization

/// Shares identical reads on one connection, and reuses recent answers where a read allows it.
///
/// Two hundred clients asking for the same tenant's positions at once are one question to each broker, not two
/// hundred: the first read of a key (connection + operation + arguments) calls the broker; identical reads that
/// arrive while it is in flight wait for its answer (`shared`); a read that allows an answer up to `maxAge` old gets
/// the last answer if it is that recent (`cached`). Failures are shared with the reads waiting at that moment and
/// never cached.
///
/// Nothing here runs work of its own: the first read's task calls the broker and the others wait on continuations, so
/// a waiter's deadline and cancellation hold (it stops waiting; the broker call goes on for whoever else waits). If
/// the calling task is cancelled (its client went away), a waiter that is still wanted takes over and calls the
/// broker itself.
///
/// A state change on a connection (a placement, a change, a cancel, a watchlist edit) calls ``invalidate(connection:)``:
/// cached answers of that connection are dropped, and reads in flight from before it are no longer joined.
final class ReadCoalescer: Sendable {
    struct Key: Hashable, Sendable {
        var connection: String
        var read: String
    }

    private struct Stored: Sendable {
        /// The `[Item]` of the read that made it; read back only under the same key, whose operation fixes the type.
        var value: any Sendable
        var asOf: Date
        var generation: UInt64
    }

    private typealias Waiter = CheckedContinuation<Result<Stored, any Error>, Never>

    private struct Flight {
        var id: UInt64
        var generation: UInt64
        /// Reads waiting for this one; `nil` until the waiter's continuation exists.
        var waiters: [UInt64: Waiter?] = [:]
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        /// Answers for waiters whose flight ended before they started waiting.
        var delivered: [UInt64: Result<Stored, any Error>] = [:]
        var cache: [Key: Stored] = [:]
        var generations: [String: UInt64] = [:]
        var nextId: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The oldest answer kept; no read may ask for older.
    static let maxAge: Duration = .seconds(60)
    /// At most this many answers are kept; past it, expired ones go first, then nothing new is kept until they do.
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// The answer to `read` under `key`: cached if one is at most `maxAge` old, shared if an identical read is in
    /// flight, else fresh from `body`.
    func read<Item: Sendable>(
        _ key: Key,
        maxAge: Duration,
        _ body: () async throws -> [Item]
    ) async throws -> SourceAnswer<Item> {
        while true {
            try Task.checkCancellation()
            switch begin(key, maxAge: maxAge) {
            case .cached(let stored):
                if let items = stored.value as? [Item] {
                    return SourceAnswer(items: items, asOf: stored.asOf, served: .cached)
                }
                return try await lead(key, generation: stored.generation, id: nil, body)
            case .join(let flightId, let waiterId):
                let result = await wait(key, flight: flightId, waiter: waiterId)
                switch result {
                case .success(let stored):
                    if let items = stored.value as? [Item] {
                        return SourceAnswer(items: items, asOf: stored.asOf, served: .shared)
                    }
                    continue
                case .failure(let error):
                    // The leader was cancelled (its client went away); this read still wants an answer.
                    if error is CancellationError, !Task.isCancelled { continue }
                    throw error
                }
            case .lead(let flightId, let generation):
                return try await lead(key, generation: generation, id: flightId, body)
            }
        }
    }

    /// Drops the connection's cached answers and stops reads in flight from being joined.
    func invalidate(connection: String) {
        state.withLock { state in
            state.generations[connection, default: 0] &+= 1
            state.cache = state.cache.filter { $0.key.connection != connection }
        }
    }

    /// How many answers are kept (for tests and the capacity bound).
    var cachedCount: Int { state.withLock { $0.cache.count } }

    /// How many reads wait on the read in flight under `key` (for tests).
    func waiting(_ key: Key) -> Int {
        state.withLock { state in state.flights[key]?.waiters.values.filter { $0 != nil }.count ?? 0 }
    }

    // MARK: Steps

    private enum Start {
        case cached(Stored)
        case join(flight: UInt64, waiter: UInt64)
        case lead(flight: UInt64, generation: UInt64)
    }

    private func begin(_ key: Key, maxAge: Duration) -> Start {
        let now = Date()
        let allowed = min(max(maxAge, .zero), Self.maxAge)
        return state.withLock { state in
            let generation = state.generations[key.connection] ?? 0
            if allowed > .zero, let stored = state.cache[key], stored.generation == generation,
                now.timeIntervalSince(stored.asOf) <= allowed.seconds
            {
                return .cached(stored)
            }
            state.nextId &+= 1
            let id = state.nextId
            if var flight = state.flights[key], flight.generation == generation {
                // Registered before the waiter's continuation exists: `wait` fills it in.
                flight.waiters[id] = .some(nil)
                state.flights[key] = flight
                return .join(flight: flight.id, waiter: id)
            }
            state.flights[key] = Flight(id: id, generation: generation)
            return .lead(flight: id, generation: generation)
        }
    }

    private func wait(_ key: Key, flight: UInt64, waiter: UInt64) async -> Result<Stored, any Error> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let early = state.withLock { state -> Result<Stored, any Error>? in
                    if let delivered = state.delivered.removeValue(forKey: waiter) { return delivered }
                    guard var current = state.flights[key], current.id == flight, current.waiters[waiter] != nil else {
                        return .failure(CancellationError())
                    }
                    current.waiters[waiter] = continuation
                    state.flights[key] = current
                    return nil
                }
                if let early { continuation.resume(returning: early) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> Waiter? in
                state.delivered[waiter] = nil
                guard var current = state.flights[key], current.id == flight else { return nil }
                let removed = current.waiters.removeValue(forKey: waiter) ?? nil
                state.flights[key] = current
                return removed
            }
            continuation?.resume(returning: .failure(CancellationError()))
        }
    }

    private func lead<Item: Sendable>(
        _ key: Key,
        generation: UInt64,
        id: UInt64?,
        _ body: () async throws -> [Item]
    ) async throws -> SourceAnswer<Item> {
        let result: Result<[Item], any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        let asOf = Date()
        let stored = result.map { Stored(value: $0, asOf: asOf, generation: generation) }
        let waiters = state.withLock { state -> [Waiter] in
            var waiters: [Waiter] = []
            if let id, let flight = state.flights[key], flight.id == id {
                for (waiterId, waiter) in flight.waiters {
                    if let waiter { waiters.append(waiter) } else { state.delivered[waiterId] = stored }
                }
                state.flights[key] = nil
            }
            if case .success(let value) = stored, (state.generations[key.connection] ?? 0) == generation {
                keep(value, under: key, in: &state, now: asOf)
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: stored) }
        return SourceAnswer(items: try result.get(), asOf: asOf, served: .fresh)
    }

    private func keep(_ value: Stored, under key: Key, in state: inout State, now: Date) {
        if state.cache.count >= capacity, state.cache[key] == nil {
            let oldest = now.addingTimeInterval(-Self.maxAge.seconds)
            state.cache = state.cache.filter { $0.value.asOf >= oldest }
            if state.cache.count >= capacity { return }
        }
        state.cache[key] = value
    }
}

extension Duration {
    /// The duration in seconds, for comparing with `Date` intervals.
    var seconds: TimeInterval {
        let (whole, attoseconds) = components
        return TimeInterval(whole) + TimeInterval(attoseconds) / 1e18
    }
}
