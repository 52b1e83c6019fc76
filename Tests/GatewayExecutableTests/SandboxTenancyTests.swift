import AsyncHTTPClient
import BuiltInBrokers
import Foundation
import GatewayApp
import GatewayCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization
import TestWorlds
import Testing

@testable import BrokerGatewayServer
@testable import GatewaySQLiteStore
@testable import GatewayStore

/// The in-process sandboxes as tenants see them through `gateway serve`: every tenant that links a built-in sandbox
/// gets a simulated account of its own, and restarts renew the demo tenant's demo connections and no one else's.
@Suite("gateway serve: one sandbox account per tenant", .heavyWorld)
struct SandboxTenancyTests {
    /// Runs `buildGateway` for real on `directory` (port 0) until `body` returns, then shuts it down.
    func serve(
        _ directory: URL,
        _ body: @escaping @Sendable (_ base: String, _ gateway: Gateway) async throws -> Void
    ) async throws {
        let settings = try GatewaySettings(
            reader: try await GatewaySettings.reader(
                arguments: ["--port", "0", "--data-dir", directory.path],
                environment: [:]
            )
        )
        let logger = Logger(label: "tenancy-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let process = try await buildGateway(settings: settings, brokers: .builtIn, environment: [:], logger: logger) { port in
            continuation.yield(port)
        }
        let group = ServiceGroup(configuration: .init(services: process.services.map { .init(service: $0) }, logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            do {
                try await body("http://127.0.0.1:\(port)", process.gateway)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// A request with a key; the status and the JSON object answered.
    func call(
        _ base: String,
        _ key: String,
        _ method: HTTPMethod,
        _ path: String,
        json: String? = nil
    ) async throws
        -> (status: Int, body: [String: Any])
    {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 22)
        let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
        return (Int(response.status.code), object)
    }

    func demoKey(_ directory: URL) throws -> String {
        try String(contentsOf: directory.appendingPathComponent("demo-api-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A second tenant and its key, made the way an operator does.
    func otherTenant(_ gateway: Gateway) async throws -> String {
        let tenant = try await gateway.tenancy.createTenant(name: "Tenant B")
        return try await gateway.tenancy.issueDefaultUserKey(tenant: tenant, label: "b").plaintext
    }

    func connection(_ base: String, _ key: String, broker: String) async throws -> [String: Any] {
        let list = try await call(base, key, .GET, "/v1/connections").body["data"] as? [[String: Any]] ?? []
        return try #require(list.first { $0["broker"] as? String == broker })
    }

    func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-tenancy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static let demoAlpaca = #"{"keyId":"SANDBOX-ALPACA-KEY","secretKey":"SANDBOX-ALPACA-SECRET"}"#

    @Test func aTenantLinkingTheAlpacaSandboxWithTheDemoKeysNeverReachesTheDemoAccount() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await serve(directory) { base, gateway in
            let demo = try demoKey(directory)
            let demoAlpaca = try await connection(base, demo, broker: "alpaca")
            let demoConnection = try #require(demoAlpaca["id"] as? String)
            let accounts = try await call(base, demo, .GET, "/v1/accounts?broker=alpaca").body["data"] as? [[String: Any]] ?? []
            let demoAccount = try #require(accounts.first?["id"] as? String)
            // The demo tenant buys TSLA (its account holds none at first) and leaves a limit order working.
            let bought = try await call(
                base,
                demo,
                .POST,
                "/v1/orders",
                json: #"""
                    {"connectionId":"\#(demoConnection)","accountId":"\#(demoAccount)","symbol":"TSLA","side":"buy","type":"market","quantity":"3"}
                    """#
            )
            #expect(bought.status == 201, "\(bought.body)")
            let working = try await call(
                base,
                demo,
                .POST,
                "/v1/orders",
                json: #"""
                    {"connectionId":"\#(demoConnection)","accountId":"\#(demoAccount)","symbol":"AAPL","side":"buy","type":"limit","timeInForce":"gtc","quantity":"1","limitPrice":"1.00"}
                    """#
            )
            #expect(working.status == 201, "\(working.body)")
            let demoOrder = try #require((working.body["data"] as? [String: Any])?["id"] as? String)
            let demoBrokerOrder = try #require((working.body["data"] as? [String: Any])?["brokerOrderId"] as? String)

            // Tenant B links the same sandbox with the public demo keys.
            let b = try await otherTenant(gateway)
            let linked = try await call(
                base,
                b,
                .POST,
                "/v1/connections",
                json: #"""
                    {"broker":"alpaca","baseURL":"sandbox://alpaca","credentials":\#(Self.demoAlpaca)}
                    """#
            )
            #expect(linked.status == 201, "\(linked.body)")
            let bConnection = try #require((linked.body["data"] as? [String: Any])?["id"] as? String)

            let positions = try await call(base, b, .GET, "/v1/positions").body
            #expect(positions["partial"] as? Bool == false)
            let symbols = (positions["data"] as? [[String: Any]] ?? []).compactMap { ($0["instrument"] as? [String: Any])?["symbol"] as? String }
            #expect(!symbols.isEmpty, "B's own account starts with holdings of its own")
            #expect(!symbols.contains("TSLA"), "the demo tenant's TSLA is not in B's account")
            let orders = try await call(base, b, .GET, "/v1/orders?status=all").body["data"] as? [[String: Any]] ?? []
            #expect(!orders.contains { $0["brokerOrderId"] as? String == demoBrokerOrder })
            #expect(orders.isEmpty)
            let bAccounts = try await call(base, b, .GET, "/v1/accounts").body["data"] as? [[String: Any]] ?? []
            #expect(bAccounts.first?["id"] as? String != demoAccount)

            // Neither the demo's order id nor one B derives for its own connection reaches the demo's order.
            #expect(try await call(base, b, .DELETE, "/v1/orders/\(demoOrder)").status == 404)
            let raw = Data("\(bConnection)\n\(demoBrokerOrder)".utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let forged = try await call(base, b, .DELETE, "/v1/orders/ord_\(raw)")
            #expect(forged.status == 404, "\(forged.body)")
            let still = try await call(base, demo, .GET, "/v1/orders/\(demoOrder)").body["data"] as? [String: Any]
            #expect(still?["status"] as? String == "open")
        }
    }

    @Test func aRestartRenewsTheDemoTenantsConnectionsAndNoOneElses() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let b = TenantKey()
        try await serve(directory) { base, gateway in
            let key = try await otherTenant(gateway)
            b.set(key)
            for (name, credentials) in [("With the demo keys", Self.demoAlpaca), ("With any keys", #"{"keyId":"x","secretKey":"y"}"#)] {
                let linked = try await call(
                    base,
                    key,
                    .POST,
                    "/v1/connections",
                    json: #"""
                        {"broker":"alpaca","displayName":"\#(name)","baseURL":"sandbox://alpaca","credentials":\#(credentials)}
                        """#
                )
                #expect(linked.status == 201, "\(linked.body)")
            }
            #expect(try await call(base, key, .GET, "/v1/balances").body["partial"] as? Bool == false)
        }
        // The sandboxes keep their state in the data folder (`SandboxRestartTests` and `RestartTests` cover that);
        // without it (a data folder from before they kept one) they start empty, which is what this test is about.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("sandboxes"))
        try await serve(directory) { base, _ in
            // The demo tenant's four demo connections were renewed and answer.
            let demo = try demoKey(directory)
            let demoConnections = try await call(base, demo, .GET, "/v1/connections").body["data"] as? [[String: Any]] ?? []
            #expect(demoConnections.count == 4)
            #expect(demoConnections.allSatisfy { $0["status"] as? String == "active" }, "\(demoConnections)")
            let demoRead = try await call(base, demo, .GET, "/v1/positions").body
            #expect(demoRead["partial"] as? Bool == false, "\(demoRead["sources"] ?? "")")

            // B's connections held accounts the sandboxes forgot: they say so, and are not the demo account now.
            let key = try #require(b.value)
            let theirs = try await call(base, key, .GET, "/v1/connections").body["data"] as? [[String: Any]] ?? []
            #expect(theirs.count == 2)
            #expect(theirs.allSatisfy { $0["status"] as? String == "relink_required" }, "\(theirs)")
            #expect(try await call(base, key, .GET, "/v1/positions").body["partial"] as? Bool == true)

            // A relink provisions a fresh account: active at once for a broker that links with credentials.
            let alpaca = try await connection(base, key, broker: "alpaca")
            let id = try #require(alpaca["id"] as? String)
            let relinked = try await call(base, key, .POST, "/v1/connections/\(id)/relink")
            #expect(relinked.status == 201, "\(relinked.body)")
            #expect((relinked.body["data"] as? [String: Any])?["status"] as? String == "active")
            let read = try await call(base, key, .GET, "/v1/positions?connection=\(id)").body
            #expect(read["partial"] as? Bool == false, "\(read)")
            #expect(!(read["data"] as? [Any] ?? []).isEmpty)
            // The other one still waits for its relink.
            let all = try await call(base, key, .GET, "/v1/positions").body
            #expect(all["partial"] as? Bool == true)
        }
    }
}

extension SandboxTenancyTests {
    @Test func aDataFolderFromBeforeTheDemoTenantWasRecordedAdoptsTheTenantOfTheDemoKey() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let b = TenantKey()
        try await serve(directory) { base, gateway in
            let key = try await otherTenant(gateway)
            b.set(key)
            let linked = try await call(
                base,
                key,
                .POST,
                "/v1/connections",
                json: #"""
                    {"broker":"alpaca","baseURL":"sandbox://alpaca","credentials":\#(Self.demoAlpaca)}
                    """#
            )
            #expect(linked.status == 201, "\(linked.body)")
        }
        // An older gateway recorded no demo tenant.
        let store = try SQLiteStore.open(dataDirectory: directory, environment: [:])
        try await store.executeRaw("DELETE FROM store_meta WHERE key = 'demo_tenant_id'")
        #expect(try await store.demoTenantId() == nil)
        try store.close()
        // Nor did it keep its sandboxes' state: they start empty.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("sandboxes"))

        try await serve(directory) { base, gateway in
            let demo = try demoKey(directory)
            let demoConnections = try await call(base, demo, .GET, "/v1/connections").body["data"] as? [[String: Any]] ?? []
            #expect(demoConnections.count == 4)
            #expect(demoConnections.allSatisfy { $0["status"] as? String == "active" }, "\(demoConnections)")
            #expect(try await gateway.sandboxes.demoTenant() == gateway.tenancy.tenant(forAPIKey: demo))
            let key = try #require(b.value)
            let theirs = try await call(base, key, .GET, "/v1/connections").body["data"] as? [[String: Any]] ?? []
            #expect(theirs.map { $0["status"] as? String } == ["relink_required"])
        }
    }
}

/// The second tenant's key, carried from the first run of the gateway to the second.
final class TenantKey: Sendable {
    let stored = Mutex<String?>(nil)
    var value: String? { stored.withLock { $0 } }
    func set(_ key: String) { stored.withLock { $0 = key } }
}
