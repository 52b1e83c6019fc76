import Foundation
import GatewayApp
import GatewayModel
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import Sandbox
import TestWorlds
import Testing

/// TradeOgre through /v1: keyless quotes, holdings as positions, and a limit order on the sandbox's book.
@Suite("End to end: TradeOgre through /v1", .heavyWorld)
struct TradeOgreEndToEndTests {
    @Test func keylessConnectionsServeQuotesOnly() async throws {
        try await Loopback.with(TradeOgreSandbox()) { world, client in
            let linked = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: #"{"broker":"tradeogre","baseURL":"\#(world.sandboxURL)/api/v1"}"#
            )
            #expect(linked.status == 201)
            let quotes = try await world.call(client, .get, "/v1/quotes?symbols=XMR/BTC")
            #expect(quotes.body.list.first?["last"] is String)
            let balances = try await world.call(client, .get, "/v1/balances")
            #expect(balances.status == 200)
            #expect((balances.body.sources.first?["error"] as? [String: Any])?["code"] as? String == "unauthorized")
            let wrongKeys = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: #"{"broker":"tradeogre","baseURL":"\#(world.sandboxURL)/api/v1","credentials":{"apiKey":"x","apiSecret":"y"}}"#
            )
            #expect(wrongKeys.status == 422)
        }
    }

    @Test func aQuoteReadOfManyMarketsIsOneCall() async throws {
        // Twenty pairs TradeOgre does not list, and one it does: one /markets call answers them all (it was one ticker
        // call per market, twenty-one calls). The call budget (6 here) is not even approached.
        let unknown = (0..<20).map { "ZZ\($0)/BTC" }
        try await Loopback.with(TradeOgreSandbox(), limits: TenantLimits(callsPerConnection: 6)) { world, client in
            let linked = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: #"{"broker":"tradeogre","baseURL":"\#(world.sandboxURL)/api/v1"}"#
            )
            #expect(linked.status == 201)
            let before = world.upstream.count
            let quotes = try await world.call(client, .get, "/v1/quotes?symbols=" + (unknown + ["XMR/BTC", "LTC/BTC"]).joined(separator: ","))
            #expect(quotes.status == 200)
            #expect(world.upstream.count - before == 1, "the read made \(world.upstream.count - before) calls")
            #expect(quotes.body.sources.first?["status"] as? String == "ok")
            let symbols = quotes.body.list.compactMap { ($0["instrument"] as? [String: Any])?["symbol"] as? String }
            #expect(symbols == ["XMR/BTC", "LTC/BTC"])
            #expect(quotes.body.list.allSatisfy { $0["last"] is String })
        }
    }

    @Test func aLimitOrderRestsOnTheBookAndIsCancelled() async throws {
        try await Loopback.with(TradeOgreSandbox()) { world, client in
            let linked = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"tradeogre","baseURL":"\(world.sandboxURL)/api/v1",
                     "credentials":{"apiKey":"\(TradeOgreSandboxAccount.demoAPIKey)","apiSecret":"\(TradeOgreSandboxAccount.demoAPISecret)"}}
                    """
            )
            let connection = try #require(linked.body.data["id"] as? String)
            let account = try #require(try await world.call(client, .get, "/v1/accounts").body.list.first?["id"] as? String)
            let positions = try await world.call(client, .get, "/v1/positions")
            #expect(positions.body.list.contains { ($0["instrument"] as? [String: Any])?["symbol"] as? String == "XMR/BTC" })
            let bid = try #require(
                DecimalText.parse(try await world.call(client, .get, "/v1/quotes?symbols=XMR/BTC").body.list.first?["bid"] as? String ?? "")
            )
            let price = DecimalText.format(bid / 2, scale: 8)
            let placed = try await world.call(
                client,
                .post,
                "/v1/orders",
                json: """
                    {"connectionId":"\(connection)","accountId":"\(account)","symbol":"XMR/BTC","side":"buy","type":"limit",
                     "timeInForce":"gtc","quantity":"1.5","limitPrice":"\(price)"}
                    """
            )
            #expect(placed.status == 201)
            let id = try #require(placed.body.data["id"] as? String)
            let book = try await rawGET(world.sandboxURL + "/api/v1/orders/XMR-BTC")
            let buys = try #require((try JSONSerialization.jsonObject(with: book.body) as? [String: Any])?["buy"] as? [String: String])
            #expect(buys.keys.contains { DecimalText.parse($0) == DecimalText.parse(price) })
            let open = try await world.call(client, .get, "/v1/orders")
            #expect(open.body.list.contains { $0["id"] as? String == id })
            let canceled = try await world.call(client, .delete, "/v1/orders/\(id)")
            #expect(canceled.status == 200)
            let after = try await rawGET(world.sandboxURL + "/api/v1/orders/XMR-BTC")
            let buysAfter = (try JSONSerialization.jsonObject(with: after.body) as? [String: Any])?["buy"] as? [String: String] ?? [:]
            #expect(!buysAfter.keys.contains { DecimalText.parse($0) == DecimalText.parse(price) })
        }
    }
}
