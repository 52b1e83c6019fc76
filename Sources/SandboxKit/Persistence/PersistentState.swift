public import Dispatch
import Foundation
import Synchronization

/// A sandbox's state behind one lock, saved to a ``SandboxStateFile`` after it changes.
///
/// Every ``withLock(_:)`` counts as a change (the simulators tick their books on reads too: an order fills when a
/// request finds the market reached it). The save is coalesced: the first change schedules one write on this
/// state's own serial dispatch queue `coalescing` later, and every change until that write runs rides along with
/// it, so a burst of requests writes once. The write copies the state under the lock (copy-on-write, cheap), then
/// builds, encodes and writes the snapshot outside it, on the dispatch queue: nothing blocks on the disk while
/// holding the lock or on a thread of Swift's cooperative pool. A snapshot that encodes to the bytes last written
/// is not written again.
///
/// Without a file (tests, `gateway sandbox`, a sandbox built without a folder) it is a plain lock, as before.
public final class PersistentState<Value: Sendable, Snapshot: Codable & Sendable>: Sendable {
    private let value: Mutex<Value>
    private let persistence: Persistence?

    private struct Persistence: Sendable {
        var file: SandboxStateFile<Snapshot>
        var snapshot: @Sendable (Value) -> Snapshot
        var queue: DispatchQueue
        var coalescing: DispatchTimeInterval
    }

    private struct Saving {
        /// A change not written yet.
        var dirty = false
        /// A write is queued (`coalescing` from the first change after the last write).
        var scheduled = false
        var lastWritten: Data?
        /// Files written (the coalescing is observable through it).
        var writes = 0
        var lastError: SandboxStateError?
    }

    private let saving = Mutex(Saving())

    /// A state kept in memory only.
    public init(_ initial: Value) {
        self.value = Mutex(initial)
        self.persistence = nil
    }

    /// A state saved to `file` after changes.
    /// - Parameters:
    ///   - snapshot: what of the state is saved (runs outside the lock, on the dispatch queue).
    ///   - queue: where writes run (serial); tests pass a suspended one to observe coalescing.
    ///   - coalescing: how long a first change waits for others before the write.
    public init(
        _ initial: Value,
        file: SandboxStateFile<Snapshot>?,
        queue: DispatchQueue? = nil,
        coalescing: DispatchTimeInterval = .milliseconds(100),
        snapshot: @escaping @Sendable (Value) -> Snapshot
    ) {
        self.value = Mutex(initial)
        self.persistence = file.map { file in
            Persistence(
                file: file,
                snapshot: snapshot,
                queue: queue ?? DispatchQueue(label: "sandbox-state.\(file.sandbox)", qos: .utility),
                coalescing: coalescing
            )
        }
    }

    /// Runs `body` on the state under the lock, then schedules a save.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        defer { changed() }
        return try value.withLock(body)
    }

    /// Reads the state under the lock without counting as a change.
    public func read<Result: Sendable>(_ body: (borrowing Value) -> Result) -> Result {
        value.withLock { body($0) }
    }

    /// The file the state is saved to, if any.
    public var file: SandboxStateFile<Snapshot>? { persistence?.file }

    /// How many times the file was written.
    public var writeCount: Int { saving.withLock { $0.writes } }

    /// The last write's failure, if the last write failed.
    public var lastError: SandboxStateError? { saving.withLock { $0.lastError } }

    /// Marks the state changed and schedules the coalesced write, unless one is already scheduled.
    public func changed() {
        guard let persistence else { return }
        let schedule = saving.withLock { saving -> Bool in
            saving.dirty = true
            guard !saving.scheduled else { return false }
            saving.scheduled = true
            return true
        }
        if schedule {
            persistence.queue.asyncAfter(deadline: .now() + persistence.coalescing) { self.writeIfDirty() }
        }
    }

    /// Writes every change made so far, and returns once it is on disk (at once when nothing changed). Graceful
    /// shutdown awaits it; tests await it instead of sleeping.
    /// - Throws: the write's failure.
    public func flush() async throws(SandboxStateError) {
        guard let persistence else { return }
        let failure: SandboxStateError? = await withCheckedContinuation { continuation in
            persistence.queue.async { continuation.resume(returning: self.writeIfDirty()) }
        }
        if let failure { throw failure }
    }

    /// On the queue: writes the current state if it changed since the last write.
    @discardableResult
    private func writeIfDirty() -> SandboxStateError? {
        guard let persistence else { return nil }
        let (dirty, lastWritten) = saving.withLock { saving in
            defer {
                saving.dirty = false
                saving.scheduled = false
            }
            return (saving.dirty, saving.lastWritten)
        }
        guard dirty else { return nil }
        let current = value.withLock { $0 }
        do {
            let data = try persistence.file.encode(persistence.snapshot(current))
            if data == lastWritten { return nil }
            try persistence.file.write(data)
            saving.withLock { saving in
                saving.lastWritten = data
                saving.writes += 1
                saving.lastError = nil
            }
            return nil
        } catch {
            // Marked dirty again, so the next change (or flush) tries again.
            saving.withLock { saving in
                saving.dirty = true
                saving.lastError = error
            }
            FileHandle.standardError.write(Data("warning: \(error)\n".utf8))
            return error
        }
    }
}
