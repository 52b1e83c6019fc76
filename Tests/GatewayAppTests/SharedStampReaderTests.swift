import GatewayCore
import GatewaySQLiteStore
import GatewayStore
import Synchronization
import Testing

@testable import GatewayApp

/// A change stamp whose every read waits until the test ends it, with the value (or error) the test chooses, and
/// announces when it begins: the test sees exactly which callers a read served.
private final class GatedStamps: StoreChangeStamp, Sendable {
    private struct State {
        var pending: [CheckedContinuation<UInt64, any Error>] = []
    }

    private let state = Mutex(State())
    /// One element each time a read begins.
    let began: AsyncStream<Void>
    private let announce: AsyncStream<Void>.Continuation

    init() {
        (began, announce) = AsyncStream.makeStream(of: Void.self)
    }

    func changeStamp() async throws -> UInt64 {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                state.withLock { $0.pending.append(continuation) }
                announce.yield()
            }
        } onCancel: {
            // A read honours cancellation, as the stores' reads do.
            let pending = state.withLock { state in
                defer { state.pending = [] }
                return state.pending
            }
            for continuation in pending { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Ends the read in flight with `result`.
    func end(_ result: Result<UInt64, any Error>) {
        let pending = state.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
        guard pending.count == 1 else {
            Issue.record("one read in flight at a time, found \(pending.count)")
            for continuation in pending { continuation.resume(with: result) }
            return
        }
        pending[0].resume(with: result)
    }
}

// A reader that loses a caller would leave a test waiting for a read that never begins: the time limit fails it.
@Suite(
    "SharedStampReader: concurrent callers share a read, never one that began before they asked",
    .timeLimit(.minutes(1))
)
struct SharedStampReaderTests {
    /// Waits until `count` callers wait for the next read: a condition on the reader's own state, yielded on; the
    /// clock only bounds it generously, so a reader that never queues them fails the test instead of hanging it.
    private func waitUntil(
        _ reader: SharedStampReader,
        hasWaiting count: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let clock = ContinuousClock()
        let giveUp = clock.now + .seconds(30)
        while reader.waitingCount < count {
            guard clock.now < giveUp else {
                Issue.record("\(reader.waitingCount) callers wait for the next read, not \(count)", sourceLocation: sourceLocation)
                return
            }
            await Task.yield()
        }
    }

    @Test("one caller at a time: every call is a read of its own")
    func sequentialCallsEachRead() async throws {
        let source = GatedStamps()
        let reader = SharedStampReader(source)
        var began = source.began.makeAsyncIterator()
        for value in [UInt64(1), 2, 3] {
            async let stamp = reader.changeStamp()
            await began.next()
            source.end(.success(value))
            #expect(try await stamp == value)
        }
        #expect(reader.reads == 3)
    }

    @Test("callers who ask while a read is in flight share the next read, not that one")
    func latecomersShareTheNextRead() async throws {
        let source = GatedStamps()
        let reader = SharedStampReader(source)
        var began = source.began.makeAsyncIterator()

        let first = Task { try await reader.changeStamp() }
        await began.next()
        // While the first read is in flight a write commits; three callers ask after it.
        let late = (0..<3).map { _ in Task { try await reader.changeStamp() } }
        await waitUntil(reader, hasWaiting: 3)
        // The first read answers what it saw before the write: only its own caller may have it.
        source.end(.success(1))
        #expect(try await first.value == 1)

        await began.next()
        #expect(reader.reads == 2)
        source.end(.success(2))
        for caller in late { #expect(try await caller.value == 2) }
        #expect(reader.reads == 2)
    }

    @Test("a failed read fails every caller who shared it")
    func failureIsShared() async throws {
        let source = GatedStamps()
        let reader = SharedStampReader(source)
        var began = source.began.makeAsyncIterator()

        let first = Task { try await reader.changeStamp() }
        await began.next()
        let late = (0..<2).map { _ in Task { try await reader.changeStamp() } }
        await waitUntil(reader, hasWaiting: 2)
        source.end(.success(1))
        _ = try await first.value

        await began.next()
        source.end(.failure(GatewayError(.upstreamUnavailable, "the store cannot be reached")))
        for caller in late {
            await #expect(throws: GatewayError.self) { try await caller.value }
        }
        // The reader is usable again after a failure.
        async let again = reader.changeStamp()
        await began.next()
        source.end(.success(3))
        #expect(try await again == 3)
    }

    @Test("a sharer is not cancelled with the task that ran its read: it reads again")
    func cancelledRunnerDoesNotCancelSharers() async throws {
        let source = GatedStamps()
        let reader = SharedStampReader(source)
        var began = source.began.makeAsyncIterator()

        let first = Task { try await reader.changeStamp() }
        await began.next()
        // Asked in this order while the first read is in flight: `runner` runs the next read, `sharer` shares it.
        let runner = Task { try await reader.changeStamp() }
        await waitUntil(reader, hasWaiting: 1)
        let sharer = Task { try await reader.changeStamp() }
        await waitUntil(reader, hasWaiting: 2)
        source.end(.success(1))
        #expect(try await first.value == 1)

        await began.next()
        runner.cancel()  // the read it runs ends cancelled
        await #expect(throws: CancellationError.self) { try await runner.value }
        // The sharer was not cancelled: it reads again, in a read of its own turn.
        await began.next()
        #expect(reader.reads == 3)
        source.end(.success(2))
        #expect(try await sharer.value == 2)
    }

    @Test("HotReads reads a stamping store's stamp through a shared reader")
    func hotReadsUsesSharedReader() throws {
        let hot = HotReads(store: try SQLiteStore(inMemoryWith: .random()))
        #expect(hot.stamps != nil)
    }
}
