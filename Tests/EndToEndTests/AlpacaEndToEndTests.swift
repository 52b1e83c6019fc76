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
import TestWorlds
import Testing

/// The unified API over the real Alpaca adapter and the Alpaca sandbox on loopback: what a user of
/// `swift run gateway` sees, and proof that orders sent through /v1 change the broker's state.
@Suite("End to end: Alpaca through /v1", .heavyWorld)
struct AlpacaEndToEndTests {
    struct World: Sendable {
        let sandboxURL: String
        let apiKey: String
        var auth: HTTPFields {
            [.authorization: "Bearer \(apiKey)", .contentType: "application/json", HTTPField.Name("Idempotency-Key")!: UUID().uuidString]
        }
    }

    func withWorld(_ body: @escaping @Sendable (World, any TestClientProtocol) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSandbox(AlpacaSandbox()) { url in
            let logger = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
            let store = try await SQLiteStore.opening(
                path: directory.appendingPathComponent("gateway.sqlite").path,
                cipher: .random(),
                logger: logger
            )
            let registry = AdapterRegistry(
                factories: [AlpacaAdapterFactory()],
                transport: HTTPClientTransport.loopbackForTests,
                logger: logger,
                egress: .loopbackForTests
            )
            let gateway = Gateway(store: store, registry: registry, router: .unhurried, logger: logger)
            let tenant = try await store.createTenant(name: "e2e")
            let key = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "e2e")
            let app = Application(router: try GatewayServer.router(gateway: gateway), logger: logger)
            let world = World(sandboxURL: url.absoluteString, apiKey: key.plaintext)
            try await app.test(.router) { client in try await body(world, client) }
        }
    }

    /// Reads the sandbox's own view, with the demo keys, the way Alpaca's clients would.
    func sandboxGET(_ world: World, _ path: String) async throws -> Any {
        var request = HTTPClientRequest(url: world.sandboxURL + path)
        request.headers.add(name: "APCA-API-KEY-ID", value: AlpacaSandboxAccount.demoKeyID)
        request.headers.add(name: "APCA-API-SECRET-KEY", value: AlpacaSandboxAccount.demoSecretKey)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 22)
        return try JSONSerialization.jsonObject(with: Data(body.readableBytesView))
    }

    func call(
        _ client: any TestClientProtocol,
        _ method: HTTPRequest.Method,
        _ uri: String,
        _ world: World,
        json: String? = nil
    )
        async throws -> (status: Int, body: [String: Any])
    {
        try await client.execute(uri: uri, method: method, headers: world.auth, body: json.map { ByteBuffer(string: $0) }) { response in
            let data = Data(response.body.readableBytesView)
            let object = data.isEmpty ? [:] : ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
            return (Int(response.status.code), object)
        }
    }

    func link(_ client: any TestClientProtocol, _ world: World) async throws -> String {
        let linked = try await call(
            client,
            .post,
            "/v1/connections",
            world,
            json: """
                {"broker":"alpaca","displayName":"Sandbox","baseURL":"\(world.sandboxURL)",
                 "credentials":{"keyId":"\(AlpacaSandboxAccount.demoKeyID)","secretKey":"\(AlpacaSandboxAccount.demoSecretKey)"}}
                """
        )
        #expect(linked.status == 201)
        return try #require((linked.body["data"] as? [String: Any])?["id"] as? String)
    }

    @Test func linkingRefusesWrongKeys() async throws {
        try await withWorld { world, client in
            let refused = try await call(
                client,
                .post,
                "/v1/connections",
                world,
                json: """
                    {"broker":"alpaca","baseURL":"\(world.sandboxURL)","credentials":{"keyId":"WRONG","secretKey":"WRONG"}}
                    """
            )
            #expect(refused.status == 422)
            let list = try await call(client, .get, "/v1/connections", world)
            #expect((list.body["data"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func readsShowTheDemoAccount() async throws {
        try await withWorld { world, client in
            let connection = try await link(client, world)
            let accounts = try await call(client, .get, "/v1/accounts", world)
            #expect(accounts.body["partial"] as? Bool == false)
            let account = try #require((accounts.body["data"] as? [[String: Any]])?.first)
            #expect(account["connectionId"] as? String == connection)
            #expect(account["currency"] as? String == "USD")

            let balances = try await call(client, .get, "/v1/balances", world)
            let balance = try #require((balances.body["data"] as? [[String: Any]])?.first)
            let total = try #require(DecimalText.parse(balance["total"] as? String ?? ""))
            let available = try #require(DecimalText.parse(balance["available"] as? String ?? ""))
            let held = try #require(DecimalText.parse(balance["held"] as? String ?? ""))
            #expect(available + held == total)

            let sandboxPositions = try #require(try await sandboxGET(world, "/v2/positions") as? [[String: Any]])
            let positions = try await call(client, .get, "/v1/positions", world)
            let symbols = Set(
                (positions.body["data"] as? [[String: Any]] ?? []).compactMap { ($0["instrument"] as? [String: Any])?["symbol"] as? String }
            )
            let expected = Set(sandboxPositions.compactMap { $0["symbol"] as? String }.map { $0 == "BTCUSD" ? "BTC/USD" : $0 })
            #expect(!symbols.isEmpty)
            #expect(symbols == expected)

            let watchlists = try await call(client, .get, "/v1/watchlists", world)
            #expect(watchlists.status == 200)
            #expect((watchlists.body["sources"] as? [[String: Any]])?.first?["status"] as? String == "ok")

            let quotes = try await call(client, .get, "/v1/quotes?symbols=AAPL", world)
            let quote = try #require((quotes.body["data"] as? [[String: Any]])?.first)
            #expect(quote["bid"] is String && quote["ask"] is String)
        }
    }

    @Test func placeReplaceAndCancelChangeTheBroker() async throws {
        try await withWorld { world, client in
            let connection = try await link(client, world)
            let accounts = try await call(client, .get, "/v1/accounts", world)
            let accountId = try #require((accounts.body["data"] as? [[String: Any]])?.first?["id"] as? String)
            let quotes = try await call(client, .get, "/v1/quotes?symbols=AAPL", world)
            let ask = try #require(DecimalText.parse(((quotes.body["data"] as? [[String: Any]])?.first?["ask"] as? String) ?? ""))
            // Far below the market, so it rests.
            let limit = DecimalText.format((ask / 2), scale: 2)
            let placed = try await call(
                client,
                .post,
                "/v1/orders",
                world,
                json: """
                    {"connectionId":"\(connection)","accountId":"\(accountId)","symbol":"AAPL","side":"buy","type":"limit",
                     "timeInForce":"day","quantity":"1","limitPrice":"\(limit)","clientOrderId":"e2e-rest-1"}
                    """
            )
            #expect(placed.status == 201)
            let order = try #require(placed.body["data"] as? [String: Any])
            let id = try #require(order["id"] as? String)
            #expect(order["status"] as? String == "open")
            let brokerId = try #require(order["brokerOrderId"] as? String)
            let atBroker = try #require(try await sandboxGET(world, "/v2/orders/\(brokerId)") as? [String: Any])
            #expect(atBroker["client_order_id"] as? String == "e2e-rest-1")
            #expect(atBroker["status"] as? String == "new" || atBroker["status"] as? String == "accepted")

            let newLimit = DecimalText.format((ask / 2) + 1, scale: 2)
            let replaced = try await call(client, .patch, "/v1/orders/\(id)", world, json: #"{"limitPrice":"\#(newLimit)"}"#)
            #expect(replaced.status == 200)
            let replacement = try #require(replaced.body["data"] as? [String: Any])
            let newBrokerId = try #require(replacement["brokerOrderId"] as? String)
            #expect(newBrokerId != brokerId)
            let old = try #require(try await sandboxGET(world, "/v2/orders/\(brokerId)") as? [String: Any])
            #expect(old["status"] as? String == "replaced")
            let new = try #require(try await sandboxGET(world, "/v2/orders/\(newBrokerId)") as? [String: Any])
            // Compared as numbers: "98.80" and "98.8" are the same price.
            #expect(DecimalText.parse(new["limit_price"] as? String ?? "") == DecimalText.parse(newLimit))

            let newId = try #require(replacement["id"] as? String)
            let canceled = try await call(client, .delete, "/v1/orders/\(newId)", world)
            #expect(canceled.status == 200)
            let afterCancel = try #require(try await sandboxGET(world, "/v2/orders/\(newBrokerId)") as? [String: Any])
            #expect(afterCancel["status"] as? String == "canceled")
            let again = try await call(client, .delete, "/v1/orders/\(newId)", world)
            #expect(again.status == 409)
        }
    }

    @Test func aMarketOrderFillsAndMovesThePosition() async throws {
        try await withWorld { world, client in
            let connection = try await link(client, world)
            let accounts = try await call(client, .get, "/v1/accounts", world)
            let accountId = try #require((accounts.body["data"] as? [[String: Any]])?.first?["id"] as? String)
            func quantity(_ symbol: String) async throws -> Decimal {
                let positions = try await call(client, .get, "/v1/positions", world)
                let match = (positions.body["data"] as? [[String: Any]] ?? []).first {
                    ($0["instrument"] as? [String: Any])?["symbol"] as? String == symbol
                }
                return DecimalText.parse(match?["quantity"] as? String ?? "0") ?? 0
            }
            let before = try await quantity("MSFT")
            let placed = try await call(
                client,
                .post,
                "/v1/orders",
                world,
                json: """
                    {"connectionId":"\(connection)","accountId":"\(accountId)","symbol":"MSFT","side":"buy","type":"market","quantity":"3"}
                    """
            )
            #expect(placed.status == 201)
            let id = try #require((placed.body["data"] as? [String: Any])?["id"] as? String)
            let fetched = try await call(client, .get, "/v1/orders/\(id)", world)
            #expect((fetched.body["data"] as? [String: Any])?["status"] as? String == "filled")
            #expect(try await quantity("MSFT") == before + 3)
        }
    }
}
