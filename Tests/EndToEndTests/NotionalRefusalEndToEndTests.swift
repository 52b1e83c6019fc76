import Foundation
import GatewayModel
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Sandbox
import TestWorlds
import Testing

/// Issue 15, item 3: the brokers that size orders in units only (Saxo, TradeIt, TradeOgre) refuse an order sized in
/// money with a 422 naming `notional` before anything reaches them, and `GET /v1/brokers` says so beforehand.
@Suite("Notional orders at brokers that size orders in units", .heavyWorld)
struct NotionalRefusalEndToEndTests {
    @Test(arguments: [CampaignBroker.saxo, .tradeit, .tradeogre])
    func aNotionalOrderIsRefusedAndTheCapabilitiesSaySo(_ broker: CampaignBroker) async throws {
        try await Loopback.with(broker.makeSandbox(FaultInjector())) { world, client in
            let connection = try await broker.link(world, client)
            let accounts = try await world.call(client, .get, "/v1/accounts")
            let account = try #require(accounts.body.list.first?["id"] as? String)

            let brokers = try await world.call(client, .get, "/v1/brokers")
            func notionalSupport(_ kind: String) -> String? {
                let description = brokers.body.list.first { $0["kind"] as? String == kind }
                return ((description?["capabilities"] as? [String: Any])?["operations"] as? [String: Any])?["notionalOrders"] as? String
            }
            #expect(notionalSupport(broker.name) == "unsupported")
            #expect(notionalSupport("alpaca") == "supported")

            let callsBefore = world.upstream.count
            let refused = try await world.call(
                client,
                .post,
                "/v1/orders",
                json: """
                    {"connectionId":"\(connection)","accountId":"\(account)","symbol":"\(broker.symbol)","side":"buy",
                     "type":"limit","timeInForce":"gtc","notional":"500","limitPrice":"\(broker.price(1))"}
                    """
            )
            #expect(refused.status == 422)
            let error = try #require(refused.body["error"] as? [String: Any])
            #expect(error["code"] as? String == "unprocessable")
            let details = error["details"] as? [[String: Any]] ?? []
            #expect(details.compactMap { $0["field"] as? String } == ["notional"])
            #expect((details.first?["problem"] as? String)?.contains("sized in money") == true)
            // Refused before anything was sent: no call left for the broker, and no order exists.
            #expect(world.upstream.count == callsBefore)
            let open = try await world.call(client, .get, "/v1/orders?status=open")
            #expect(open.body.list.isEmpty)
        }
    }
}
