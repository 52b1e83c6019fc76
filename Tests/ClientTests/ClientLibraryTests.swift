import AsyncHTTPClient
import BrokerGatewayClient
import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Logging
import Sandbox
import TestWorlds
import Testing
import TradeOgreAdapter

/// The generated client library against a live gateway on a loopback port, with a TradeOgre sandbox behind it.
@Suite("Client library against a running gateway", .heavyWorld)
struct ClientLibraryTests {
    func withLiveGateway(
        unbound: Bool = false,
        _ body: @escaping @Sendable (BrokerGatewayClient, String) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSandbox(TradeOgreSandbox()) { sandboxURL in
            let logger = Logger(label: "client-test", factory: { _ in SwiftLogNoOpLogHandler() })
            let store = try await SQLiteStore.opening(
                path: directory.appendingPathComponent("gateway.sqlite").path,
                cipher: .random(),
                logger: logger
            )
            let registry = AdapterRegistry(
                factories: [TradeOgreAdapterFactory()],
                transport: HTTPClientTransport.loopbackForTests,
                logger: logger,
                egress: .loopbackForTests
            )
            let gateway = Gateway(store: store, registry: registry, router: BrokerRouter(), logger: logger)
            let tenant = try await store.createTenant(name: "client")
            let key = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "client")
            let user = try await store.defaultUser(tenantId: tenant.id)
            let unboundKey = try await store.issueAPIKey(
                tenantId: tenant.id,
                label: "backend",
                scopes: ["read", "trade"],
                userId: nil,
                audit: nil
            )
            let app = Application(
                router: try GatewayServer.router(gateway: gateway),
                configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                logger: logger
            )
            try await app.test(.live) { client in
                let port = try #require(client.port)
                let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
                let client =
                    unbound
                    ? BrokerGatewayClient(serverURL: url, apiKey: unboundKey.plaintext, actingFor: user.id)
                    : BrokerGatewayClient(serverURL: url, apiKey: key.plaintext)
                try await body(client, sandboxURL.absoluteString)
            }
        }
    }

    @Test("a backend's unbound key acts for the user the client names, on every call")
    func actingForAUser() async throws {
        try await withLiveGateway(unbound: true) { client, sandboxURL in
            let linked = try await client.raw.linkConnection(
                body: .json(
                    .init(
                        broker: .tradeogre,
                        baseURL: sandboxURL + "/api/v1",
                        credentials: .init(additionalProperties: [
                            "apiKey": TradeOgreSandboxAccount.demoAPIKey, "apiSecret": TradeOgreSandboxAccount.demoAPISecret,
                        ])
                    )
                )
            )
            guard case .created(let created) = linked else {
                Issue.record("linking answered \(linked)")
                return
            }
            let connection = try created.body.json.data
            #expect(connection.userId != nil)
            let positions = try await client.positions()
            #expect(positions.sources.map(\.connection) == [connection.id])
            // The same key naming another user of the tenant reaches none of it.
            guard case .ok(let other) = try await client.raw.listConnections(headers: .init(xUserID: "usr_00000000000000000000")) else {
                return
            }
            Issue.record("another user's connections answered: \(other)")
        }
    }

    @Test func linkReadPlaceReplayAndCancelThroughTheClient() async throws {
        try await withLiveGateway { client, sandboxURL in
            let linked = try await client.raw.linkConnection(
                body: .json(
                    .init(
                        broker: .tradeogre,
                        baseURL: sandboxURL + "/api/v1",
                        credentials: .init(additionalProperties: [
                            "apiKey": TradeOgreSandboxAccount.demoAPIKey, "apiSecret": TradeOgreSandboxAccount.demoAPISecret,
                        ])
                    )
                )
            )
            guard case .created(let created) = linked else {
                Issue.record("linking answered \(linked)")
                return
            }
            let connection = try created.body.json.data

            let positions = try await client.positions()
            #expect(!positions.partial)
            #expect(positions.sources.map(\.connection) == [connection.id])
            #expect(positions.sources.allSatisfy { $0.ok })
            #expect(positions.data.contains { $0.instrument.symbol == "XMR/BTC" && $0.quantity > 0 })
            let account = try #require(try await client.accounts().data.first?.id)

            guard case .ok(let quotes) = try await client.raw.listQuotes(query: .init(symbols: "XMR/BTC")) else {
                Issue.record("quotes failed")
                return
            }
            let bid = try #require(try quotes.body.json.data.first?.bid)
            let request = OrderRequest(
                connectionId: connection.id,
                accountId: account,
                instrument: InstrumentReference(symbol: "XMR/BTC"),
                side: .buy,
                type: .limit,
                timeInForce: .gtc,
                quantity: Decimal(string: "1.5")!,
                limitPrice: DecimalText.parse(DecimalText.format(bid / 2, scale: 8))
            )
            let key = UUID().uuidString
            let placed = try await client.placeOrder(request, idempotencyKey: key)
            #expect(placed.outcomeKnown)
            #expect(!placed.replayed)
            #expect(placed.order.status.isActive)
            let again = try await client.placeOrder(request, idempotencyKey: key)
            #expect(again.replayed)
            #expect(again.order.id == placed.order.id)

            #expect(try await client.order(id: placed.order.id).status.isActive)
            let canceled = try await client.cancelOrder(id: placed.order.id)
            #expect(canceled.status == .canceled)
        }
    }

    @Test func errorsArriveAsTypedErrors() async throws {
        try await withLiveGateway { client, _ in
            do {
                _ = try await client.order(id: "ord_bm9wZQ")
                Issue.record("an unknown order was found")
            } catch let error as BrokerGatewayError {
                #expect(error.statusCode == 404)
                #expect(error.code == "not_found")
            }
            let refused = try await client.raw.createWatchlist(body: .json(.init(name: String(repeating: "n", count: 101))))
            guard case .default(let status, let answer) = refused else {
                Issue.record("an over-long name was accepted: \(refused)")
                return
            }
            #expect(status == 422)
            #expect(try answer.body.json.error.details?.map(\.field) == ["name"])
        }
    }
}
