import Foundation
import GatewayCore
import Synchronization
import Testing

@testable import GatewayApp

/// A broker call a test holds open until it says so, counting how often it was made.
final class HeldCall: Sendable {
    private let state = Mutex<(calls: Int, release: [CheckedContinuation<Void, Never>], open: Bool)>((0, [], false))

    var calls: Int { state.withLock { $0.calls } }

    /// Counts the call, then waits until `release()` (at once if already released).
    func run(_ items: [Int]) async -> [Int] {
        await withCheckedContinuation { continuation in
            let go = state.withLock { state -> Bool in
                state.calls += 1
                if state.open { return true }
                state.release.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
        return items
    }

    func release() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.release = [] }
            return state.release
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// Waits (yielding, never sleeping) until `condition` holds; fails the test if it never does within many turns.
func eventually(_ what: Comment, _ condition: () -> Bool) async {
    for _ in 0..<100_000 {
        if condition() { return }
        await Task.yield()
    }
    Issue.record(what)
}

struct ReadCoalescerTests {
    let key = ReadCoalescer.Key(connection: "conn_1", read: "positions|*")

    @Test("identical reads in flight share one broker call; each says how it was served")
    func sharing() async throws {
        let reads = ReadCoalescer()
        let held = HeldCall()
        let answers = try await withThrowingTaskGroup(of: SourceAnswer<Int>.self) { group in
            for _ in 0..<20 {
                group.addTask { try await reads.read(key, maxAge: .zero) { await held.run([1, 2]) } }
            }
            await eventually("all twenty reads are waiting on the first") { held.calls == 1 && reads.waiting(key) == 19 }
            held.release()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(held.calls == 1)
        #expect(answers.count == 20)
        #expect(answers.allSatisfy { $0.items == [1, 2] })
        #expect(answers.filter { $0.served == .fresh }.count == 1)
        #expect(answers.filter { $0.served == .shared }.count == 19)
        #expect(Set(answers.map(\.asOf)).count == 1, "shared answers carry the time of the one broker answer")
    }

    @Test("an answer is reused within maxAge, and never with maxAge 0")
    func freshness() async throws {
        let reads = ReadCoalescer()
        let held = HeldCall()
        held.release()
        let first = try await reads.read(key, maxAge: .zero) { await held.run([1]) }
        let strict = try await reads.read(key, maxAge: .zero) { await held.run([2]) }
        #expect(first.served == .fresh && strict.served == .fresh)
        #expect(strict.items == [2])
        let relaxed = try await reads.read(key, maxAge: .seconds(30)) { await held.run([3]) }
        #expect(relaxed.served == .cached)
        #expect(relaxed.items == [2])
        #expect(relaxed.asOf == strict.asOf)
        #expect(held.calls == 2)
        // Another connection, or another read of the same connection, is another key.
        let other = try await reads.read(.init(connection: "conn_2", read: "positions|*"), maxAge: .seconds(30)) {
            await held.run([4])
        }
        #expect(other.served == .fresh)
    }

    @Test("a state change drops cached answers and is not answered by a read from before it")
    func invalidation() async throws {
        let reads = ReadCoalescer()
        let before = HeldCall()
        let inFlight = Task { try await reads.read(key, maxAge: .seconds(30)) { await before.run([1]) } }
        await eventually("the first read calls the broker") { before.calls == 1 }
        reads.invalidate(connection: "conn_1")
        let after = HeldCall()
        after.release()
        let fresh = try await reads.read(key, maxAge: .seconds(30)) { await after.run([2]) }
        #expect(fresh.served == .fresh, "a read after the change does not join the read from before it")
        #expect(fresh.items == [2])
        before.release()
        _ = try await inFlight.value
        let cached = try await reads.read(key, maxAge: .seconds(30)) { await after.run([3]) }
        #expect(cached.served == .cached)
        #expect(cached.items == [2], "the answer from before the change was not kept")
    }

    @Test("a failure reaches the reads waiting for it and is never cached")
    func failures() async throws {
        let reads = ReadCoalescer()
        let held = HeldCall()
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await reads.read(key, maxAge: .seconds(30)) { () async throws -> [Int] in
                            _ = await held.run([])
                            throw GatewayError(.upstreamUnavailable, "down")
                        }
                        return false
                    } catch let error as GatewayError {
                        return error.code == .upstreamUnavailable
                    } catch {
                        return false
                    }
                }
            }
            await eventually("four reads wait on the first") { reads.waiting(key) == 4 }
            held.release()
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes == [true, true, true, true, true])
        #expect(held.calls == 1)
        let next = try await reads.read(key, maxAge: .seconds(30)) { [7] }
        #expect(next.served == .fresh && next.items == [7])
    }

    @Test("when the read that called the broker is cancelled, a waiting read calls it itself")
    func leaderCancelled() async throws {
        let reads = ReadCoalescer()
        let held = HeldCall()
        let leader = Task {
            try await reads.read(key, maxAge: .zero) { () async throws -> [Int] in
                _ = await held.run([])
                try Task.checkCancellation()
                return [1]
            }
        }
        await eventually("the leader calls the broker") { held.calls == 1 }
        let follower = Task { try await reads.read(key, maxAge: .zero) { [2] } }
        await eventually("the follower waits on the leader") { reads.waiting(key) == 1 }
        leader.cancel()
        held.release()
        await #expect(throws: CancellationError.self) { try await leader.value }
        let answer = try await follower.value
        #expect(answer.items == [2])
        #expect(answer.served == .fresh)
    }

    @Test("a waiting read that is cancelled stops waiting at once")
    func waiterCancelled() async throws {
        let reads = ReadCoalescer()
        let held = HeldCall()
        let leader = Task { try await reads.read(key, maxAge: .zero) { await held.run([1]) } }
        await eventually("the leader calls the broker") { held.calls == 1 }
        let waiter = Task { try await reads.read(key, maxAge: .zero) { [2] } }
        await eventually("the second read waits") { reads.waiting(key) == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(reads.waiting(key) == 0)
        held.release()
        #expect(try await leader.value.items == [1])
    }

    @Test("the cache keeps at most its capacity of answers")
    func capacity() async throws {
        let reads = ReadCoalescer(capacity: 3)
        for index in 0..<10 {
            _ = try await reads.read(.init(connection: "conn_1", read: "quotes|\(index)"), maxAge: .seconds(30)) { [index] }
        }
        #expect(reads.cachedCount == 3)
    }
}
