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

/// `GET /v1/stream` against a live gateway on a loopback port and the Alpaca sandbox: a price move and an order's
/// fill reach an SSE client within a second, and a client that drops and comes back with `Last-Event-ID` is sent
/// every order update it missed, each once.
@Suite(.heavyWorld) struct StreamEndToEndTests {
    struct World: Sendable {
        let port: Int
        let key: String
        let otherKey: String
        let market: MarketEngine
        let connectionId: String
        let accountId: String
        let gateway: Gateway

        func call(
            _ method: HTTPRequest.Method,
            _ path: String,
            _ json: String? = nil,
            key: String? = nil
        ) async throws
            -> (status: Int, body: [String: Any])
        {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.method = .init(rawValue: method.rawValue)
            request.headers.add(name: "Authorization", value: "Bearer \(key ?? self.key)")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
            if let json { request.body = .bytes(ByteBuffer(string: json)) }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
            let body = try await response.body.collect(upTo: 1 << 22)
            let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
            return (Int(response.status.code), object ?? [:])
        }

        func placeLimitBuy(_ symbol: String, limit: String) async throws -> String {
            let placed = try await call(
                .post,
                "/v1/orders",
                """
                {"connectionId":"\(connectionId)","accountId":"\(accountId)","symbol":"\(symbol)","side":"buy",
                 "type":"limit","timeInForce":"gtc","quantity":"1","limitPrice":"\(limit)"}
                """
            )
            #expect(placed.status == 201, "\(placed.body)")
            return try #require(placed.body.data["id"] as? String)
        }

        func stream(_ query: String, lastEventId: String? = nil, key: String? = nil) async throws -> EventStreamClient {
            try await EventStreamClient.open(port: port, path: "/v1/stream?\(query)", key: key ?? self.key, lastEventId: lastEventId)
        }
    }

    func withWorld(
        streamsPerUser: Int = 5,
        heartbeat: Duration = .seconds(5),
        quoteInterval: Duration = .milliseconds(100),
        _ body: @escaping @Sendable (World) async throws -> Void
    ) async throws {
        let market = MarketEngine(clock: ManualClock(start: Date()))
        try market.setPriceOverride(Decimal(string: "100"), for: "AAPL")
        try market.setPriceOverride(Decimal(string: "50"), for: "MSFT")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSandbox(AlpacaSandbox(market: market)) { url in
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
            let gateway = Gateway(
                // Generous read deadlines: what is tested is what reaches the stream, not how fast a loaded machine's
                // sandbox answers (a read past its deadline would report the broker failing, and no change).
                store: store,
                registry: registry,
                router: BrokerRouter(perSourceTimeout: .seconds(20), overallTimeout: .seconds(25)),
                logger: logger,
                streams: StreamSettings(
                    quoteInterval: quoteInterval,
                    holdingsInterval: .seconds(2),
                    feedInterval: .milliseconds(50),
                    heartbeatInterval: heartbeat,
                    streamsPerUser: streamsPerUser
                )
            )
            let tenant = try await store.createTenant(name: "stream")
            let key = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "stream").plaintext
            let other = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "other"), audit: nil)
            let otherKey = try await store.issueAPIKey(
                tenantId: tenant.id,
                label: "other",
                scopes: ["read", "trade"],
                userId: other.id,
                audit: nil
            ).plaintext
            let app = Application(
                router: try GatewayServer.router(gateway: gateway),
                configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                logger: logger
            )
            // The order watcher and the alerts, as `gateway serve` runs them: the watcher finds the fills no request
            // asks about; the monitor feeds the alert engine, whose firings go on the user's streams.
            let watcher = Task { try await OrderWatcher(gateway: gateway, interval: .milliseconds(100)).run() }
            defer { watcher.cancel() }
            let alerts = AlertEngine(gateway: gateway) { tenantId, userId, notification in
                gateway.streams.publishAlert(notification, tenantId: tenantId, userId: userId)
            }
            let monitor = Task {
                try await AlertMonitor(gateway: gateway, engine: alerts, interval: .milliseconds(100)).run()
            }
            defer { monitor.cancel() }
            try await app.test(.live) { client in
                let port = try #require(client.port)
                var world = World(
                    port: port,
                    key: key,
                    otherKey: otherKey,
                    market: market,
                    connectionId: "",
                    accountId: "",
                    gateway: gateway
                )
                let linked = try await world.call(
                    .post,
                    "/v1/connections",
                    """
                    {"broker":"alpaca","baseURL":"\(url.absoluteString)",
                     "credentials":{"keyId":"\(AlpacaSandboxAccount.demoKeyID)","secretKey":"\(AlpacaSandboxAccount.demoSecretKey)"}}
                    """
                )
                #expect(linked.status == 201, "\(linked.body)")
                let connectionId = try #require(linked.body.data["id"] as? String)
                let accounts = try await world.call(.get, "/v1/accounts")
                let accountId = try #require(accounts.body.list.first?["id"] as? String)
                world = World(
                    port: port,
                    key: key,
                    otherKey: otherKey,
                    market: market,
                    connectionId: connectionId,
                    accountId: accountId,
                    gateway: gateway
                )
                try await body(world)
            }
        }
    }

    @Test func priceMovesAndFillsArriveWithinASecondAndAResumedStreamMissesNoOrderUpdate() async throws {
        try await withWorld { world in
            let first = try await world.stream("symbols=AAPL&positions=true")
            #expect(await first.status == 200)
            let ready = try await first.next("ready") { $0.name == "ready" }
            #expect(ready.json["orders"] as? Bool == true)
            #expect(ready.json["quotes"] as? [String] == ["AAPL"])
            #expect(ready.id != nil)
            // Another user of the tenant streams too: none of the first user's orders may reach them.
            let other = try await world.stream("orders=true", key: world.otherKey)
            _ = try await other.next("the other user's ready") { $0.name == "ready" }

            // A price move reaches the client within a second.
            _ = try await first.next("AAPL's first quote") { $0.name == "quote" && $0.json["last"] as? String == "100" }
            try world.market.setPriceOverride(Decimal(string: "101.25"), for: "AAPL")
            let moved = ContinuousClock.now
            let quote = try await first.next("AAPL at 101.25", within: .seconds(1)) {
                $0.name == "quote" && $0.json["last"] as? String == "101.25"
            }
            #expect(ContinuousClock.now - moved < .seconds(1))
            #expect(quote.json["connectionId"] as? String == world.connectionId)

            // An order rests, then fills when the price comes down to it; the fill reaches the client within a second.
            let resting = try await world.placeLimitBuy("AAPL", limit: "95")
            _ = try await first.next("the order placed") {
                $0.name == "order" && $0.json["orderId"] as? String == resting && $0.json["kind"] as? String == "placed"
            }
            try world.market.setPriceOverride(Decimal(string: "94"), for: "AAPL")
            let dropped = ContinuousClock.now
            let fill = try await first.next("the order filled", within: .seconds(1)) {
                $0.name == "order" && $0.json["orderId"] as? String == resting && $0.json["kind"] as? String == "filled"
            }
            #expect(ContinuousClock.now - dropped < .seconds(1))
            #expect((fill.json["order"] as? [String: Any])?["filledQuantity"] as? String == "1")
            let lastSeen = try #require(fill.id)
            // The fill changes what is held: the stream says so after its snapshot. (Positions are read on their own
            // clock, so the change may come just before the journal's `filled` update: any AAPL change counts.)
            let held = try await first.next("the AAPL position after the fill", within: .seconds(60)) {
                $0.name == "position" && $0.json["change"] as? String != "snapshot"
                    && (($0.json["position"] as? [String: Any])?["instrument"] as? [String: Any])?["symbol"] as? String == "AAPL"
            }
            #expect(["opened", "changed"].contains(held.json["change"] as? String ?? ""), "\(held)")
            #expect((held.json["position"] as? [String: Any])?["quantity"] as? String == "11", "\(held)")

            // The client drops. Meanwhile a second order is placed and fills; a second stream of the same user
            // (opened now, without a Last-Event-ID) shows when that has happened.
            await first.close()
            let witness = try await world.stream("orders=true")
            let missed = try await world.placeLimitBuy("MSFT", limit: "45")
            try world.market.setPriceOverride(Decimal(string: "44"), for: "MSFT")
            _ = try await witness.next("the second order filled") {
                $0.name == "order" && $0.json["orderId"] as? String == missed && $0.json["kind"] as? String == "filled"
            }
            await witness.close()

            // Back with the last id it saw: everything after it comes first, once, then the live updates.
            let resumed = try await world.stream("orders=true", lastEventId: lastSeen)
            let again = try await resumed.next("the resumed ready") { $0.name == "ready" }
            #expect(again.json["resumed"] as? Bool == true)
            _ = try await resumed.next("the missed fill") {
                $0.name == "order" && $0.json["orderId"] as? String == missed && $0.json["kind"] as? String == "filled"
            }
            let replayed = await resumed.events.filter { $0.name == "order" }
            #expect(replayed.contains { $0.json["orderId"] as? String == missed && $0.json["kind"] as? String == "placed" })
            // Nothing the first stream saw is sent again, and every id is sent once, in order.
            let seenBefore = Set(await first.events.compactMap(\.id))
            #expect(replayed.allSatisfy { !seenBefore.contains($0.id ?? "") }, "\(replayed)")
            let ids = replayed.compactMap { $0.id.flatMap { Int64($0) } }
            #expect(ids == ids.sorted() && Set(ids).count == ids.count)
            #expect(ids.allSatisfy { $0 > Int64(lastSeen)! })
            await resumed.close()

            #expect(await other.events.filter { $0.name == "order" }.isEmpty)
            await other.close()
        }
    }

    /// Polled once a minute here, a price move that arrives within a second came through Alpaca's own stream: the
    /// gateway's socket to the sandbox's market-data WebSocket, under the egress policy's sandbox grant.
    @Test func alpacaQuotesComeThroughAlpacasOwnStream() async throws {
        try await withWorld(quoteInterval: .seconds(60)) { world in
            let stream = try await world.stream("symbols=AAPL&orders=false")
            _ = try await stream.next("ready") { $0.name == "ready" }
            // Once subscribed, the price now is read once: what the broker's stream does not push.
            _ = try await stream.next("AAPL's first quote") { $0.name == "quote" && $0.json["last"] as? String == "100" }
            for price in ["100.5", "101.5", "102.5"] {
                try world.market.setPriceOverride(Decimal(string: price), for: "AAPL")
                let moved = ContinuousClock.now
                let quote = try await stream.next("AAPL at \(price)", within: .seconds(2)) {
                    $0.name == "quote" && $0.json["last"] as? String == price
                }
                #expect(ContinuousClock.now - moved < .seconds(1))
                #expect(quote.json["bid"] != nil && quote.json["ask"] != nil)
            }
            let seen = await stream.events
            #expect(!seen.contains { $0.name == "source" }, "\(seen)")
            await stream.close()
        }
    }

    @Test func priceAndOrderAlertsFireOnTheStream() async throws {
        try await withWorld { world in
            let created = try await world.call(
                .post,
                "/v1/alerts",
                """
                {"name": "MSFT over 55", "rule": {"type": "price", "instrument": {"symbol": "MSFT", "assetClass": "equity"},
                 "condition": "above", "threshold": "55"}}
                """
            )
            #expect(created.status == 201, "\(created.body)")
            let priceAlert = try #require(created.body.data["id"] as? String)
            let filled = try await world.call(.post, "/v1/alerts", #"{"name": "fills", "rule": {"type": "order", "on": "filled"}}"#)
            #expect(filled.status == 201, "\(filled.body)")
            let orderAlert = try #require(filled.body.data["id"] as? String)

            let stream = try await world.stream("orders=false")
            _ = try await stream.next("ready") { $0.name == "ready" }
            // Below the threshold nothing fires; at 56 the price alert does, once.
            try world.market.setPriceOverride(Decimal(string: "54"), for: "MSFT")
            try world.market.setPriceOverride(Decimal(string: "56"), for: "MSFT")
            let price = try await stream.next("the price alert") {
                $0.name == "alert" && $0.json["alertId"] as? String == priceAlert
            }
            #expect(price.json["kind"] as? String == "price")
            #expect(price.json["price"] as? String == "56")

            // A market order fills at once: the order alert fires with the order's update.
            let placed = try await world.call(
                .post,
                "/v1/orders",
                """
                {"connectionId":"\(world.connectionId)","accountId":"\(world.accountId)","symbol":"MSFT","side":"buy",
                 "type":"market","quantity":"1"}
                """
            )
            #expect(placed.status == 201, "\(placed.body)")
            let orderId = try #require(placed.body.data["id"] as? String)
            let order = try await stream.next("the order alert") {
                $0.name == "alert" && $0.json["alertId"] as? String == orderAlert
            }
            #expect((order.json["orderUpdate"] as? [String: Any])?["orderId"] as? String == orderId)
            let stored = try await world.call(.get, "/v1/alerts/\(priceAlert)")
            #expect(stored.body.data["lastFiredAt"] != nil)
            #expect(stored.body.data["armed"] as? Bool == false)
            #expect(await stream.events.filter { $0.json["alertId"] as? String == priceAlert }.count == 1)
            await stream.close()
        }
    }

    @Test func whatCannotBeStreamedIsRefusedBeforeTheFirstEvent() async throws {
        try await withWorld(streamsPerUser: 1, heartbeat: .milliseconds(200)) { world in
            let badCursor = try await world.call(.get, "/v1/stream?orders=true&lastEventId=12abc")
            #expect(badCursor.status == 400)
            #expect(((badCursor.body["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["field"] as? String == "Last-Event-ID")
            let noList = try await world.call(.get, "/v1/stream?watchlist=wl_missing")
            #expect(noList.status == 404)
            let badSymbol = try await world.call(.get, "/v1/stream?symbols=AAPL,,MSFT")
            #expect(badSymbol.status == 400)

            // One stream per user here: a second one is refused with 429 until the first closes.
            let open = try await world.stream("orders=true")
            _ = try await open.next("ready") { $0.name == "ready" }
            let refused = try await world.call(.get, "/v1/stream?orders=true")
            #expect(refused.status == 429)
            await open.close()
            // The slot frees once the server sees the client gone (at the latest when its next heartbeat fails).
            var admitted: EventStreamClient?
            for _ in 0..<200 where admitted == nil {
                let next = try await world.stream("orders=true")
                if await next.status == 200 {
                    admitted = next
                } else {
                    await next.close()
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            let reopened = try #require(admitted)
            _ = try await reopened.next("ready again") { $0.name == "ready" }
            await reopened.close()
        }
    }
}
