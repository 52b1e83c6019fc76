import Foundation
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import HTTPTypes
import Synchronization
import Testing

@Suite("API: connections, watchlists, orders")
struct ResourceTests {
    @Test func linkingChecksCredentialsFirst() async throws {
        try await APIHarness.with { harness, client in
            let refused = try await client.call(
                .post,
                "/v1/connections",
                headers: harness.auth,
                json: #"{"broker":"alpaca","credentials":{"token":"bad"}}"#
            )
            #expect(refused.status == 422)
            #expect(try await harness.store.connections(tenantId: harness.tenant.id).isEmpty)
            let missing = try await client.call(.post, "/v1/connections", headers: harness.auth, json: #"{"broker":"alpaca"}"#)
            #expect(missing.status == 422)
            #expect(missing.body.detailFields == ["credentials.token"])
            let unknown = try await client.call(
                .post,
                "/v1/connections",
                headers: harness.auth,
                json: #"{"broker":"robinhood","credentials":{"token":"good"}}"#
            )
            #expect(unknown.status == 422)
            #expect(unknown.body.detailFields == ["broker"])
            let badURL = try await client.call(
                .post,
                "/v1/connections",
                headers: harness.auth,
                json: #"{"broker":"alpaca","baseURL":"ftp://x","credentials":{"token":"good"}}"#
            )
            #expect(badURL.body.detailFields == ["baseURL"])

            let linked = try await client.call(
                .post,
                "/v1/connections",
                headers: harness.auth,
                json: #"{"broker":"alpaca","displayName":"Paper","credentials":{"token":"good"}}"#
            )
            #expect(linked.status == 201)
            let id = try #require(linked.body.dataObject["id"] as? String)
            #expect(linked.body.dataObject["credentials"] == nil)
            #expect(linked.body.dataObject["baseURL"] as? String == "https://alpaca.fake")
            let list = try await client.call(.get, "/v1/connections", headers: harness.auth)
            #expect(list.body.dataList.compactMap { $0["id"] as? String } == [id])
            let one = try await client.call(.get, "/v1/connections/\(id)", headers: harness.auth)
            #expect(one.body.dataObject["displayName"] as? String == "Paper")
            let deleted = try await client.call(.delete, "/v1/connections/\(id)", headers: harness.auth)
            #expect(deleted.status == 204)
            #expect(try await client.call(.get, "/v1/connections/\(id)", headers: harness.auth).status == 404)
        }
    }

    @Test func anotherTenantSeesNothing() async throws {
        try await APIHarness.with { harness, client in
            let other = try await harness.store.createTenant(name: "Tenant B")
            let theirs = try await harness.link(.alpaca, baseURL: "https://b.fake", tenant: other)
            #expect(try await client.call(.get, "/v1/connections/\(theirs.id)", headers: harness.auth).status == 404)
            #expect(try await client.call(.delete, "/v1/connections/\(theirs.id)", headers: harness.auth).status == 404)
            let positions = try await client.call(.get, "/v1/positions", headers: harness.auth)
            #expect(positions.body.dataList.isEmpty)
            let order = #"{"connectionId":"\#(theirs.id)","accountId":"ACC-1","symbol":"AAPL","side":"buy","type":"market","quantity":"1"}"#
            #expect(try await client.call(.post, "/v1/orders", headers: harness.auth, json: order).status == 422)
            #expect(harness.state.placed.withLock { $0 } == 0)
        }
    }

    @Test func gatewayWatchlists() async throws {
        try await APIHarness.with { harness, client in
            let created = try await client.call(
                .post,
                "/v1/watchlists",
                headers: harness.auth,
                json: #"{"name":"Tech","instruments":[{"symbol":"AAPL"},{"symbol":"BTC/USD"}]}"#
            )
            #expect(created.status == 201)
            let id = try #require(created.body.dataObject["id"] as? String)
            let instruments = created.body.dataObject["instruments"] as? [[String: Any]] ?? []
            #expect(instruments.compactMap { $0["assetClass"] as? String } == ["equity", "crypto"])
            let duplicate = try await client.call(.post, "/v1/watchlists", headers: harness.auth, json: #"{"name":"Tech"}"#)
            #expect(duplicate.status == 409)
            #expect(duplicate.body.errorCode == "conflict")
            let renamed = try await client.call(.put, "/v1/watchlists/\(id)", headers: harness.auth, json: #"{"name":"Tech 2"}"#)
            #expect(renamed.body.dataObject["name"] as? String == "Tech 2")
            let empty = try await client.call(.put, "/v1/watchlists/\(id)", headers: harness.auth, json: "{}")
            #expect(empty.status == 422)
            try await harness.link(.alpaca, baseURL: "https://w.fake")
            let all = try await client.call(.get, "/v1/watchlists", headers: harness.auth)
            #expect(all.body.dataList.compactMap { $0["name"] as? String } == ["Tech 2", "Broker list"])
            let brokerId = try #require(all.body.dataList.last?["id"] as? String)
            #expect(try await client.call(.get, "/v1/watchlists/\(brokerId)", headers: harness.auth).status == 200)
            #expect(try await client.call(.delete, "/v1/watchlists/\(id)", headers: harness.auth).status == 204)
            #expect(try await client.call(.get, "/v1/watchlists/\(id)", headers: harness.auth).status == 404)
        }
    }

    @Test func orderLifecycle() async throws {
        try await APIHarness.with { harness, client in
            let c = try await harness.link(.alpaca, baseURL: "https://o.fake")
            let body =
                #"{"connectionId":"\#(c.id)","accountId":"ACC-1","symbol":"AAPL","side":"buy","type":"limit","quantity":2,"limitPrice":"10.50","clientOrderId":"my-1"}"#
            let preview = try await client.call(.post, "/v1/orders/preview", headers: harness.auth, json: body)
            #expect(preview.status == 200)
            #expect(preview.body.dataObject["estimatedCost"] as? String == "21")
            let placed = try await client.call(.post, "/v1/orders", headers: harness.auth, json: body)
            #expect(placed.status == 201)
            let order = placed.body.dataObject
            let id = try #require(order["id"] as? String)
            #expect(id.hasPrefix("ord_"))
            #expect(order["brokerOrderId"] as? String == "B1")
            #expect(order["clientOrderId"] as? String == "my-1")
            #expect(order["limitPrice"] as? String == "10.5")
            let fetched = try await client.call(.get, "/v1/orders/\(id)", headers: harness.auth)
            #expect(fetched.body.dataObject["status"] as? String == "open")
            let listed = try await client.call(.get, "/v1/orders?status=all", headers: harness.auth)
            #expect(listed.body.dataList.compactMap { $0["id"] as? String } == [id])
            let changed = try await client.call(.patch, "/v1/orders/\(id)", headers: harness.auth, json: #"{"quantity":"3"}"#)
            #expect(changed.status == 200)
            #expect(changed.body.dataObject["quantity"] as? String == "3")
            let canceled = try await client.call(.delete, "/v1/orders/\(id)", headers: harness.auth)
            #expect(canceled.body.dataObject["status"] as? String == "canceled")
            let again = try await client.call(.delete, "/v1/orders/\(id)", headers: harness.auth)
            #expect(again.status == 409)
            #expect((again.body.error?["message"] as? String)?.contains("canceled") == true)
            let noChange = try await client.call(.patch, "/v1/orders/\(id)", headers: harness.auth, json: "{}")
            #expect(noChange.status == 422)
        }
    }

    @Test func theGatewayMakesAClientOrderIdWhenNoneIsGiven() async throws {
        try await APIHarness.with { harness, client in
            let c = try await harness.link(.alpaca, baseURL: "https://g.fake")
            let placed = try await client.call(
                .post,
                "/v1/orders",
                headers: harness.auth,
                json: #"{"connectionId":"\#(c.id)","accountId":"ACC-1","symbol":"AAPL","side":"buy","type":"market","quantity":"1"}"#
            )
            #expect(placed.status == 201)
            #expect((placed.body.dataObject["clientOrderId"] as? String)?.hasPrefix("gw-") == true)
        }
    }
}
