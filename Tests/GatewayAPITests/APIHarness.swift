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
import Testing

/// One gateway per test: its own temporary data folder and SQLite file, fake brokers, a tenant and its key.
struct APIHarness {
    let gateway: Gateway
    let store: SQLiteStore
    let state: FakeBrokerState
    let tenant: Tenant
    let apiKey: String
    /// The user the harness key is bound to (the tenant's default user).
    let userId: String
    let directory: URL

    static func with<T: Sendable>(
        router: BrokerRouter = BrokerRouter(perSourceTimeout: .seconds(2), overallTimeout: .seconds(3)),
        bodies: HTTPBodies = HTTPBodies(),
        orderSettings: OrderSettings = OrderSettings(),
        directory existing: URL? = nil,
        cipher: CredentialCipher = .random(),
        brokerState: FakeBrokerState = FakeBrokerState(),
        pipeline: BrokerPipeline = BrokerPipeline(),
        transport: any BrokerTransport = ScriptedTransport.unused(),
        defaultReadMaxAge: Duration = .zero,
        limits: TenantLimits = TenantLimits(),
        moreFactories: [any BrokerAdapterFactory] = [],
        linking: LinkSettings = LinkSettings(),
        sessions: SessionSettings = SessionSettings(passwordCost: 10),
        alerts: AlertSettings = AlertSettings(),
        logger: Logger = Logger(label: "test"),
        _ body: @escaping @Sendable (APIHarness, any TestClientProtocol) async throws -> T
    ) async throws -> T {
        let directory = existing ?? FileManager.default.temporaryDirectory.appendingPathComponent("bg-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if existing == nil { try? FileManager.default.removeItem(at: directory) } }
        let store = try await SQLiteStore.opening(path: directory.appendingPathComponent("gateway.sqlite").path, cipher: cipher)
        let state = brokerState
        let registry = AdapterRegistry(
            factories: [FakeBrokerFactory(kind: .alpaca, state: state), FakeBrokerFactory(kind: .saxo, state: state)] + moreFactories,
            transport: transport,
            logger: logger,
            pipeline: pipeline
        )
        let gateway = Gateway(
            store: store,
            registry: registry,
            router: router,
            logger: logger,
            orderSettings: orderSettings,
            defaultReadMaxAge: defaultReadMaxAge,
            limits: limits,
            linking: linking,
            sessions: sessions,
            alerts: alerts
        )
        let tenant = try await store.createTenant(name: "Tenant A")
        let key = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "test")
        let harness = APIHarness(
            gateway: gateway,
            store: store,
            state: state,
            tenant: tenant,
            apiKey: key.plaintext,
            userId: try #require(key.info.userId),
            directory: directory
        )
        let app = Application(router: try GatewayServer.router(gateway: gateway, bodies: bodies), logger: logger)
        return try await app.test(.router) { client in try await body(harness, client) }
    }

    /// Links a fake connection of the harness user (or of another tenant's default user) straight through the store
    /// (the API path is tested on its own).
    @discardableResult
    func link(_ broker: BrokerKind, baseURL: String, tenant: Tenant? = nil) async throws -> ConnectionDescriptor {
        let owner = if let tenant { try await store.defaultUser(tenantId: tenant.id).id } else { userId }
        return try await store.createConnection(
            tenantId: (tenant ?? self.tenant).id,
            userId: owner,
            NewConnection(broker: broker, displayName: "\(broker) test", baseURL: baseURL, credentials: BrokerCredentials(["token": "good"]))
        )
    }

    /// The tenant's key, JSON, and a fresh idempotency key (so order placements in tests are each new).
    var auth: HTTPFields {
        [.authorization: "Bearer \(apiKey)", .contentType: "application/json", HTTPField.Name("Idempotency-Key")!: UUID().uuidString]
    }
}

extension ScriptedTransport {
    /// Fake brokers make no HTTP calls; this transport proves it: every call it sees is a test failure.
    static func unused() -> ScriptedTransport {
        ScriptedTransport().onUnscripted { Issue.record("unexpected HTTP call \($0.method) \($0.url)") }
    }
}

extension TestClientProtocol {
    /// Sends a request and returns status and parsed JSON body.
    func call(
        _ method: HTTPRequest.Method,
        _ uri: String,
        headers: HTTPFields,
        json: String? = nil
    ) async throws -> (status: Int, body: [String: Any], headers: HTTPFields) {
        try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { response in
            let data = Data(response.body.readableBytesView)
            let object = data.isEmpty ? [:] : ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
            return (Int(response.status.code), object, response.headers)
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    var error: [String: Any]? { self["error"] as? [String: Any] }
    var errorCode: String? { error?["code"] as? String }
    var detailFields: [String] { (error?["details"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String } }
    var dataList: [[String: Any]] { self["data"] as? [[String: Any]] ?? [] }
    var dataObject: [String: Any] { self["data"] as? [String: Any] ?? [:] }
}
