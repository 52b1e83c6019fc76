import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import Logging
import Testing

@testable import GatewayAPI

/// An open `/v1/stream` lasts only as long as what opened it: revoking its key, logging its session out or deleting
/// its user ends it with an `error` event, at the next change of the store (its change stamp) or the next heartbeat.
@Suite("Streams: a revoked credential ends the streams it opened")
struct StreamRevocationTests {
    /// A gateway over its own SQLite file (no brokers: order streams need none), its tenant and a bound key.
    struct World: Sendable {
        let gateway: Gateway
        let store: SQLiteStore
        let tenant: Tenant
        let key: String
        let keyId: String
        let userId: String

        /// The principal a request with `key` acting for `user` would have on `GET /v1/stream` (scope `read`).
        func principal(key: String, user: String? = nil) async throws -> Principal {
            try await gateway.tenancy.principal(apiKey: key, requiredScope: .read, actingFor: user, userScoped: true)
        }
    }

    static func with(streams: StreamSettings, _ body: @Sendable (World) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-stream-revoke-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteStore.opening(path: directory.appendingPathComponent("gateway.sqlite").path, cipher: .random())
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let gateway = Gateway(
            store: store,
            registry: AdapterRegistry(factories: [], transport: ScriptedTransport.unused(), logger: logger),
            router: BrokerRouter(perSourceTimeout: .seconds(2), overallTimeout: .seconds(3)),
            logger: logger,
            sessions: SessionSettings(passwordCost: 10),
            streams: streams
        )
        let tenant = try await store.createTenant(name: "streams")
        let issued = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "stream")
        try await body(
            World(
                gateway: gateway,
                store: store,
                tenant: tenant,
                key: issued.plaintext,
                keyId: issued.info.id,
                userId: try #require(issued.info.userId)
            )
        )
    }

    /// Re-checks driven by the change stamp alone: a heartbeat far beyond the test's bound, the stamp read often.
    static let byStamp = StreamSettings(feedInterval: .milliseconds(50), heartbeatInterval: .seconds(3600))
    /// Re-checks driven by the heartbeat alone: the stamp (and the order feed) read far beyond the test's bound.
    static let byHeartbeat = StreamSettings(feedInterval: .seconds(3600), heartbeatInterval: .milliseconds(100))

    /// Opens an order stream for `principal` and waits for its `ready` (the stream's messages after it follow).
    static func open(_ world: World, _ principal: Principal) async throws -> AsyncStream<StreamEvent> {
        let stream = try await world.gateway.streams.stream(
            principal: principal,
            StreamSubscription(orders: true),
            lastEventId: nil
        )
        var events = stream.makeAsyncIterator()
        guard case .ready = try #require(await events.next()) else {
            Issue.record("a stream's first message is not ready")
            return stream
        }
        return stream
    }

    /// The stream's last message: the `error` it ends with, and that nothing follows it. Bounded: a stream still open
    /// after `bound` (far less than the heartbeat of a stamp-driven test) has not been ended by the revocation.
    static func ending(
        _ events: AsyncStream<StreamEvent>,
        within bound: Duration = .seconds(20)
    ) async throws -> StreamError? {
        try await withThrowingTaskGroup(of: StreamError?.self) { group in
            group.addTask {
                var ended: StreamError?
                for await event in events {
                    if ended != nil {
                        Issue.record("a message followed the stream's error: \(event)")
                        break
                    }
                    if case .error(let problem) = event { ended = problem }
                }
                return ended
            }
            group.addTask {
                try await Task.sleep(for: bound)
                Issue.record("the stream was still open \(bound) after its credential was revoked")
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test("revoking the key ends its stream at the next change of the store", arguments: [byStamp, byHeartbeat])
    func revokedKey(settings: StreamSettings) async throws {
        try await Self.with(streams: settings) { world in
            let events = try await Self.open(world, try await world.principal(key: world.key))
            #expect(try await world.store.revokeAPIKey(tenantId: world.tenant.id, keyId: world.keyId))
            let problem = try await Self.ending(events)
            #expect(problem?.code == "unauthorized", "\(String(describing: problem))")
            #expect(problem?.message.contains("revoked") == true)
        }
    }

    @Test("logging a session out ends the streams it opened", arguments: [byStamp, byHeartbeat])
    func loggedOutSession(settings: StreamSettings) async throws {
        try await Self.with(streams: settings) { world in
            let keyPrincipal = try await world.principal(key: world.key)
            let code = try await world.gateway.sessions.mintLoginCode(principal: keyPrincipal, userId: world.userId).code
            let issued = try await world.gateway.sessions.login(
                LoginRequest(
                    tenantId: world.tenant.id,
                    code: code,
                    device: NewDevice(name: "phone", type: "ios", fingerprint: "phone")
                )
            )
            let session = try await world.gateway.sessions.principal(
                accessToken: issued.accessToken,
                requiredScope: .read,
                actingFor: nil,
                deviceHeader: nil
            )
            let events = try await Self.open(world, session)
            #expect(try await world.gateway.sessions.logout(session, .session) == 1)
            let problem = try await Self.ending(events)
            #expect(problem?.code == "unauthorized", "\(String(describing: problem))")
            #expect(problem?.message.contains("session") == true)
        }
    }

    @Test("deleting the user ends the streams acting for them, even with an unbound key", arguments: [byStamp, byHeartbeat])
    func deletedUser(settings: StreamSettings) async throws {
        try await Self.with(streams: settings) { world in
            let ann = try await world.store.createUser(tenantId: world.tenant.id, NewUser(externalId: "ann"), audit: nil)
            let backend = try await world.store.issueAPIKey(
                tenantId: world.tenant.id,
                label: "backend",
                scopes: ["read", "trade"],
                userId: nil,
                audit: nil
            )
            let events = try await Self.open(world, try await world.principal(key: backend.plaintext, user: ann.id))
            try await world.gateway.tenancy.deleteUser(tenant: world.tenant, actor: "test", id: ann.id)
            let problem = try await Self.ending(events)
            #expect(problem?.code == "forbidden", "\(String(describing: problem))")
            #expect(problem?.message.contains("deleted") == true)
        }
    }

    @Test("disabling the tenant ends its streams")
    func disabledTenant() async throws {
        try await Self.with(streams: Self.byStamp) { world in
            let events = try await Self.open(world, try await world.principal(key: world.key))
            _ = try await world.gateway.tenancy.disableTenant(id: world.tenant.id)
            let problem = try await Self.ending(events)
            #expect(problem?.code == "forbidden", "\(String(describing: problem))")
        }
    }

    @Test("a change that leaves the credential standing does not end the stream")
    func unrelatedChangeKeepsTheStream() async throws {
        try await Self.with(streams: StreamSettings(feedInterval: .milliseconds(50), heartbeatInterval: .milliseconds(100))) { world in
            let events = try await Self.open(world, try await world.principal(key: world.key))
            // Another key revoked: the stamp moves, this stream's key stands.
            let other = try await world.store.issueAPIKey(
                tenantId: world.tenant.id,
                label: "other",
                scopes: ["read"],
                userId: nil,
                audit: nil
            )
            #expect(try await world.store.revokeAPIKey(tenantId: world.tenant.id, keyId: other.id))
            // Three heartbeats in a row, each after a re-check, and no error among them.
            var heartbeats = 0
            for await event in events {
                if case .error(let problem) = event {
                    Issue.record("the stream ended: \(problem)")
                    return
                }
                if case .heartbeat = event { heartbeats += 1 }
                if heartbeats == 3 { break }
            }
            #expect(heartbeats == 3)
        }
    }

    @Test("the error event is written as a server-sent event with its code and message")
    func errorEventText() throws {
        let text = String(
            decoding: ServerSentEventText.encode(.error(StreamError(code: "unauthorized", message: "the key was revoked"))),
            as: UTF8.self
        )
        #expect(text.hasPrefix("event: error\ndata: "), "\(text)")
        let data = try #require(text.split(separator: "\n").first { $0.hasPrefix("data: ") }?.dropFirst(6))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        #expect(object["code"] as? String == "unauthorized" && object["message"] as? String == "the key was revoked")
    }
}
