import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import Testing

/// The real server (its own HTTP channel, limits and connection cap) on a free port, for tests that speak raw TCP.
struct LiveServer {
    let port: Int
    let apiKey: String

    static func with(
        limits: ServerLimits,
        _ body: @escaping @Sendable (LiveServer) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "live", factory: { _ in SwiftLogNoOpLogHandler() })
        let store = try await SQLiteStore.opening(path: directory.appendingPathComponent("gateway.sqlite").path, cipher: .random())
        let registry = AdapterRegistry(factories: [], transport: ScriptedTransport.unused(), logger: logger)
        let gateway = Gateway(store: store, registry: registry, router: BrokerRouter(), logger: logger)
        let tenant = try await store.createTenant(name: "live")
        let key = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "live")
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = try GatewayServer.application(
            gateway: gateway,
            host: "127.0.0.1",
            port: 0,
            limits: limits,
            logger: logger,
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            }
        )
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            do {
                try await body(LiveServer(port: port, apiKey: key.plaintext))
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// A TCP connection to the server that sends raw bytes and collects what comes back; `source` picks the
    /// client's loopback address (Linux routes all of 127/8 to loopback) so that one test can be several clients.
    func connect(from source: String? = nil) async throws -> RawConnection {
        try await RawConnection(port: port, source: source)
    }
}

/// One raw TCP connection: what it received so far, and whether the other side closed it.
final class RawConnection: Sendable {
    let channel: any Channel
    /// What arrived, whether the peer closed, a version bumped on every change, and who waits for the next change.
    private let state = Mutex<(received: [UInt8], closed: Bool, version: Int, waiters: [CheckedContinuation<Void, Never>])>(
        ([], false, 0, [])
    )

    init(port: Int, source: String? = nil) async throws {
        let collector = Collector()
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        collector.attach(self)
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    var text: String { String(decoding: state.withLock { $0.received }, as: UTF8.self) }
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Waits until the server closes the connection; `false` when `limit` passes first.
    func waitForClose(within limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let (seen, closed) = state.withLock { ($0.version, $0.closed) }
            if closed { return true }
            await waitForChange(after: seen, until: deadline)
        }
        return isClosed
    }

    /// Waits until `marker` has been received `times` times in all (or the connection closed first).
    func waitFor(_ marker: String, times: Int = 1, within limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        func arrived() -> Bool { text.components(separatedBy: marker).count > times }
        while ContinuousClock.now < deadline {
            let (seen, closed) = state.withLock { ($0.version, $0.closed) }
            if arrived() { return true }
            if closed { return false }
            await waitForChange(after: seen, until: deadline)
        }
        return arrived()
    }

    func close() async {
        try? await channel.close()
    }

    fileprivate func received(_ bytes: [UInt8]) {
        let waiters = state.withLock { state in
            state.received += bytes
            state.version += 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    fileprivate func closedByPeer() {
        let waiters = state.withLock { state in
            state.closed = true
            state.version += 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func wakeAll() {
        let waiters = state.withLock { state in
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for a change after version `seen` (new bytes or the close), at most until `deadline`.
    private func waitForChange(after seen: Int, until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let changed = self.state.withLock { state -> Bool in
                        if state.version != seen { return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if changed { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
            self.wakeAll()
        }
    }

    /// Hands what arrives to its connection; what arrives before the connection exists (a server that answers or
    /// closes at once can beat `connect`'s return) is kept and handed over when it attaches.
    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let state = Mutex<(owner: RawConnection?, early: [UInt8], closedEarly: Bool)>((nil, [], false))

        func attach(_ owner: RawConnection) {
            let (early, closedEarly) = state.withLock { state in
                state.owner = owner
                defer { (state.early, state.closedEarly) = ([], false) }
                return (state.early, state.closedEarly)
            }
            if !early.isEmpty { owner.received(early) }
            if closedEarly { owner.closedByPeer() }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
            let owner = state.withLock { state -> RawConnection? in
                if state.owner == nil { state.early += bytes }
                return state.owner
            }
            owner?.received(bytes)
        }

        func channelInactive(context: ChannelHandlerContext) {
            let owner = state.withLock { state -> RawConnection? in
                if state.owner == nil { state.closedEarly = true }
                return state.owner
            }
            owner?.closedByPeer()
            context.fireChannelInactive()
        }
    }
}

@Suite("Server: slow, half-sent, oversized and too many connections")
struct ServerLimitsTests {
    /// The JSON body of the first response in `text`.
    func errorBody(_ text: String) -> [String: Any]? {
        guard let start = text.range(of: "\r\n\r\n") else { return nil }
        let body = Data(text[start.upperBound...].utf8)
        return (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }

    @Test("a request line over the limit gets a JSON 431, not an empty 400")
    func oversizedRequestLine() async throws {
        try await LiveServer.with(limits: ServerLimits(maxHeaderBytes: 4096)) { server in
            let connection = try await server.connect()
            try await connection.send("GET /v1/positions?x=\(String(repeating: "a", count: 8000)) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await connection.waitForClose())
            #expect(connection.text.hasPrefix("HTTP/1.1 431"))
            #expect(connection.text.lowercased().contains("content-type: application/json"))
            let error = errorBody(connection.text)?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "headers_too_large")
            #expect((error?["requestId"] as? String)?.hasPrefix("req_") == true)
        }
    }

    @Test("a header over the limit gets a JSON 431; garbage gets a JSON 400")
    func oversizedHeaderAndGarbage() async throws {
        try await LiveServer.with(limits: ServerLimits(maxHeaderBytes: 4096)) { server in
            let big = try await server.connect()
            try await big.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 6000))\r\n\r\n")
            #expect(await big.waitForClose())
            #expect(big.text.hasPrefix("HTTP/1.1 431"))
            let garbage = try await server.connect()
            try await garbage.send("NOT HTTP AT ALL\r\n\r\n")
            #expect(await garbage.waitForClose())
            #expect(garbage.text.hasPrefix("HTTP/1.1 400"))
            #expect((errorBody(garbage.text)?["error"] as? [String: Any])?["code"] as? String == "invalid_request")
        }
    }

    @Test("a half-sent request head is answered 408 and closed after the header timeout")
    func halfSentHead() async throws {
        try await LiveServer.with(limits: ServerLimits(headerTimeout: .milliseconds(300), idleTimeout: .seconds(600))) { server in
            let connection = try await server.connect()
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")  // the blank line never comes
            #expect(await connection.waitForClose(), "the server kept a half-sent request open")
            #expect(connection.text.hasPrefix("HTTP/1.1 408"))
            #expect((errorBody(connection.text)?["error"] as? [String: Any])?["code"] as? String == "request_timeout")
        }
    }

    @Test("a body that stops arriving is answered 408 and closed after the body timeout")
    func stalledBody() async throws {
        try await LiveServer.with(limits: ServerLimits(idleTimeout: .seconds(600), bodyTimeout: .milliseconds(300))) { server in
            let connection = try await server.connect()
            try await connection.send(
                "POST /v1/watchlists HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.apiKey)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na"
            )
            #expect(await connection.waitForClose(), "the server waited for the rest of the body forever")
            #expect(connection.text.hasPrefix("HTTP/1.1 408"))
        }
    }

    @Test("a complete request is answered normally and the connection stays usable")
    func normalRequestsPass() async throws {
        try await LiveServer.with(limits: ServerLimits(headerTimeout: .milliseconds(300))) { server in
            let connection = try await server.connect()
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await connection.waitFor("\"ok\""))
            #expect(connection.text.hasPrefix("HTTP/1.1 200"))
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await connection.waitFor("HTTP/1.1 200 OK\r\n", within: .seconds(30)))
            #expect(!connection.isClosed)
            await connection.close()
        }
    }

    @Test("a documented path asked with a method it does not have is a 405 with Allow")
    func methodNotAllowed() async throws {
        try await LiveServer.with(limits: ServerLimits()) { server in
            let connection = try await server.connect()
            try await connection.send(
                "DELETE /v1/positions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.apiKey)\r\nConnection: close\r\n\r\n"
            )
            #expect(await connection.waitForClose())
            #expect(connection.text.hasPrefix("HTTP/1.1 405"))
            #expect(connection.text.lowercased().contains("\r\nallow: get\r\n"))
            #expect((errorBody(connection.text)?["error"] as? [String: Any])?["code"] as? String == "method_not_allowed")
        }
    }
}
