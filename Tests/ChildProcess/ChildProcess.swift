import CChildProcess
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program the tests start: the gateway binary, a real broker's Python client, a second gateway instance.
///
/// Foundation's `Process` is not used because on Linux it crashes a busy test process: before every launch it lists
/// `/proc/self/fd` and copies each entry's whole 256-byte `d_name` out of the directory buffer, which reads past the
/// buffer's end once the process holds more than about 1,300 descriptors (parallel tests do) and the buffer sits at the
/// edge of mapped memory (CI's signal 11). This starts the child with `posix_spawn`, closing every inherited descriptor
/// above 2 in one action, and reaps it on a thread of its own.
///
/// swift-subprocess 1.0.2 (https://github.com/swiftlang/swift-subprocess.git) was checked as a replacement (issue 28)
/// and has every primitive this needs: on Linux it spawns with `posix_spawn` and
/// `posix_spawn_file_actions_addclosefrom_np` (or `close_range` in a forked child), so no inherited descriptor leaks
/// and `/proc/self/fd` is not walked by Foundation; `PlatformOptions.processGroupID = 0` and
/// `Execution.send(signal:toProcessGroup: true)` stop a group as a whole; `teardown(using: [.gracefulShutDown(
/// allowedDuration:)])` is `stop(grace:)`; `output: .sequence` streams standard output while the child runs, and
/// `.fileDescriptor(_:closeAfterSpawningProcess:)` writes a log file; it resets the signal mask and dispositions
/// (`POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF`) as `CChildProcess` does. What it does not have is this type's
/// shape: its `run(_:arguments:…) { execution in … }` hands out an `Execution` "valid only for the duration of the
/// call. Don't let the execution value escape the closure", and `run` returns only once the child has ended. The
/// tests hold children as values that outlive a scope (`MultiInstanceProcessTests` keeps several gateways in an
/// array and restarts one, `TracingExportTests` assigns one to a variable its `defer` stops, `ReadBenchmark` starts
/// the sandboxes and the gateway in different functions), so adopting it means turning each of those call sites into
/// a nested body or a task-group child per process, not a drop-in swap behind this API. It would add two modules to a
/// fresh build (`Subprocess`, `_SubprocessCShims`; `SystemPackage` is already in the graph through swift-system
/// 1.8.1). Until the call sites are restructured, this spawner and its 40-line C shim stay.
public final class ChildProcess: Sendable {
    /// Where one of the child's output streams goes.
    public enum Output: Sendable {
        /// `/dev/null`.
        case discard
        /// A file, created or truncated; a chatty child can never fill a pipe and stall.
        case file(String)
        /// Read as it comes, line by line, into `lines`.
        case lines
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// The child called `exit` with this status (0 for success).
        case exited(Int32)
        /// A signal ended the child (`SIGTERM` from ``stop(grace:)``, `SIGKILL` past its grace, or a crash).
        case signalled(Int32)

        /// `exited with status N` or `killed by signal N`, for test failure messages.
        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// A system call that failed while starting the child (opening an output file, making a pipe, spawning).
    public struct Failure: Error, CustomStringConvertible {
        /// The call and its subject, such as `open <path>` or `posix_spawn <executable>`.
        public var operation: String
        /// The `errno` (or `posix_spawn` result) it failed with.
        public var code: Int32
        /// The operation, the system's text for `code`, and `code` itself.
        public var description: String { "\(operation) failed: \(String(cString: strerror(code))) (\(code))" }
    }

    /// The child's process id, fixed at spawn; after the child is reaped the id may be reused, so signal it through
    /// ``send(_:)``, which checks that the child is still running.
    public let pid: Int32
    /// The lines of every stream sent to `.lines`, in order; finishes when the child closes them.
    public let lines: AsyncStream<String>
    private let state = Mutex(State())

    private struct State {
        var termination: Termination?
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Termination?, Never>] = [:]
    }

    /// Starts `executable` with `arguments`; the environment is this process's unless one is given.
    public init(
        executable: String,
        arguments: [String],
        environment: [String: String]? = nil,
        standardOutput: Output = .discard,
        standardError: Output = .discard
    ) throws {
        var opened: [Int32] = []
        defer { for descriptor in opened { close(descriptor) } }
        func openFile(_ path: String, _ flags: Int32) throws -> Int32 {
            let descriptor = open(path, flags | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw Failure(operation: "open \(path)", code: errno) }
            opened.append(descriptor)
            return descriptor
        }

        var pipeRead: Int32 = -1
        var pipeWrite: Int32 = -1
        func lineDescriptor() throws -> Int32 {
            if pipeWrite >= 0 { return pipeWrite }
            var ends: [Int32] = [-1, -1]
            guard bgw_pipe_cloexec(&ends) == 0 else { throw Failure(operation: "pipe2", code: errno) }
            pipeRead = ends[0]
            pipeWrite = ends[1]
            opened.append(pipeWrite)
            return pipeWrite
        }
        var files: [String: Int32] = [:]
        func descriptor(for output: Output) throws -> Int32 {
            switch output {
            case .discard:
                return try openFile("/dev/null", O_WRONLY)
            case .file(let path):
                // Both streams to one file share one descriptor (and so one offset), as `2>&1` does.
                if let shared = files[path] { return shared }
                let descriptor = try openFile(path, O_WRONLY | O_CREAT | O_TRUNC)
                files[path] = descriptor
                return descriptor
            case .lines:
                return try lineDescriptor()
            }
        }

        let input = try openFile("/dev/null", O_RDONLY)
        let outputDescriptor = try descriptor(for: standardOutput)
        let errorDescriptor = try descriptor(for: standardError)

        let argv = ([executable] + arguments).map { strdup($0) }
        let environment = environment ?? ProcessInfo.processInfo.environment
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var spawned: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { arguments in
            (envp + [nil]).withUnsafeBufferPointer { environment in
                bgw_spawn(
                    &spawned,
                    executable,
                    arguments.baseAddress,
                    environment.baseAddress,
                    input,
                    outputDescriptor,
                    errorDescriptor
                )
            }
        }
        guard result == 0 else {
            if pipeRead >= 0 { close(pipeRead) }
            throw Failure(operation: "posix_spawn \(executable)", code: result)
        }
        pid = spawned
        let child = spawned

        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        if pipeRead >= 0 {
            let readEnd = pipeRead
            Thread.detachNewThread { Self.readLines(from: readEnd, into: continuation) }
        } else {
            continuation.finish()
        }
        Thread.detachNewThread { [self] in
            let termination = Self.reap(child)
            let waiters = state.withLock { state in
                state.termination = termination
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume(returning: termination) }
        }
    }

    /// Whether the child is still running (not yet reaped).
    public var isRunning: Bool { state.withLock { $0.termination == nil } }

    /// How the child ended, waiting for it; `nil` only if the waiting task is cancelled first.
    public func termination() async -> Termination? {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Termination?, Never>) in
                let ready = state.withLock { state -> Termination?? in
                    if let termination = state.termination { return .some(termination) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }

    /// How the child ended, or `nil` if it is still running after `limit`.
    public func termination(within limit: Duration) async -> Termination? {
        await withTaskGroup(of: Termination?.self) { group in
            group.addTask { await self.termination() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Sends `signal` to the child while it runs (never to a reaped, possibly reused, pid).
    public func send(_ signal: Int32) {
        state.withLock { state in
            if state.termination == nil { _ = kill(pid, signal) }
        }
    }

    /// SIGTERM, then SIGKILL if the child has not ended within `grace`; returns how it ended.
    @discardableResult
    public func stop(grace: Duration = .seconds(10)) async -> Termination? {
        send(SIGTERM)
        if let ended = await termination(within: grace) { return ended }
        send(SIGKILL)
        return await termination()
    }

    private static func reap(_ pid: Int32) -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return .exited(-1) }
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    private static func readLines(from descriptor: Int32, into continuation: AsyncStream<String>.Continuation) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: chunk[0..<count])
            while let newline = pending.firstIndex(of: 0x0A) {
                continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
        if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
        close(descriptor)
        continuation.finish()
    }
}
