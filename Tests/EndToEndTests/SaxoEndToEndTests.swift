import Foundation
import GatewayModel
import HTTPTypes
import HummingbirdTesting
import Sandbox
import TestWorlds
import Testing

/// Saxo through /v1: the seed app's screens, and its order flow (market, changed to limit, back to market).
@Suite("End to end: Saxo through /v1", .heavyWorld)
struct SaxoEndToEndTests {
    func link(_ world: Loopback, _ client: any TestClientProtocol) async throws -> String {
        let linked = try await world.call(
            client,
            .post,
            "/v1/connections",
            json: """
                {"broker":"saxo","displayName":"SIM","baseURL":"\(world.sandboxURL)/sim/openapi",
                 "credentials":{"appKey":"\(SaxoSandboxConfiguration.demoAppKey)","appSecret":"\(SaxoSandboxConfiguration.demoAppSecret)",
                                "refreshToken":"\(SaxoSandboxConfiguration.demoBootstrapRefreshToken)"}}
                """
        )
        #expect(linked.status == 201)
        return try #require(linked.body.data["id"] as? String)
    }

    @Test func aSingleUseRefreshTokenSpentByTheLinkIsReplacedByTheRotatedOne() async throws {
        let clock = ManualClock()
        let sandbox = SaxoSandbox(
            configuration: SaxoSandboxConfiguration(sessionOrdersPerSecond: nil, executionLatency: 1),
            market: MarketEngine(clock: clock)
        )
        // A refresh token Saxo's way: good for one use (not the sandbox's reusable bootstrap token).
        let pair = sandbox.issueTokens()
        try await Loopback.with(sandbox) { world, client in
            let linked = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"saxo","displayName":"SIM","baseURL":"\(world.sandboxURL)/sim/openapi",
                     "credentials":{"appKey":"\(SaxoSandboxConfiguration.demoAppKey)","appSecret":"\(SaxoSandboxConfiguration.demoAppSecret)",
                                    "refreshToken":"\(pair.refreshToken)"}}
                    """
            )
            #expect(linked.status == 201, "\(linked.body)")
            // Proving the link spent the token; the connection was saved with the pair that replaced it, so its first
            // read works and it stays active.
            let first = try await world.call(client, .get, "/v1/accounts")
            #expect(first.status == 200)
            #expect(first.body["partial"] as? Bool == false, "\(first.body)")
            // Several access-token lifetimes (1,200 s each) later, the reads still work.
            for _ in 0..<3 {
                clock.advance(by: 1300)
                let later = try await world.call(client, .get, "/v1/accounts")
                #expect(later.body["partial"] as? Bool == false, "\(later.body)")
            }
            let connections = try await world.call(client, .get, "/v1/connections")
            #expect(connections.body.list.first?["status"] as? String == "active", "\(connections.body)")
        }
    }

    @Test func theSeedScreensAndOrderFlow() async throws {
        let clock = ManualClock()
        let sandbox = SaxoSandbox(
            configuration: SaxoSandboxConfiguration(sessionOrdersPerSecond: nil, executionLatency: 1),
            market: MarketEngine(clock: clock)
        )
        try await Loopback.with(sandbox) { world, client in
            let connection = try await link(world, client)
            let clients = try await world.call(client, .get, "/v1/clients")
            #expect(clients.body.list.first?["defaultAccountId"] as? String == "8496691")
            let accounts = try await world.call(client, .get, "/v1/accounts")
            let account = try #require(accounts.body.list.first?["id"] as? String)
            let balances = try await world.call(client, .get, "/v1/balances")
            #expect(balances.body.list.first?["accountValue"] is String)
            #expect(balances.body.list.first?["marginAvailable"] is String)
            let candles = try await world.call(client, .get, "/v1/candles?symbol=EUR/DKK&interval=1h&count=5")
            #expect((candles.body.list.first?["candles"] as? [Any])?.count == 5)
            let quotes = try await world.call(client, .get, "/v1/quotes?symbols=EUR/DKK")
            #expect(quotes.body.list.first?["bid"] is String)
            let watchlists = try await world.call(client, .get, "/v1/watchlists")
            #expect(watchlists.status == 200)

            // The seed: a market order, changed to limit and back to market, then seen as a net position.
            let placed = try await world.call(
                client,
                .post,
                "/v1/orders",
                json: """
                    {"connectionId":"\(connection)","accountId":"\(account)","symbol":"EUR/DKK","side":"buy","type":"market",
                     "timeInForce":"ioc","quantity":"100000"}
                    """
            )
            #expect(placed.status == 201)
            let id = try #require(placed.body.data["id"] as? String)
            let toLimit = try await world.call(client, .patch, "/v1/orders/\(id)", json: #"{"type":"limit","limitPrice":"7","timeInForce":"gtc"}"#)
            #expect(toLimit.status == 200)
            #expect(toLimit.body.data["type"] as? String == "limit")
            let toMarket = try await world.call(client, .patch, "/v1/orders/\(id)", json: #"{"type":"market","timeInForce":"ioc"}"#)
            #expect(toMarket.status == 200)
            #expect(toMarket.body.data["type"] as? String == "market")
            clock.advance(by: 2)
            let positions = try await world.call(client, .get, "/v1/positions")
            let position = try #require(positions.body.list.first { ($0["instrument"] as? [String: Any])?["symbol"] as? String == "EUR/DKK" })
            #expect(position["quantity"] as? String == "100000")
            let events = try await world.call(client, .get, "/v1/orders/\(id)/events")
            #expect(events.body.list.compactMap { $0["kind"] as? String }.prefix(4) == ["intent", "accepted", "modified", "modified"])
        }
    }
}
