import NIOCore
import NIOPosix

/// Where `gateway serve` runs Swift concurrency's tasks (setting `executor`).
///
/// `event-loops` (the default) installs NIO's event loops (`MultiThreadedEventLoopGroup.singleton`, which the HTTP
/// server, AsyncHTTPClient and PostgresNIO already run on) as the global executor: a request's handler, its fan-out
/// tasks and the broker calls' continuations run on the same few threads as the sockets, instead of hopping between
/// them and Swift's own pool. On a small machine that is the difference between two threads and four competing for
/// two cores. It is swift-nio's documented recommendation for I/O-bound servers; nothing in the gateway blocks a
/// thread (SQLite runs on GRDB's own queues). `global` keeps Swift's default pool.
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
