import AlpacaAdapter
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
import Sandbox
import SaxoAdapter
import TestWorlds
import Testing
import TradeItAdapter
import TradeOgreAdapter

/// Linking keeps what proving the credentials did at the broker (issue 15, item 1), Saxo's access tokens alone
/// (item 2), and reads that do not wait on an unrelated call (item 5).
@Suite("End to end: linking keeps what its proof did", .heavyWorld)
struct LinkingEndToEndTests {
    // MARK: Saxo: single-use refresh tokens, across a restart

    /// One gateway process over a data folder: its own store object, registry and adapters, so a second one over the
    /// same file and key is what a restarted gateway is.
    struct Process {
        let app: Application<RouterResponder<APIContext>>
        let store: SQLiteStore

        init(path: String, cipher: CredentialCipher) async throws {
            let logger = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
            store = try await SQLiteStore.opening(path: path, cipher: cipher, logger: logger)
            let registry = AdapterRegistry(
                factories: [AlpacaAdapterFactory(), SaxoAdapterFactory(), TradeItAdapterFactory(), TradeOgreAdapterFactory()],
                transport: HTTPClientTransport.loopbackForTests,
                logger: logger,
                egress: .loopbackForTests
            )
            let gateway = Gateway(store: store, registry: registry, router: .unhurried, logger: logger)
            app = Application(router: try GatewayServer.router(gateway: gateway), logger: logger)
        }

        func call(_ key: String, _ method: HTTPRequest.Method, _ uri: String, json: String? = nil) async throws -> [String: Any] {
            try await app.test(.router) { client in
                try await client.execute(
                    uri: uri,
                    method: method,
                    headers: [.authorization: "Bearer \(key)", .contentType: "application/json"],
                    body: json.map { ByteBuffer(string: $0) }
                ) { response in
                    var object = (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:]
                    object["status"] = Int(response.status.code)
                    return object
                }
            }
        }
    }

    @Test func aSingleUseRefreshTokenKeepsRotatingAcrossARestart() async throws {
        let clock = ManualClock()
        let sandbox = SaxoSandbox(
            configuration: SaxoSandboxConfiguration(sessionOrdersPerSecond: nil),
            market: MarketEngine(clock: clock)
        )
        let pair = sandbox.issueTokens()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("gateway.sqlite").path
        let cipher = try CredentialCipher(keyBytes: (0..<32).map { UInt8($0) })

        try await withSandbox(sandbox) { url in
            let first = try await Process(path: path, cipher: cipher)
            let tenant = try await first.store.createTenant(name: "restart")
            let key = try await first.store.issueDefaultUserKey(tenantId: tenant.id, label: "restart").plaintext
            let linked = try await first.call(
                key,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"saxo","displayName":"SIM","baseURL":"\(url.absoluteString)/sim/openapi",
                     "credentials":{"appKey":"\(SaxoSandboxConfiguration.demoAppKey)","appSecret":"\(SaxoSandboxConfiguration.demoAppSecret)",
                                    "refreshToken":"\(pair.refreshToken)"}}
                    """
            )
            #expect(linked["status"] as? Int == 201, "\(linked)")
            let id = try #require((linked["data"] as? [String: Any])?["id"] as? String)
            for _ in 0..<2 {
                clock.advance(by: 1300)
                let read = try await first.call(key, .get, "/v1/accounts")
                #expect(read["partial"] as? Bool == false, "\(read)")
            }
            let beforeRestart = try await first.store.credentials(tenantId: tenant.id, connectionId: id)
            #expect(beforeRestart["refreshToken"] != pair.refreshToken, "the spent refresh token is still stored")

            // A new process over the same folder: no adapter, no token in memory; only what was persisted.
            let second = try await Process(path: path, cipher: cipher)
            for _ in 0..<3 {
                clock.advance(by: 1300)
                let read = try await second.call(key, .get, "/v1/accounts")
                #expect(read["partial"] as? Bool == false, "\(read)")
            }
            let afterRestart = try await second.store.credentials(tenantId: tenant.id, connectionId: id)
            #expect(afterRestart["refreshToken"] != beforeRestart["refreshToken"], "no rotation was persisted after the restart")
            let connection = try await second.call(key, .get, "/v1/connections/\(id)")
            #expect((connection["data"] as? [String: Any])?["status"] as? String == "active", "\(connection)")
        }
    }

    // MARK: Saxo: an access token alone

    @Test func aDeveloperTokenLinksSaysWhenItExpiresAndThenNeedsARelink() async throws {
        // The gateway reads the token's expiry on its own clock, so the sandbox's starts at the same time.
        let clock = ManualClock(start: Date())
        let sandbox = SaxoSandbox(
            configuration: SaxoSandboxConfiguration(sessionOrdersPerSecond: nil),
            market: MarketEngine(clock: clock)
        )
        let token = sandbox.issueDeveloperToken(lifetime: 3600)
        try await Loopback.with(sandbox) { world, client in
            let linked = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"saxo","displayName":"Developer token","baseURL":"\(world.sandboxURL)/sim/openapi",
                     "credentials":{"accessToken":"\(token.accessToken)"}}
                    """
            )
            #expect(linked.status == 201, "\(linked.body)")
            #expect(linked.body.data["status"] as? String == "active")
            let detail = linked.body.data["statusDetail"] as? [String: String]
            #expect(detail?["expiresAt"] == RFC3339Timestamp.format(token.expiresAt), "\(linked.body)")
            #expect(detail?["reason"]?.contains("cannot be renewed") == true)
            let id = try #require(linked.body.data["id"] as? String)

            let read = try await world.call(client, .get, "/v1/accounts")
            #expect(read.body["partial"] as? Bool == false, "\(read.body)")

            clock.advance(by: 3700)
            let expired = try await world.call(client, .get, "/v1/accounts")
            #expect(expired.body["partial"] as? Bool == true)
            #expect((expired.body.sources.first?["error"] as? [String: Any])?["code"] as? String == "unauthorized", "\(expired.body)")
            let after = try await world.call(client, .get, "/v1/connections/\(id)")
            #expect(after.body.data["status"] as? String == "relink_required", "\(after.body)")
        }
    }

    @Test func saxoCredentialsNeedARefreshTokenWithItsAppOrAnAccessToken() async throws {
        try await Loopback.with(SaxoSandbox()) { world, client in
            let none = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"saxo","baseURL":"\(world.sandboxURL)/sim/openapi","credentials":{}}
                    """
            )
            #expect(none.status == 422)
            let fields = ((none.body["error"] as? [String: Any])?["details"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(fields == ["credentials.refreshToken"], "\(none.body)")
            let appless = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"saxo","baseURL":"\(world.sandboxURL)/sim/openapi","credentials":{"refreshToken":"x"}}
                    """
            )
            #expect(appless.status == 422)
            let missing = ((appless.body["error"] as? [String: Any])?["details"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(missing == ["credentials.appKey", "credentials.appSecret"], "\(appless.body)")
        }
    }

    // MARK: TradeIt: the proof's session and question

    @Test func aTradeItLinkWithCredentialsShowsItsQuestionAtOnce() async throws {
        let sandbox = TradeItSandbox()
        let user = sandbox.link(.dummySecurity)
        try await Loopback.with(sandbox) { world, client in
            let linked = try await world.linkTradeIt(client, user)
            #expect(linked.status == 201, "\(linked.body)")
            // The question the broker asked while the link was proven is the connection's status now, before any read.
            #expect(linked.body.data["status"] as? String == "challenge_required", "\(linked.body)")
            #expect((linked.body.data["statusDetail"] as? [String: String])?["question"] == TradeItSandboxConfiguration.securityQuestion)
            let id = try #require(linked.body.data["id"] as? String)
            let answered = try await world.call(
                client,
                .post,
                "/v1/connections/\(id)/challenge",
                json: #"{"answer":"\#(TradeItSandboxConfiguration.securityAnswer)"}"#
            )
            #expect(answered.body.data["status"] as? String == "active", "\(answered.body)")
            let read = try await world.call(client, .get, "/v1/balances")
            #expect(read.body["partial"] as? Bool == false, "\(read.body)")
        }
    }

    @Test func aTradeItLinkOpensOneSessionForTheProofAndTheReads() async throws {
        let sandbox = TradeItSandbox()
        let user = sandbox.link(.dummy)
        try await Loopback.with(sandbox) { world, client in
            let linked = try await world.linkTradeIt(client, user)
            #expect(linked.status == 201, "\(linked.body)")
            #expect(sandbox.openSessionCount == 1)
            let balances = try await world.call(client, .get, "/v1/balances")
            #expect(balances.body["partial"] as? Bool == false, "\(balances.body)")
            let positions = try await world.call(client, .get, "/v1/positions")
            #expect(positions.body["partial"] as? Bool == false, "\(positions.body)")
            // The reads used the session the link opened.
            #expect(sandbox.openSessionCount == 1)
        }
    }

    // MARK: Alpaca: reads of positions and orders do not wait on /v2/account

    func owner(_ world: Loopback) async throws -> Owner {
        Owner(tenant: world.tenant, userId: try await world.store.defaultUser(tenantId: world.tenant.id).id, actor: "e2e")
    }

    @Test func positionsAndOrdersAreReadWhileTheAccountEndpointFails() async throws {
        let sandbox = AlpacaSandbox()
        try await Loopback.with(sandbox) { world, client in
            let id = try await world.linkAlpacaDemo(client)
            // The account id learned while proving the link is kept with the connection.
            let stored = try await world.store.credentials(tenantId: world.tenant.id, connectionId: id)
            #expect(stored["accountId"]?.isEmpty == false, "no account id kept")
            sandbox.faults.add(FaultRule(.error(status: 500), method: "GET", pathPrefix: "/v2/account"))
            // A restarted gateway has no adapter in memory; the id comes from the connection.
            try await world.gateway.connections.replaceCredentials(owner: try await owner(world), id: id, stored)
            let positions = try await world.call(client, .get, "/v1/positions")
            #expect(positions.body["partial"] as? Bool == false, "\(positions.body)")
            #expect(positions.body.list.first?["accountId"] as? String == stored["accountId"])
            let orders = try await world.call(client, .get, "/v1/orders?status=all")
            #expect(orders.body["partial"] as? Bool == false, "\(orders.body)")
            let balances = try await world.call(client, .get, "/v1/balances")
            #expect(balances.body["partial"] as? Bool == true, "the account endpoint's own read must still fail")
        }
    }

    @Test func withoutAKnownAccountIdTheReadsOwnErrorWins() async throws {
        let sandbox = AlpacaSandbox()
        try await Loopback.with(sandbox) { world, client in
            let id = try await world.linkAlpacaDemo(client)
            var stored = try await world.store.credentials(tenantId: world.tenant.id, connectionId: id)
            stored["accountId"] = nil
            try await world.gateway.connections.replaceCredentials(owner: try await owner(world), id: id, stored)
            sandbox.faults.add(FaultRule(.error(status: 500), method: "GET", pathPrefix: "/v2/account"))
            sandbox.faults.add(FaultRule(.error(status: 403), method: "GET", pathPrefix: "/v2/positions"))
            let positions = try await world.call(client, .get, "/v1/positions")
            #expect(positions.body["partial"] as? Bool == true)
            let error = positions.body.sources.first?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "forbidden", "the positions read's own error, not the account's: \(positions.body)")
        }
    }
}
