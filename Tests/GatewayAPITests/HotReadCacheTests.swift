import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LogCapture
import Logging
import Testing

/// A gateway on a SQLite file whose statements are counted, a tenant and its key, the server in process; and a second
/// store on the same file standing in for another process (the operator CLI, another instance).
struct CachedGatewayHarness {
    let store: SQLiteStore
    let otherProcess: SQLiteStore
    /// The store's log at `trace`: a `sqlite statement` line, its SQL in `sql`, for every statement it runs.
    let storeLog: LogCapture
    let tenant: Tenant
    let key: IssuedAPIKey
    let userId: String

    /// The SQL of every statement the gateway's store ran so far, in order.
    var statements: [String] {
        storeLog.entries.filter { $0.message == "sqlite statement" }.compactMap { $0.metadataText("sql") }
    }

    /// How many statements so far read `table` (`FROM <table> ` in their SQL), to count the reads a cache saves.
    func reads(of table: String) -> Int {
        statements.filter { $0.contains("FROM \(table) ") }.count
    }

    var auth: HTTPFields { [.authorization: "Bearer \(key.plaintext)", .contentType: "application/json"] }

    static func with(_ body: @escaping @Sendable (CachedGatewayHarness, any TestClientProtocol) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-hot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("gateway.sqlite").path
        let cipher = CredentialCipher.random()
        let (storeLogger, storeLog) = LogCapture.logger(label: "store-trace")
        let store = try await SQLiteStore.opening(path: path, cipher: cipher, logger: storeLogger)
        let otherProcess = try await SQLiteStore.opening(path: path, cipher: cipher)
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let state = FakeBrokerState()
        let registry = AdapterRegistry(
            factories: [FakeBrokerFactory(kind: .alpaca, state: state), FakeBrokerFactory(kind: .saxo, state: state)],
            transport: ScriptedTransport.unused(),
            logger: logger
        )
        let gateway = Gateway(store: store, registry: registry, router: BrokerRouter(), logger: logger)
        let tenant = try await store.createTenant(name: "Tenant A")
        let key = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "test")
        let harness = CachedGatewayHarness(
            store: store,
            otherProcess: otherProcess,
            storeLog: storeLog,
            tenant: tenant,
            key: key,
            userId: try #require(key.info.userId)
        )
        let app = Application(router: try GatewayServer.router(gateway: gateway), logger: logger)
        try await app.test(.router) { client in try await body(harness, client) }
    }

    @discardableResult
    func link(_ broker: BrokerKind) async throws -> ConnectionDescriptor {
        try await store.createConnection(
            tenantId: tenant.id,
            userId: userId,
            NewConnection(
                broker: broker,
                displayName: "\(broker) test",
                baseURL: "https://\(broker).example",
                credentials: BrokerCredentials(["token": "good"])
            )
        )
    }
}

@Suite("The key and connection-list cache: warm reads skip the store, every write is seen at once")
struct HotReadCacheTests {
    @Test("a warm cache reads neither the key nor the connection list from the store")
    func warmCacheSkipsTheStore() async throws {
        try await CachedGatewayHarness.with { harness, client in
            try await harness.link(.alpaca)
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).status == 200)
            let keyReads = harness.reads(of: "api_keys k")
            let listReads = harness.reads(of: "connections")
            #expect(keyReads >= 1 && listReads >= 1, "the first request reads both: \(harness.statements)")
            for _ in 0..<3 {
                let answer = try await client.call(.get, "/v1/connections", headers: harness.auth)
                #expect(answer.status == 200 && answer.body.dataList.count == 1)
            }
            #expect(harness.reads(of: "api_keys k") == keyReads)
            #expect(harness.reads(of: "connections") == listReads)
        }
    }

    @Test("a key revoked through another store on the same file is refused on the next request, the cache warm")
    func revocationByAnotherProcess() async throws {
        try await CachedGatewayHarness.with { harness, client in
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).status == 200)
            let keyReads = harness.reads(of: "api_keys k")
            #expect(keyReads >= 1, "the first request reads the key")
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).status == 200)
            #expect(harness.reads(of: "api_keys k") == keyReads, "the cache is warm")

            #expect(try await harness.otherProcess.revokeAPIKey(tenantId: harness.tenant.id, keyId: harness.key.id, audit: nil))
            let refused = try await client.call(.get, "/v1/connections", headers: harness.auth)
            #expect(refused.status == 401 && refused.body.errorCode == "unauthorized")
        }
    }

    @Test("a tenant disabled through another store is refused on the next request")
    func disabledByAnotherProcess() async throws {
        try await CachedGatewayHarness.with { harness, client in
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).status == 200)
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).status == 200)
            _ = try await harness.otherProcess.disableTenant(id: harness.tenant.id, audit: nil)
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).status == 403)
        }
    }

    @Test("a connection deleted through the API or through another store is gone from the next read")
    func deletedConnectionDisappears() async throws {
        try await CachedGatewayHarness.with { harness, client in
            let first = try await harness.link(.alpaca)
            let second = try await harness.link(.saxo)
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).body.dataList.count == 2)
            let listReads = harness.reads(of: "connections")
            #expect(listReads >= 1, "the first request reads the list")
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).body.dataList.count == 2)
            #expect(harness.reads(of: "connections") == listReads, "the cache is warm")

            #expect(try await harness.otherProcess.deleteConnection(tenantId: harness.tenant.id, id: first.id))
            let afterOther = try await client.call(.get, "/v1/connections", headers: harness.auth)
            #expect(afterOther.body.dataList.compactMap { $0["id"] as? String } == [second.id])
            let positions = try await client.call(.get, "/v1/positions", headers: harness.auth)
            #expect((positions.body["sources"] as? [[String: Any]])?.compactMap { $0["connection"] as? String } == [second.id])

            #expect(try await client.call(.delete, "/v1/connections/\(second.id)", headers: harness.auth).status == 204)
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).body.dataList.isEmpty)
        }
    }

    @Test("a connection linked through the store is in the next read")
    func newConnectionAppears() async throws {
        try await CachedGatewayHarness.with { harness, client in
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).body.dataList.isEmpty)
            #expect(try await client.call(.get, "/v1/connections", headers: harness.auth).body.dataList.isEmpty)
            let linked = try await harness.link(.alpaca)
            let listed = try await client.call(.get, "/v1/connections", headers: harness.auth)
            #expect(listed.body.dataList.compactMap { $0["id"] as? String } == [linked.id])
        }
    }
}
