import Synchronization

/// Answers of the store that every request repeats (a key and its tenant, a session, a connection list), kept in
/// memory while the store's change stamp (`StoreChangeStamp`) stays what it was when they were read.
///
/// The first lookup under a new stamp drops every entry, so a write committed anywhere (this process, the operator
/// CLI, another instance) is seen by the next request that reads the stamp. An answer is kept only under the stamp
/// read *before* it was loaded: a write that lands while it loads changes the stamp, so the answer is dropped on the
/// next lookup, never served after it. Bounded: at `capacity` entries one is dropped for each new one. Absent answers
/// (an unknown key) are never kept, so they cannot fill it.
final class StampedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    struct State {
        var stamp: UInt64?
        var entries: [Key: Value] = [:]
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The answer kept for `key` under `stamp`; a stamp other than the entries' drops them all first.
    func value(for key: Key, stamp: UInt64) -> Value? {
        state.withLock { state in
            if state.stamp != stamp {
                state.stamp = stamp
                state.entries.removeAll(keepingCapacity: true)
                return nil
            }
            return state.entries[key]
        }
    }

    /// Keeps an answer loaded after `stamp` was read, unless the stamp has moved on since.
    func insert(_ value: Value, for key: Key, stamp: UInt64) {
        state.withLock { state in
            guard state.stamp == stamp else { return }
            if state.entries[key] == nil, state.entries.count >= capacity {
                state.entries.remove(at: state.entries.startIndex)
            }
            state.entries[key] = value
        }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
