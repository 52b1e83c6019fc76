import GatewayStore
import Synchronization

/// The store's change stamp (``StoreChangeStamp``) read once for every caller that asks while a read is under way,
/// and never answered to a caller from a read that began before it asked.
///
/// Every authenticated request reads the stamp before it consults its caches (``HotReads``), two or three times
/// (the key, the user, the connection list): at a hundred concurrent clients that was hundreds of PostgreSQL round
/// trips, or `PRAGMA data_version` statements, a second for one number. Sharing a read that is already in flight
/// would break the stamp's promise: a write that committed after that read began, but before the caller asked,
/// could be missed, and a revoked key be honoured once more. So callers that arrive while a read is in flight wait
/// for the *next* read, which begins after they asked, and share it; the caller that started a read gets it alone
/// with those that were waiting for it. Each caller's answer therefore reflects every write committed before it
/// asked, exactly as if it had read the stamp itself, and at most one read is in flight at a time.
///
/// A failed read is every sharer's failure (the store could not be reached for any of them), except a cancellation:
/// a sharer whose read was cancelled because the task that ran it was cancelled reads again, in a read of its own
/// turn.
final class SharedStampReader: StoreChangeStamp, Sendable {
    /// What a waiting caller is told when its read ends.
    private enum Turn: Sendable {
        /// Run the next read: it begins now, after every caller that waits for it asked.
        case lead
        /// The read this caller waited for ended with this.
        case answer(Result<UInt64, any Error>)
    }

    private struct State {
        /// Whether a read is in flight.
        var reading = false
        /// The callers that share the read in flight (they asked before it began).
        var sharers: [CheckedContinuation<Turn, Never>] = []
        /// The callers that asked while the read in flight was under way: the first runs the next read, the others
        /// share it.
        var waiting: [CheckedContinuation<Turn, Never>] = []
        /// Reads run so far (tests count them).
        var reads = 0
    }

    /// Where the stamp comes from.
    let source: any StoreChangeStamp
    private let state = Mutex(State())

    init(_ source: any StoreChangeStamp) {
        self.source = source
    }

    /// The stamp, as of no earlier than this call: either from a read this call runs, or from one that began after it.
    func changeStamp() async throws -> UInt64 {
        let turn: Turn = await withCheckedContinuation { continuation in
            let leads = state.withLock { state in
                if state.reading {
                    state.waiting.append(continuation)
                    return false
                }
                state.reading = true
                return true
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .lead:
            return try await lead().get()
        case .answer(.failure(let error)) where error is CancellationError && !Task.isCancelled:
            // The task that ran this read was cancelled, not this one: read again, in a turn of its own.
            return try await changeStamp()
        case .answer(let result):
            return try result.get()
        }
    }

    /// Reads the stamp for this caller and those sharing its read, then hands the next read to the first caller
    /// that asked meanwhile (its sharers are the others who asked meanwhile).
    private func lead() async -> Result<UInt64, any Error> {
        state.withLock { $0.reads += 1 }
        let result: Result<UInt64, any Error>
        do {
            result = .success(try await source.changeStamp())
        } catch {
            result = .failure(error)
        }
        let (sharers, next) = state.withLock { state -> ([CheckedContinuation<Turn, Never>], CheckedContinuation<Turn, Never>?) in
            let sharers = state.sharers
            guard !state.waiting.isEmpty else {
                state.reading = false
                state.sharers = []
                return (sharers, nil)
            }
            let next = state.waiting.removeFirst()
            state.sharers = state.waiting
            state.waiting = []
            return (sharers, next)
        }
        for sharer in sharers { sharer.resume(returning: .answer(result)) }
        next?.resume(returning: .lead)
        return result
    }

    /// How many reads of the source have begun.
    var reads: Int { state.withLock { $0.reads } }

    /// How many callers wait for a read that has not begun yet.
    var waitingCount: Int { state.withLock { $0.waiting.count } }
}
