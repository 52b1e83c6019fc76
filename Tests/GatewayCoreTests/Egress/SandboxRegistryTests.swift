import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import HTTPTypes
import Logging
import Synchronization
import Testing

/// A factory that hands back the context the registry made (and no adapter), so a test can see what transport and
/// base URL an adapter would get.
final class ContextCapturingFactory: BrokerAdapterFactory {
    struct Captured: Error {}
    let kind: BrokerKind
    let captured = Mutex<AdapterContext?>(nil)
    init(kind: BrokerKind) { self.kind = kind }
    var displayName: String { "capture" }
    var capabilities: Capabilities { Capabilities(operations: [:], assetClasses: [], orderTypes: [], timeInForce: []) }
    var credentialKeys: [String] { [] }
    var knownBaseURLs: [String: String] { [:] }
    var rateLimits: [RateLimitRule] { [] }
    func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        captured.withLock { $0 = context }
        throw Captured()
    }
    var context: AdapterContext? { captured.withLock { $0 } }
}

@Suite("Egress: sandbox:// connections and the URLs a link request holds")
struct SandboxRegistryTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func registry(
        _ transport: any BrokerTransport = ScriptedTransport { _, _ in BrokerResponse(status: 200) },
        egress: EgressPolicy = EgressPolicy(),
        factory: ContextCapturingFactory = ContextCapturingFactory(kind: .alpaca)
    ) -> AdapterRegistry {
        let registry = AdapterRegistry(factories: [factory], transport: transport, logger: logger, egress: egress)
        registry.registerSandbox("alpaca", broker: .alpaca, url: "http://127.0.0.1:40001/")
        registry.registerSandbox("saxo", broker: .saxo, url: "http://127.0.0.1:40002", basePath: "/sim/openapi")
        return registry
    }

    @Test("sandbox://<name> resolves to the running sandbox, with its base path, and names the origin it may reach")
    func resolvesSandboxes() throws {
        let registry = Self.registry()
        let alpaca = try registry.resolve(baseURL: "sandbox://alpaca")
        #expect(alpaca.url == "http://127.0.0.1:40001")
        #expect(alpaca.sandboxOrigin == EgressOrigin(scheme: "http", host: "127.0.0.1", port: 40001))
        #expect(try registry.resolve(baseURL: "sandbox://saxo").url == "http://127.0.0.1:40002/sim/openapi")
        let real = try registry.resolve(baseURL: "https://paper-api.alpaca.markets")
        #expect(real.url == "https://paper-api.alpaca.markets")
        #expect(real.sandboxOrigin == nil)
    }

    @Test(
        "any other sandbox: form is refused, the admin API above all",
        arguments: [
            "sandbox://alpaca/_sandbox/prices?x=", "sandbox://alpaca/", "sandbox://alpaca/v2", "sandbox://alpaca?x=1",
            "sandbox://alpaca#f", "sandbox://user@alpaca", "sandbox://alpaca:9", "sandbox:alpaca", "SANDBOX://alpaca/x",
            "sandbox://ALPACA", "sandbox://", "sandbox://saxo/sim/openapi",
        ]
    )
    func refusesOtherForms(_ configured: String) {
        let registry = Self.registry()
        #expect(throws: GatewayError.self) { try registry.resolve(baseURL: configured) }
        #expect(!registry.urlProblems(broker: .alpaca, baseURL: configured).isEmpty)
    }

    @Test("a sandbox that is not running here (the sandboxes are off) cannot be linked or called")
    func unknownSandbox() {
        let registry = Self.registry()
        #expect(throws: GatewayError.self) { try registry.resolve(baseURL: "sandbox://tradeit") }
        #expect(registry.urlProblems(broker: .tradeit, baseURL: "sandbox://tradeit").map(\.field) == ["baseURL"])
        #expect(registry.urlProblems(broker: .saxo, baseURL: "sandbox://alpaca").map(\.field) == ["baseURL"])
        #expect(registry.urlProblems(broker: .alpaca, baseURL: "sandbox://alpaca").isEmpty)
    }

    @Test(
        "base URLs: the checks that need no lookup, each a 422 problem on baseURL",
        arguments: [
            ("https://paper-api.alpaca.markets", true), ("https://gateway.saxobank.com/sim/openapi", true),
            ("http://127.0.0.1:40001", false), ("http://[::1]:8080", false), ("http://169.254.169.254", false),
            ("gopher://broker.example", false), ("https://u:p@broker.example", false), ("https://broker.example/a/../b", false),
            ("https://broker.example/?x=1", false), ("https://broker.example/#top", false), ("broker.example", false),
        ]
    )
    func baseURLs(_ url: String, _ accepted: Bool) {
        let problems = Self.registry().urlProblems(broker: .alpaca, baseURL: url)
        #expect(problems.isEmpty == accepted, "\(url): \(problems)")
        #expect(problems.allSatisfy { $0.field == "baseURL" })
    }

    @Test("an operator's allowed range is honoured at link time too")
    func allowedRangeAtLink() {
        let registry = Self.registry(egress: EgressPolicy(allowing: ["127.0.0.0/8"].compactMap(IPRange.init)))
        #expect(registry.urlProblems(broker: .alpaca, baseURL: "http://127.0.0.1:40001").isEmpty)
    }

    @Test("every URL-valued setting is checked like a base URL (dataBaseURL reached a UNIX socket with the keys)")
    func settingURLs() {
        let registry = Self.registry()
        let problems = registry.urlProblems(settings: [
            "dataBaseURL": "http+unix://%2Ftmp%2Fdocker.sock", "authBaseURL": "http://169.254.169.254/latest",
            "feed": "iex", "otherUrl": "https://data.alpaca.markets", "mirrorURL": "sandbox://alpaca",
            "note": "see http://10.0.0.1/",
        ])
        #expect(problems.map(\.field) == ["settings.authBaseURL", "settings.dataBaseURL", "settings.mirrorURL", "settings.note"])
        #expect(registry.urlProblems(settings: ["dataBaseURL": "https://data.alpaca.markets", "feed": "sip"]).isEmpty)
    }

    @Test("a sandbox connection's calls carry its sandbox origin; any other connection's calls carry none, whatever they say")
    func grantIsSetByTheRegistryOnly() async throws {
        let transport = ScriptedTransport { _, _ in BrokerResponse(status: 200) }
        let factory = ContextCapturingFactory(kind: .alpaca)
        let registry = Self.registry(transport, factory: factory)
        for (baseURL, expected) in [
            ("sandbox://alpaca", EgressOrigin(scheme: "http", host: "127.0.0.1", port: 40001)),
            ("https://paper-api.alpaca.markets", nil),
        ] as [(String, EgressOrigin?)] {
            let connection = ConnectionDescriptor(
                id: "conn_1",
                tenantId: "t",
                broker: .alpaca,
                displayName: "x",
                baseURL: baseURL,
                createdAt: Date(),
                updatedAt: Date()
            )
            #expect(throws: ContextCapturingFactory.Captured.self) {
                try registry.makeAdapter(for: connection, credentials: BrokerCredentials())
            }
            let context = try #require(factory.context)
            var forged = BrokerRequest(method: .get, url: context.baseURL + "/v2/account")
            forged.sandboxOrigin = EgressOrigin(scheme: "http", host: "127.0.0.1", port: 9)
            _ = try await context.transport.send(forged)
            #expect(transport.requests.last?.sandboxOrigin == expected, "\(baseURL)")
        }
    }
}
