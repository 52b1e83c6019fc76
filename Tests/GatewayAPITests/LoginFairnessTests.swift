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
import TestWorlds
import Testing

/// Issue 27, N2 and N9, over real sockets: 40 anonymous login floods took a real user's login from 1.4–3 s to no
/// answer in 30 s (logins were not rate limited and every tenant shared one two-slot hashing queue), and the lockout
/// was the user's, so anyone could lock a user out. The real server runs on loopback with small login limits, and
/// clients connect from distinct loopback addresses (127.0.0.2, 127.0.0.3, …), which Linux routes to `lo`.
@Suite("Server: login floods, hashing shares per tenant, and lockouts per client address", .heavyWorld)
struct LoginFairnessTests {
    static let password = "correct horse battery"

    /// A gateway on a free port with two tenants, each with one user who has a password.
    struct World {
        let port: Int
        let tenantA: String
        let tenantB: String

        func login(
            from source: String,
            tenant: String,
            email: String,
            password: String = LoginFairnessTests.password
        ) async throws
            -> (status: Int, text: String)
        {
            let body = #"{"tenantId":"\#(tenant)","email":"\#(email)","password":"\#(password)","device":{"name":"Phone","type":"ios"}}"#
            return try await OneShotHTTP.post(port: port, from: source, path: "/v1/auth/login", json: body)
        }
    }

    static func with(logins: LoginLimits, _ body: @escaping @Sendable (World) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-logins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "logins", factory: { _ in SwiftLogNoOpLogHandler() })
        let store = try await SQLiteStore.opening(path: directory.appendingPathComponent("gateway.sqlite").path, cipher: .random())
        let registry = AdapterRegistry(factories: [], transport: ScriptedTransport.unused(), logger: logger)
        let gateway = Gateway(
            store: store,
            registry: registry,
            router: BrokerRouter(),
            logger: logger,
            sessions: SessionSettings(passwordCost: 12, logins: logins)
        )
        var tenants: [String] = []
        for name in ["a", "b"] {
            let tenant = try await store.createTenant(name: name)
            let user = try await store.createUser(tenantId: tenant.id, NewUser(email: "ann@\(name).example"), audit: nil)
            try await gateway.sessions.setPassword(tenant: tenant, actor: "test", userId: user.id, password: Self.password)
            tenants.append(tenant.id)
        }
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = try GatewayServer.application(
            gateway: gateway,
            host: "127.0.0.1",
            port: 0,
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
                try await body(World(port: port, tenantA: tenants[0], tenantB: tenants[1]))
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// 40 logins at once from `source`, each naming its own unknown email; their statuses and bodies.
    static func flood(_ world: World, from source: String, tenant: String, count: Int = 40) async throws -> [(status: Int, text: String)] {
        try await withThrowingTaskGroup(of: (status: Int, text: String).self) { group in
            for index in 0..<count {
                group.addTask {
                    try await world.login(from: source, tenant: tenant, email: "nobody\(index)@flood.example", password: "wrong password \(index)")
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("40 logins of unknown emails from one address are refused past its rate before any hashing; a real user at another address logs in")
    func floodFromOneAddress() async throws {
        let limits = LoginLimits(perAddressPerMinute: 6, perAddressBurst: 4, hashingQueuePerTenant: 8)
        try await Self.with(logins: limits) { world in
            async let flooded = Self.flood(world, from: "127.0.0.2", tenant: world.tenantA)
            let real = try await world.login(from: "127.0.0.3", tenant: world.tenantA, email: "ann@a.example")
            #expect(real.status == 200, "\(real.text)")
            let answers = try await flooded
            let limited = answers.filter { $0.status == 429 }
            // The address's burst is 4 (and a token comes back every 10 s): the rest are refused at once, as
            // rate_limited with Retry-After.
            #expect(limited.count >= 30, "\(answers.map(\.status))")
            #expect(answers.allSatisfy { $0.status == 429 || $0.status == 401 }, "\(answers.map(\.status))")
            #expect(limited.allSatisfy { $0.text.contains("\"rate_limited\"") && $0.text.lowercased().contains("retry-after: ") })
        }
    }

    @Test("one tenant's flood holds only its share of the hashing slots: its surplus is refused at once, another tenant logs in")
    func floodOfOneTenant() async throws {
        // Addresses are not the limit here (one per flooder): the tenant's share of hashing is.
        let limits = LoginLimits(
            perAddressPerMinute: 600,
            perAddressBurst: 600,
            hashingSlots: 2,
            hashingSlotsPerTenant: 1,
            hashingQueuePerTenant: 1
        )
        try await Self.with(logins: limits) { world in
            async let flooded = withThrowingTaskGroup(of: [(status: Int, text: String)].self) { group in
                for source in 2..<6 {
                    group.addTask { try await Self.flood(world, from: "127.0.0.\(source)", tenant: world.tenantA, count: 10) }
                }
                return try await group.reduce(into: [(status: Int, text: String)]()) { $0 += $1 }
            }
            let other = try await world.login(from: "127.0.0.9", tenant: world.tenantB, email: "ann@b.example")
            #expect(other.status == 200, "\(other.text)")
            let answers = try await flooded
            let limited = answers.filter { $0.status == 429 }
            #expect(!limited.isEmpty, "the flooding tenant's surplus was queued, not refused: \(answers.map(\.status))")
            #expect(limited.allSatisfy { $0.text.contains("\"rate_limited\"") && $0.text.contains("for this tenant") })
            #expect(answers.allSatisfy { $0.status == 429 || $0.status == 401 }, "\(answers.map(\.status))")
        }
    }

    @Test("failed logins from one address lock out that address only; the user logs in from another, an unknown email locks alike")
    func lockoutPerAddress() async throws {
        try await Self.with(logins: LoginLimits(perAddressPerMinute: 600, perAddressBurst: 600)) { world in
            for _ in 0..<5 {
                let wrong = try await world.login(from: "127.0.0.2", tenant: world.tenantA, email: "ann@a.example", password: "wrong password!")
                #expect(wrong.status == 401, "\(wrong.text)")
                let unknown = try await world.login(from: "127.0.0.2", tenant: world.tenantA, email: "nobody@a.example", password: "wrong password!")
                #expect(unknown.status == 401, "\(unknown.text)")
            }
            // The attacker's address is locked out, for a real email and an unknown one alike.
            let locked = try await world.login(from: "127.0.0.2", tenant: world.tenantA, email: "ann@a.example")
            let lockedUnknown = try await world.login(from: "127.0.0.2", tenant: world.tenantA, email: "nobody@a.example")
            #expect(locked.status == 429 && lockedUnknown.status == 429, "\(locked.text) \(lockedUnknown.text)")
            #expect(Self.body(locked.text) == Self.body(lockedUnknown.text))
            // The same first lockout (30 s) for both, counted from each one's fifth failure.
            for answer in [locked, lockedUnknown] { #expect(Self.retryAfter(answer.text).map { (1...30).contains($0) } == true) }
            // The real user, elsewhere, is not.
            let real = try await world.login(from: "127.0.0.3", tenant: world.tenantA, email: "ann@a.example")
            #expect(real.status == 200, "\(real.text)")
        }
    }

    /// The error of a raw response without its request id, for comparing two answers.
    static func body(_ text: String) -> String {
        let json = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        // The seconds left may differ by one between two lockouts begun a moment apart: compared by ``retryAfter(_:)``.
        let hasRetryAfter = retryAfter(text) != nil
        return "\(error?["code"] ?? "none") \(error?["message"] ?? "none") \(hasRetryAfter ? "retry-after" : "no retry-after")"
    }

    /// The Retry-After seconds of a raw response.
    static func retryAfter(_ text: String) -> Int? {
        text.lowercased().components(separatedBy: "\r\n").first { $0.hasPrefix("retry-after:") }
            .flatMap { Int($0.dropFirst("retry-after:".count).trimmingCharacters(in: .whitespaces)) }
    }
}

/// One HTTP/1.1 request on its own connection from a chosen local address (`Connection: close`), and the whole
/// response as text.
enum OneShotHTTP {
    static func post(port: Int, from source: String, path: String, json: String) async throws -> (status: Int, text: String) {
        let collector = ResponseCollector()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let request =
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
            + "Content-Length: \(json.utf8.count)\r\n\r\n\(json)"
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        try await channel.closeFuture.get()
        let text = collector.text
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, text)
    }

    final class ResponseCollector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let received = Mutex<[UInt8]>([])

        var text: String { String(decoding: received.withLock { $0 }, as: UTF8.self) }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLock { $0 += buffer.readableBytesView }
        }
    }
}
