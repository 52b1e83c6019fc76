import Foundation
import GatewayModel
import HTTPTypes
import HummingbirdTesting
import Sandbox
import TestWorlds
import Testing

/// Quote reads that say which symbols no broker quotes, and orders looked up by the broker's id (issue 15, item 6).
@Suite("End to end: symbols not found, orders by broker id", .heavyWorld)
struct LookupEndToEndTests {
    @Test func aQuoteReadNamesTheSymbolsNoBrokerQuotes() async throws {
        try await Loopback.with(AlpacaSandbox()) { world, client in
            _ = try await world.linkAlpacaDemo(client)
            let read = try await world.call(client, .get, "/v1/quotes?symbols=AAPL,NOSUCH,BTC/USD,ZZZZ,nosuch")
            #expect(read.status == 200)
            #expect(read.body["partial"] as? Bool == false, "\(read.body)")
            let quoted = Set(read.body.list.compactMap { ($0["instrument"] as? [String: Any])?["symbol"] as? String })
            #expect(quoted == ["AAPL", "BTC/USD"], "\(read.body)")
            // Each unquoted symbol once, in the order asked.
            #expect(read.body["notFound"] as? [String] == ["NOSUCH", "ZZZZ"], "\(read.body)")

            let all = try await world.call(client, .get, "/v1/quotes?symbols=AAPL")
            #expect(all.body["notFound"] as? [String] == [], "\(all.body)")
            let none = try await world.call(client, .get, "/v1/quotes?symbols=NOSUCH")
            #expect(none.body.list.isEmpty)
            #expect(none.body["notFound"] as? [String] == ["NOSUCH"], "\(none.body)")
        }
    }

    @Test func anOrderIsFoundByItsBrokerId() async throws {
        try await Loopback.with(AlpacaSandbox()) { world, client in
            let connection = try await world.linkAlpacaDemo(client)
            let accounts = try await world.call(client, .get, "/v1/accounts")
            let account = try #require(accounts.body.list.first?["id"] as? String)
            let placed = try await world.call(
                client,
                .post,
                "/v1/orders",
                json: """
                    {"connectionId":"\(connection)","accountId":"\(account)","symbol":"AAPL","side":"buy","type":"limit",
                     "timeInForce":"day","quantity":"1","limitPrice":"1.00"}
                    """
            )
            #expect(placed.status == 201, "\(placed.body)")
            let id = try #require(placed.body.data["id"] as? String)
            let brokerId = try #require(placed.body.data["brokerOrderId"] as? String)

            let found = try await world.call(client, .get, "/v1/orders?brokerOrderId=\(brokerId)")
            #expect(found.status == 200)
            #expect(found.body["partial"] as? Bool == false, "\(found.body)")
            #expect(found.body.list.count == 1)
            #expect(found.body.list.first?["id"] as? String == id, "the journal's id, not only the broker's")
            #expect(found.body.list.first?["brokerOrderId"] as? String == brokerId)

            let unknown = try await world.call(client, .get, "/v1/orders?brokerOrderId=\(UUID().uuidString.lowercased())")
            #expect(unknown.status == 200)
            #expect(unknown.body.list.isEmpty)
            #expect(unknown.body["partial"] as? Bool == false, "an unknown id is no broker's failure: \(unknown.body)")
            let malformed = try await world.call(client, .get, "/v1/orders?brokerOrderId=not-an-alpaca-id")
            #expect(malformed.body.list.isEmpty)
            #expect(malformed.body["partial"] as? Bool == false, "\(malformed.body)")

            // The list's filters apply to the order found: it is open, and an AAPL order.
            let open = try await world.call(client, .get, "/v1/orders?brokerOrderId=\(brokerId)&status=open&symbols=AAPL")
            #expect(open.body.list.first?["id"] as? String == id, "\(open.body)")
            let closed = try await world.call(client, .get, "/v1/orders?brokerOrderId=\(brokerId)&status=closed")
            #expect(closed.status == 200)
            #expect(closed.body.list.isEmpty, "\(closed.body)")
            let otherSymbol = try await world.call(client, .get, "/v1/orders?brokerOrderId=\(brokerId)&symbols=MSFT")
            #expect(otherSymbol.body.list.isEmpty, "\(otherSymbol.body)")
            let bad = try await world.call(client, .get, "/v1/orders?brokerOrderId=a%20b")
            #expect(bad.status == 400)
        }
    }
}

@Suite("End to end: TradeIt equity quotes", .heavyWorld)
struct TradeItQuoteEndToEndTests {
    @Test func equitiesAndPairsAreQuotedTogether() async throws {
        let sandbox = TradeItSandbox()
        let user = sandbox.link(.dummy)
        try await Loopback.with(sandbox) { world, client in
            let linked = try await world.linkTradeIt(client, user)
            #expect(linked.status == 201, "\(linked.body)")
            try sandbox.market.setPriceOverride(Decimal(string: "187.25"), for: "AAPL")
            let read = try await world.call(client, .get, "/v1/quotes?symbols=AAPL,BTC/USD,NOSUCH")
            #expect(read.body["partial"] as? Bool == false, "\(read.body)")
            let aapl = try #require(read.body.list.first { ($0["instrument"] as? [String: Any])?["symbol"] as? String == "AAPL" })
            #expect((aapl["instrument"] as? [String: Any])?["assetClass"] as? String == "equity")
            #expect(aapl["last"] as? String == "187.25", "\(aapl)")
            #expect(aapl["bid"] is String && aapl["ask"] is String)
            #expect(read.body.list.contains { ($0["instrument"] as? [String: Any])?["symbol"] as? String == "BTC/USD" })
            #expect(read.body["notFound"] as? [String] == ["NOSUCH"], "\(read.body)")
        }
    }
}
