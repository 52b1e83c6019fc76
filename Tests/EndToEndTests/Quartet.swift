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
import Sandbox
import SaxoAdapter
import TestWorlds
import Testing
import TradeItAdapter
import TradeOgreAdapter

/// The four simulators on one market, a gateway in front of them, one connection linked to each.
struct Quartet: Sendable {
    let market: MarketEngine
    let alpaca: AlpacaSandbox
    let saxo: SaxoSandbox
    let tradeIt: TradeItSandbox
    let tradeOgre: TradeOgreSandbox

    /// `prices` are pinned before the simulators open, so TradeOgre's book and trades start from them.
    init(prices: [String: String]) throws {
        market = MarketEngine(clock: ManualClock(start: Date()))
        for (symbol, price) in prices { try market.setPriceOverride(Decimal(string: price), for: symbol) }
        alpaca = AlpacaSandbox(market: market)
        saxo = SaxoSandbox(configuration: SaxoSandboxConfiguration(sessionOrdersPerSecond: nil), market: market)
        tradeIt = TradeItSandbox(market: market)
        // No seeded trades: TradeOgre's price is its last trade, and with none it is the market's (pinned) price.
        tradeOgre = TradeOgreSandbox(configuration: TradeOgreSandboxConfiguration(seededTrades: 0), market: market)
    }

    func with(_ body: @escaping @Sendable (_ call: Call) async throws -> Void) async throws {
        try await withTwoUsers { call, _ in try await body(call) }
    }

    /// As `with`, and `other` calls as a second user of the same tenant (with no connection of their own).
    func withTwoUsers(_ body: @escaping @Sendable (_ call: Call, _ other: Call) async throws -> Void) async throws {
        try await withSandbox(alpaca) { alpacaURL in
            try await withSandbox(saxo) { saxoURL in
                try await withSandbox(tradeIt) { tradeItURL in
                    try await withSandbox(tradeOgre) { tradeOgreURL in
                        try await serve(
                            alpaca: alpacaURL.absoluteString,
                            saxo: saxoURL.absoluteString,
                            tradeIt: tradeItURL.absoluteString,
                            tradeOgre: tradeOgreURL.absoluteString,
                            body
                        )
                    }
                }
            }
        }
    }

    typealias Call =
        @Sendable (_ method: HTTPRequest.Method, _ uri: String, _ json: String?) async throws
        -> (status: Int, body: [String: Any])

    func serve(
        alpaca: String,
        saxo: String,
        tradeIt: String,
        tradeOgre: String,
        _ body: @escaping @Sendable (Call, Call) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-quartet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
        let store = try SQLiteStore(
            path: directory.appendingPathComponent("gateway.sqlite").path,
            cipher: .random(),
            logger: logger
        )
        let registry = AdapterRegistry(
            factories: [AlpacaAdapterFactory(), SaxoAdapterFactory(), TradeItAdapterFactory(), TradeOgreAdapterFactory()],
            transport: HTTPClientTransport.loopbackForTests,
            logger: logger,
            egress: .loopbackForTests
        )
        let gateway = Gateway(store: store, registry: registry, router: .unhurried, logger: logger)
        let tenant = try await store.createTenant(name: "portfolio")
        let key = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "portfolio").plaintext
        let otherUser = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "other"), audit: nil)
        let otherKey = try await store.issueAPIKey(
            tenantId: tenant.id,
            label: "other",
            scopes: ["read", "trade"],
            userId: otherUser.id,
            audit: nil
        ).plaintext
        let app = Application(router: try GatewayServer.router(gateway: gateway), logger: logger)
        let user = self.tradeIt.link(.dummy)
        try await app.test(.router) { client in
            func caller(_ key: String) -> Call {
                { method, uri, json in
                    try await client.execute(
                        uri: uri,
                        method: method,
                        headers: [.authorization: "Bearer \(key)", .contentType: "application/json"],
                        body: json.map { ByteBuffer(string: $0) }
                    ) { response in
                        let object = (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any]
                        return (Int(response.status.code), object ?? [:])
                    }
                }
            }
            let call = caller(key)
            for link in [
                """
                {"broker":"alpaca","baseURL":"\(alpaca)",
                 "credentials":{"keyId":"\(AlpacaSandboxAccount.demoKeyID)","secretKey":"\(AlpacaSandboxAccount.demoSecretKey)"}}
                """,
                """
                {"broker":"saxo","baseURL":"\(saxo)/sim/openapi",
                 "credentials":{"appKey":"\(SaxoSandboxConfiguration.demoAppKey)","appSecret":"\(SaxoSandboxConfiguration.demoAppSecret)",
                                "refreshToken":"\(SaxoSandboxConfiguration.demoBootstrapRefreshToken)"}}
                """,
                """
                {"broker":"tradeit","baseURL":"\(tradeIt)","settings":{"brokerShortName":"Dummy"},
                 "credentials":{"apiKey":"\(TradeItSandboxConfiguration.demoAPIKey)","userId":"\(user.userId)","userToken":"\(user.userToken)"}}
                """,
                """
                {"broker":"tradeogre","baseURL":"\(tradeOgre)/api/v1",
                 "credentials":{"apiKey":"\(TradeOgreSandboxAccount.demoAPIKey)","apiSecret":"\(TradeOgreSandboxAccount.demoAPISecret)"}}
                """,
            ] {
                let linked = try await call(.post, "/v1/connections", link)
                #expect(linked.status == 201, "\(linked.body)")
            }
            try await body(call, caller(otherKey))
        }
    }

}
