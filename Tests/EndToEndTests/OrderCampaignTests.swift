import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Sandbox
import TestWorlds
import Testing

/// One broker's part in the order campaigns: its sandbox (with the given faults), how to link it, and an order that
/// rests on its book (far from the market) whose price can differ per intent.
struct CampaignBroker: Sendable, CustomTestStringConvertible {
    var name: String
    var placementPath: String
    var makeSandbox: @Sendable (FaultInjector) -> any SandboxSimulator
    var link: @Sendable (Loopback, any TestClientProtocol) async throws -> String
    var symbol: String
    var quantity: String
    var price: @Sendable (Int) -> String

    var testDescription: String { name }

    static let alpaca = CampaignBroker(
        name: "alpaca",
        placementPath: "/v2/orders",
        makeSandbox: { AlpacaSandbox(configuration: AlpacaSandboxConfiguration(requestsPerMinute: 1_000_000), faults: $0) },
        link: { world, client in
            let linked = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"alpaca","baseURL":"\(world.sandboxURL)",
                     "credentials":{"keyId":"\(AlpacaSandboxAccount.demoKeyID)","secretKey":"\(AlpacaSandboxAccount.demoSecretKey)"}}
                    """
            )
            return try #require(linked.body.data["id"] as? String)
        },
        symbol: "AAPL",
        quantity: "1",
        price: { DecimalText.format(Decimal(50) + Decimal($0) / 100, scale: 2) }
    )

    static let saxo = CampaignBroker(
        name: "saxo",
        placementPath: "/sim/openapi/trade/v2/orders",
        makeSandbox: {
            SaxoSandbox(configuration: SaxoSandboxConfiguration(sessionRequestsPerMinute: 1_000_000, sessionOrdersPerSecond: nil), faults: $0)
        },
        link: { world, client in
            let linked = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"saxo","baseURL":"\(world.sandboxURL)/sim/openapi",
                     "credentials":{"appKey":"\(SaxoSandboxConfiguration.demoAppKey)","appSecret":"\(SaxoSandboxConfiguration.demoAppSecret)",
                                    "refreshToken":"\(SaxoSandboxConfiguration.demoBootstrapRefreshToken)"}}
                    """
            )
            return try #require(linked.body.data["id"] as? String)
        },
        symbol: "EUR/DKK",
        quantity: "1000",
        price: { DecimalText.format(Decimal(5) + Decimal($0) / 10000, scale: 4) }
    )

    static let tradeit = CampaignBroker(
        name: "tradeit",
        placementPath: "/api/v2/order/placeStockOrEtfOrder",
        makeSandbox: { TradeItSandbox(faults: $0) },
        link: { world, client in
            let started = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"tradeit","baseURL":"\(world.sandboxURL)","credentials":{"apiKey":"\(TradeItSandboxConfiguration.demoAPIKey)"}}
                    """
            )
            let popupURL = try #require(started.body.data["popupURL"] as? String)
            let id = try #require((started.body.data["connection"] as? [String: Any])?["id"] as? String)
            let login = try await rawGET(popupURL + "&autoLogin=dummy")
            let location = try #require(login.location)
            let callback = try #require(URLComponents(string: location))
            _ = try await world.call(client, .get, callback.path + "?" + (callback.percentEncodedQuery ?? ""), headers: [:])
            return id
        },
        symbol: "AAPL",
        quantity: "1",
        price: { DecimalText.format(Decimal(50) + Decimal($0) / 100, scale: 2) }
    )

    static let tradeogre = CampaignBroker(
        name: "tradeogre",
        placementPath: "/api/v1/order/buy",
        makeSandbox: { TradeOgreSandbox(faults: $0) },
        link: { world, client in
            let linked = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"tradeogre","baseURL":"\(world.sandboxURL)/api/v1",
                     "credentials":{"apiKey":"\(TradeOgreSandboxAccount.demoAPIKey)","apiSecret":"\(TradeOgreSandboxAccount.demoAPISecret)"}}
                    """
            )
            return try #require(linked.body.data["id"] as? String)
        },
        symbol: "XMR/BTC",
        quantity: "1",
        price: { DecimalText.format(Decimal(string: "0.0001")! + Decimal($0) / 100_000_000, scale: 8) }
    )
}

/// Orders are never lost and never doubled, for the brokers besides Alpaca (which has its own campaign with lookups
/// by client order id): TradeIt and TradeOgre have no client order ids, Saxo finds orders by ExternalReference.
@Suite("Orders under faults: one key, one order; seeded campaigns", .heavyWorld)
struct OrderCampaignTests {
    func order(_ broker: CampaignBroker, connection: String, account: String, index: Int) -> String {
        #"{"connectionId":"\#(connection)","accountId":"\#(account)","symbol":"\#(broker.symbol)","side":"buy","type":"limit","timeInForce":"gtc","quantity":"\#(broker.quantity)","limitPrice":"\#(broker.price(index))"}"#
    }

    @Test(arguments: [CampaignBroker.alpaca, .saxo, .tradeit, .tradeogre])
    func fiftyConcurrentRequestsWithOneKeyPlaceOneOrder(_ broker: CampaignBroker) async throws {
        try await Loopback.with(broker.makeSandbox(FaultInjector())) { world, client in
            let connection = try await broker.link(world, client)
            let accounts = try await world.call(client, .get, "/v1/accounts")
            let account = try #require(accounts.body.list.first?["id"] as? String)
            var keyed = world.auth
            keyed[HTTPField.Name("Idempotency-Key")!] = "fifty-\(broker.name)"
            let headers = keyed
            let body = order(broker, connection: connection, account: account, index: 1)
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await client.execute(uri: "/v1/orders", method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
                            "\(response.status.code) \(String(buffer: response.body))"
                        }
                    }
                }
                var all: [String] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(Set(answers).count == 1, "the 50 answers differ")
            #expect(answers.first?.hasPrefix("201") == true)
            let atBroker = try await world.call(client, .get, "/v1/orders?status=open&limit=500")
            #expect(atBroker.body.list.count == 1)
        }
    }

    @Test(arguments: [CampaignBroker.saxo, .tradeit, .tradeogre])
    func aSeededCampaignHasNoDuplicatesAndNoLostOrders(_ broker: CampaignBroker) async throws {
        let faults = FaultInjector(
            seed: 20_261_122,
            rules: [
                FaultRule(.dropResponse, method: "POST", pathPrefix: broker.placementPath, probability: 0.08),
                FaultRule(.timeout(afterEffect: true), method: "POST", pathPrefix: broker.placementPath, probability: 0.04),
                FaultRule(.timeout(afterEffect: false), method: "POST", pathPrefix: broker.placementPath, probability: 0.04),
                FaultRule(.error(status: 503), method: "POST", pathPrefix: broker.placementPath, probability: 0.08),
                FaultRule(.malformedBody, method: "POST", pathPrefix: broker.placementPath, probability: 0.05),
            ],
            timeoutHoldLimit: .seconds(3)
        )
        try await Loopback.with(broker.makeSandbox(faults)) { world, client in
            let connection = try await broker.link(world, client)
            let accounts = try await world.call(client, .get, "/v1/accounts")
            let account = try #require(accounts.body.list.first?["id"] as? String)
            let placements = 200
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        for index in stride(from: worker, to: placements, by: 4) {
                            var headers = world.auth
                            headers[HTTPField.Name("Idempotency-Key")!] = "campaign-\(index)"
                            _ = try await world.call(
                                client,
                                .post,
                                "/v1/orders",
                                json: order(broker, connection: connection, account: account, index: index),
                                headers: headers
                            )
                        }
                    }
                }
                try await group.waitForAll()
            }
            faults.removeAll()
            await world.gateway.orders.reconcilePending(limit: 1000)

            let atBroker = try await world.call(client, .get, "/v1/orders?status=open&limit=500").body.list
            let journal = try await world.store.journaledOrders(in: JournalState.allCases, limit: 10_000)
            #expect(journal.count == placements)
            let journalIds = Set(journal.map(\.id))
            let brokerIds = atBroker.compactMap { $0["id"] as? String }
            // Every broker order belongs to exactly one intent, and no intent has two.
            #expect(brokerIds.allSatisfy { journalIds.contains($0) }, "orders at the broker that no intent owns")
            #expect(Set(brokerIds).count == brokerIds.count, "an intent with two orders at the broker")
            // Every accepted intent has its order at the broker.
            let accepted = journal.filter { $0.state == .accepted }
            #expect(Set(accepted.map(\.id)) == Set(brokerIds))
            #expect(accepted.count > placements / 2)
            // What is not accepted has nothing at the broker, and says why in its journal.
            for intent in journal where intent.state != .accepted {
                #expect(intent.errorMessage != nil)
            }
        }
    }
}
