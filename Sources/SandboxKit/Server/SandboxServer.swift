public import Foundation
public import Hummingbird
import HummingbirdWebSocket
public import Logging
public import ServiceLifecycle

/// A sandbox simulator that can be served over HTTP.
public protocol SandboxSimulator: Sendable {
    /// Builds the router serving the broker's wire API and the `/_sandbox` admin endpoints.
    func makeRouter() -> Router<SandboxRequestContext>

    /// Writes the simulator's state to its folder, if it keeps one, and returns once it is on disk. The server calls
    /// it when it stops, so a graceful shutdown loses nothing.
    func persistState() async throws

    /// Whether the router has WebSocket routes (a broker's streams), so the server must offer HTTP/1's upgrade.
    var servesWebSockets: Bool { get }
}

extension SandboxSimulator {
    /// A simulator that keeps its state in memory only has nothing to write.
    public func persistState() async throws {}

    /// Plain HTTP/1 unless the simulator says it serves WebSockets: no upgrade machinery for brokers without streams.
    public var servesWebSockets: Bool { false }
}

/// Runs a simulator's HTTP server as a swift-service-lifecycle `Service`.
///
/// Add it to the application's `ServiceGroup`; it stops on graceful shutdown. Port 0 binds an ephemeral port:
/// `onRunning` receives the base URL once the socket is listening (e.g. `http://127.0.0.1:53121`).
public struct SandboxServer: Service {
    private let app: Application<RouterResponder<SandboxRequestContext>>
    private let simulator: any SandboxSimulator

    /// Makes the server for `simulator` on `host:port` (port 0 for an ephemeral one), with the simulator's router behind
    /// HTTP/1 (and its WebSocket upgrade when the simulator ``SandboxSimulator/servesWebSockets``); `onRunning` gets the base URL once the socket listens. Binds nothing until
    /// ``run()``.
    public init(
        _ simulator: some SandboxSimulator,
        host: String = "127.0.0.1",
        port: Int = 0,
        logger: Logger = SandboxServer.quietLogger,
        onRunning: @escaping @Sendable (URL) async -> Void = { _ in }
    ) {
        let router = simulator.makeRouter()
        self.simulator = simulator
        self.app = Application(
            responder: router.buildResponder(),
            // HTTP/1 with a WebSocket upgrade: only a request asking to upgrade goes through the router's WebSocket
            // routes (the streams) first; every other request is served exactly as by the plain HTTP/1 server.
            // Frames of up to 64 KiB: alpaca-py splits a large subscription into frames of 32 KiB.
            server: simulator.servesWebSockets
                ? .quiescingHTTP1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: 1 << 16)))
                : .http1(),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let urlHost = host.contains(":") ? "[\(host)]" : host
                if let url = URL(string: "http://\(urlHost):\(port)") {
                    await onRunning(url)
                }
            },
            logger: logger
        )
    }

    /// Serves until graceful shutdown, then writes the simulator's state (whether serving ended well or not).
    public func run() async throws {
        let served: Result<Void, any Error>
        do {
            try await app.run()
            served = .success(())
        } catch {
            served = .failure(error)
        }
        try await simulator.persistState()
        try served.get()
    }

    /// A logger that discards everything: the default, so tests never need a logging bootstrap.
    public static var quietLogger: Logger {
        Logger(label: "sandbox", factory: { _ in SwiftLogNoOpLogHandler() })
    }
}

/// Why ``withSandbox(_:host:port:logger:_:)`` could not provide a server.
public struct SandboxServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String
}

/// Serves `simulator` on `host:port` (ephemeral by default) for the duration of `body`, passing its base URL.
/// The server is shut down gracefully when `body` returns or throws.
///
/// ```swift
/// try await withSandbox(AlpacaSandbox()) { url in
///     // point a client at url
/// }
/// ```
public func withSandbox<Result>(
    _ simulator: some SandboxSimulator,
    host: String = "127.0.0.1",
    port: Int = 0,
    logger: Logger = SandboxServer.quietLogger,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (URL) async throws -> Result
) async throws -> Result {
    let (urls, continuation) = AsyncStream.makeStream(of: URL.self)
    let server = SandboxServer(simulator, host: host, port: port, logger: logger) { url in
        continuation.yield(url)
        continuation.finish()
    }
    let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { tasks in
        tasks.addTask {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = urls.makeAsyncIterator()
        guard let url = await iterator.next() else {
            // The server ended before listening (or we were cancelled): report its error if it had one.
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            throw SandboxServerError(description: "the sandbox server stopped before it was listening")
        }
        let result: Result
        do {
            result = try await body(url)
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return result
    }
}
