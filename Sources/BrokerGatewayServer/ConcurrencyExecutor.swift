import NIOCore
import NIOPosix

/// Where `gateway serve` runs Swift concurrency's tasks (setting `executor`).
///
/// `global` (the default) keeps Swift's own pool. `event-loops` installs NIO's event loops
/// (`MultiThreadedEventLoopGroup.singleton`, which the HTTP server, AsyncHTTPClient and PostgresNIO already run on)
/// as the global executor: a request's handler, its fan-out tasks and the broker calls' continuations run on the
/// same threads as the sockets instead of hopping between them and Swift's pool, which swift-nio offers for
/// I/O-bound servers; nothing in the gateway blocks a thread (SQLite runs on GRDB's own queues). Measured on the
/// project's 2-core machine (README, Benchmarks) it saved some CPU per read but gave no more reads a second and a
/// longer tail at 100 clients, so it is a choice for operators to measure on their own hardware, not the default.
enum ConcurrencyExecutor: String, CaseIterable {
    case eventLoops = "event-loops"
    case global

    /// Installs the choice; call once, before the services start. `false` when NIO could not take over (a toolchain
    /// without the hook): the gateway then runs on Swift's pool, which is correct, only slower.
    @discardableResult
    func install() -> Bool {
        switch self {
        case .global: return true
        case .eventLoops: return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        }
    }
}
