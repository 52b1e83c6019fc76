import Foundation
import Synchronization
public import Testing

/// Admission for the tests that start a world: a gateway with its sandboxes on loopback, gateway child processes, the
/// real brokers' Python clients.
///
/// Swift Testing starts every test of the run at once (about 800 here), on a cooperative pool as wide as the machine
/// (2 threads on the project's machine). Each world is itself a few servers and clients, CPU-bound in a debug build;
/// when some 60 of them start together, every one of them waits behind all the others, and a deadline inside a world
/// (a broker call's 5 s) then measures the length of the run queue instead of the code under test: links answered 504
/// 30 s into the run. Admitting a few worlds at a time keeps each world's own latency near what it is on a quiet
/// machine, and costs no throughput: the machine is saturated either way.
///
/// Tests opt in with the `.heavyWorld` trait (on a suite it covers every test in it). A test already admitted (a
/// helper nested in another) passes straight through, so nesting never deadlocks.
public enum HeavyWorlds {
    /// How many worlds run at once: `BROKERGATEWAY_TEST_WORLDS` if set (at least 1), else twice the active cores.
    public static let width: Int = {
        if let text = ProcessInfo.processInfo.environment["BROKERGATEWAY_TEST_WORLDS"], let value = Int(text), value > 0 {
            return value
        }
        return max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }()

    static let gate = AdmissionGate(width: width)

    @TaskLocal static var admitted = false

    /// Runs `body` once a world slot is free; first come, first served.
    public static func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        if admitted { return try await body() }
        await gate.enter()
        defer { gate.leave() }
        return try await $admitted.withValue(true) { try await body() }
    }
}

/// A counting semaphore for tasks: waiters queue in order and suspend (no thread is held while waiting).
final class AdmissionGate: Sendable {
    private struct State {
        var free: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(width: Int) {
        state = Mutex(State(free: width))
    }

    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}

/// The trait that admits a test (or every test of a suite) through ``HeavyWorlds``.
public struct HeavyWorldTrait: SuiteTrait, TestTrait, TestScoping {
    /// On a suite, the trait reaches every test inside it, nested suites included.
    public var isRecursive: Bool { true }

    /// Each test case is admitted on its own; a suite holds no slot itself, or its tests would share one.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase == nil ? nil : self
    }

    /// Runs the test case once it holds a slot, and gives the slot back when it ends, passing or failing.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await HeavyWorlds.run(function)
    }
}

extension Trait where Self == HeavyWorldTrait {
    /// This test starts a world of servers or child processes: it waits for one of ``HeavyWorlds/width`` slots.
    public static var heavyWorld: Self { HeavyWorldTrait() }
}
