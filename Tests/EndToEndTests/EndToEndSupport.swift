import AlpacaAdapter
import AsyncHTTPClient
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
import Logging
import NIOCore
import NIOHTTP1
import Sandbox
import SaxoAdapter
import Synchronization
import TestWorlds
import Testing
import TradeItAdapter
import TradeOgreAdapter

/// A gateway in-process (its own temporary database) in front of one sandbox broker on loopback.
struct Loopback: Sendable {
    let sandboxURL: String
    let apiKey: String
    let gateway: Gateway
    let tenant: Tenant
    /// The gateway's store, for checking what it wrote (the gateway keeps its own private).
    let store: SQLiteStore
    /// Every HTTP call the gateway's adapters made to the sandbox.
    let upstream: ScriptedTransport

    var auth: HTTPFields {
        [.authorization: "Bearer \(apiKey)", .contentType: "application/json", HTTPField.Name("Idempotency-Key")!: UUID().uuidString]
    }

    static func with(
        _ simulator: some SandboxSimulator,
        limits: TenantLimits = TenantLimits(),
        router: BrokerRouter = .unhurried,
        _ body: @escaping @Sendable (Loopback, any TestClientProtocol) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-loop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSandbox(simulator) { url in
            let logger = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
            let store = try await SQLiteStore.opening(
                path: directory.appendingPathComponent("gateway.sqlite").path,
                cipher: .random(),
                logger: logger
            )
            let upstream = ScriptedTransport { try await HTTPClientTransport.loopbackForTests.send($0) }
            let registry = AdapterRegistry(
                factories: [AlpacaAdapterFactory(), SaxoAdapterFactory(), TradeItAdapterFactory(), TradeOgreAdapterFactory()],
                transport: upstream,
                logger: logger,
                egress: .loopbackForTests
            )
            let gateway = Gateway(store: store, registry: registry, router: router, logger: logger, limits: limits)
            let tenant = try await store.createTenant(name: "e2e")
            let key = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "e2e")
            let app = Application(router: try GatewayServer.router(gateway: gateway), logger: logger)
            let world = Loopback(
                sandboxURL: url.absoluteString,
                apiKey: key.plaintext,
                gateway: gateway,
                tenant: tenant,
                store: store,
                upstream: upstream
            )
            try await app.test(.router) { client in try await body(world, client) }
        }
    }

    func call(
        _ client: any TestClientProtocol,
        _ method: HTTPRequest.Method,
        _ uri: String,
        json: String? = nil,
        headers: HTTPFields? = nil
    )
        async throws -> (status: Int, body: [String: Any], headers: HTTPFields)
    {
        try await client.execute(uri: uri, method: method, headers: headers ?? auth, body: json.map { ByteBuffer(string: $0) }) { response in
            let data = Data(response.body.readableBytesView)
            let object = data.isEmpty ? [:] : ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
            return (Int(response.status.code), object, response.headers)
        }
    }
}

extension Loopback {
    /// Links the Alpaca sandbox's demo account through the API; the connection id.
    func linkAlpacaDemo(_ client: any TestClientProtocol) async throws -> String {
        let linked = try await call(
            client,
            .post,
            "/v1/connections",
            json: """
                {"broker":"alpaca","displayName":"paper","baseURL":"\(sandboxURL)",
                 "credentials":{"keyId":"\(AlpacaSandboxAccount.demoKeyID)","secretKey":"\(AlpacaSandboxAccount.demoSecretKey)"}}
                """
        )
        #expect(linked.status == 201, "\(linked.body)")
        return try #require(linked.body.data["id"] as? String)
    }

    /// Links a TradeIt user the sandbox has already linked (its user id and token), with credentials, as a client
    /// that holds them does: no login popup. The whole answer.
    func linkTradeIt(
        _ client: any TestClientProtocol,
        _ user: (userId: String, userToken: String)
    ) async throws
        -> (status: Int, body: [String: Any], headers: HTTPFields)
    {
        try await call(
            client,
            .post,
            "/v1/connections",
            json: """
                {"broker":"tradeit","displayName":"Dummy","baseURL":"\(sandboxURL)","settings":{"brokerShortName":"Dummy"},
                 "credentials":{"apiKey":"\(TradeItSandboxConfiguration.demoAPIKey)","userId":"\(user.userId)","userToken":"\(user.userToken)"}}
                """
        )
    }
}

extension Dictionary where Key == String, Value == Any {
    var data: [String: Any] { self["data"] as? [String: Any] ?? [:] }
    var list: [[String: Any]] { self["data"] as? [[String: Any]] ?? [] }
    var sources: [[String: Any]] { self["sources"] as? [[String: Any]] ?? [] }
}

/// A GET straight to a sandbox, without following redirects.
func rawGET(_ url: String, headers: [(String, String)] = []) async throws -> (status: Int, location: String?, body: Data) {
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    defer { _ = client.shutdown() }
    var request = HTTPClientRequest(url: url)
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await client.execute(request, timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 1 << 22)
    return (Int(response.status.code), response.headers.first(name: "Location"), Data(body.readableBytesView))
}
