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
import SaxoAdapter
import TestWorlds
import Testing
import TradeItAdapter
import TradeOgreAdapter

/// What an app sees of an order's life, broker by broker (issue 26): the four sandboxes on one market whose clock the
/// test moves, a live gateway with its order watcher (as `gateway serve` runs it), one connection linked to each
/// broker, and the user's order stream open from the start.
///
/// A lifecycle test places an order through `/v1`, makes the market do what the case needs (a price crossed, depth at
/// the touch limited so that an order fills in part, the clock past the close), and then asks
/// ``expectLife(of:final:changes:)`` whether what the gateway says holds: `GET /v1/orders/{id}` answers the final state
/// (never 404), the order's journal ends there, and the stream carried exactly the expected changes, each once.
struct LifecycleWorld: Sendable {
    let market: MarketEngine
    let clock: ManualClock
    let alpaca: AlpacaSandbox
    let saxo: SaxoSandbox
    let tradeIt: TradeItSandbox
    let tradeOgre: TradeOgreSandbox
    let port: Int
    let key: String
    /// Each broker's connection and its first account (`alpaca`, `saxo`, `tradeit`, `tradeogre`).
    let links: [String: (connectionId: String, accountId: String)]
    /// The user's `orders=true` stream, opened before the first order.
    let stream: EventStreamClient

    /// Runs `body` in a world whose market starts at `start` (a Monday 10:00 in New York by default: markets open)
    /// with `prices` pinned before the simulators open (TradeOgre's book and trades start from them).
    static func with(
        prices: [String: String],
        start: Date = ManualClock.defaultStart,
        _ body: @escaping @Sendable (LifecycleWorld) async throws -> Void
    ) async throws {
        let clock = ManualClock(start: start)
        let market = MarketEngine(clock: clock)
        for (symbol, price) in prices { try market.setPriceOverride(Decimal(string: price), for: symbol) }
        let alpaca = AlpacaSandbox(market: market)
        let saxo = SaxoSandbox(configuration: SaxoSandboxConfiguration(sessionOrdersPerSecond: nil), market: market)
        let tradeIt = TradeItSandbox(market: market)
        let tradeOgre = TradeOgreSandbox(configuration: TradeOgreSandboxConfiguration(seededTrades: 0), market: market)
        try await withSandbox(alpaca) { alpacaURL in
            try await withSandbox(saxo) { saxoURL in
                try await withSandbox(tradeIt) { tradeItURL in
                    try await withSandbox(tradeOgre) { tradeOgreURL in
                        let urls = [
                            "alpaca": alpacaURL.absoluteString, "saxo": saxoURL.absoluteString,
                            "tradeit": tradeItURL.absoluteString, "tradeogre": tradeOgreURL.absoluteString,
                        ]
                        try await serve(
                            market: market,
                            clock: clock,
                            alpaca: alpaca,
                            saxo: saxo,
                            tradeIt: tradeIt,
                            tradeOgre: tradeOgre,
                            urls: urls,
                            body
                        )
                    }
                }
            }
        }
    }

    private static func serve(
        market: MarketEngine,
        clock: ManualClock,
        alpaca: AlpacaSandbox,
        saxo: SaxoSandbox,
        tradeIt: TradeItSandbox,
        tradeOgre: TradeOgreSandbox,
        urls: [String: String],
        _ body: @escaping @Sendable (LifecycleWorld) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-lifecycle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "lifecycle", factory: { _ in SwiftLogNoOpLogHandler() })
        let store = try await SQLiteStore.opening(
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
        let gateway = Gateway(
            // Generous read deadlines: what is tested is what the gateway says about an order, not how fast a loaded
            // machine's sandbox answers (a read past its deadline would only delay the change it reports).
            store: store,
            registry: registry,
            router: BrokerRouter(perSourceTimeout: .seconds(20), overallTimeout: .seconds(25)),
            logger: logger,
            streams: StreamSettings(
                quoteInterval: .seconds(1),
                holdingsInterval: .seconds(5),
                feedInterval: .milliseconds(50),
                heartbeatInterval: .milliseconds(250),
                streamsPerUser: 5
            )
        )
        let tenant = try await store.createTenant(name: "lifecycle")
        let key = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "lifecycle").plaintext
        let app = Application(
            router: try GatewayServer.router(gateway: gateway),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            logger: logger
        )
        // The order watcher, as `gateway serve` runs it: it finds the fills and expiries no request asks about.
        let watcher = Task { try await OrderWatcher(gateway: gateway, interval: .milliseconds(100)).run() }
        defer { watcher.cancel() }
        let user = tradeIt.link(.dummy)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let stream = try await EventStreamClient.open(port: port, path: "/v1/stream?orders=true", key: key)
            #expect(await stream.status == 200)
            _ = try await stream.next("ready") { $0.name == "ready" }
            var world = LifecycleWorld(
                market: market,
                clock: clock,
                alpaca: alpaca,
                saxo: saxo,
                tradeIt: tradeIt,
                tradeOgre: tradeOgre,
                port: port,
                key: key,
                links: [:],
                stream: stream
            )
            let bodies = [
                "alpaca": """
                {"broker":"alpaca","baseURL":"\(urls["alpaca"]!)",
                 "credentials":{"keyId":"\(AlpacaSandboxAccount.demoKeyID)","secretKey":"\(AlpacaSandboxAccount.demoSecretKey)"}}
                """,
                "saxo": """
                {"broker":"saxo","baseURL":"\(urls["saxo"]!)/sim/openapi",
                 "credentials":{"appKey":"\(SaxoSandboxConfiguration.demoAppKey)","appSecret":"\(SaxoSandboxConfiguration.demoAppSecret)",
                                "refreshToken":"\(SaxoSandboxConfiguration.demoBootstrapRefreshToken)"}}
                """,
                "tradeit": """
                {"broker":"tradeit","baseURL":"\(urls["tradeit"]!)","settings":{"brokerShortName":"Dummy"},
                 "credentials":{"apiKey":"\(TradeItSandboxConfiguration.demoAPIKey)","userId":"\(user.userId)","userToken":"\(user.userToken)"}}
                """,
                "tradeogre": """
                {"broker":"tradeogre","baseURL":"\(urls["tradeogre"]!)/api/v1",
                 "credentials":{"apiKey":"\(TradeOgreSandboxAccount.demoAPIKey)","apiSecret":"\(TradeOgreSandboxAccount.demoAPISecret)"}}
                """,
            ]
            var links: [String: (connectionId: String, accountId: String)] = [:]
            for (broker, link) in bodies {
                let linked = try await world.call(.post, "/v1/connections", link)
                #expect(linked.status == 201, "\(broker): \(linked.body)")
                let connectionId = try #require(linked.body.data["id"] as? String, "\(broker): \(linked.body)")
                let accounts = try await world.call(.get, "/v1/accounts?connectionId=\(connectionId)")
                let account = try #require(
                    accounts.body.list.first { $0["connectionId"] as? String == connectionId }?["id"] as? String,
                    "\(broker): \(accounts.body)"
                )
                links[broker] = (connectionId, account)
            }
            world = LifecycleWorld(
                market: market,
                clock: clock,
                alpaca: alpaca,
                saxo: saxo,
                tradeIt: tradeIt,
                tradeOgre: tradeOgre,
                port: port,
                key: key,
                links: links,
                stream: stream
            )
            try await body(world)
            await stream.close()
        }
    }

    // MARK: Calls

    /// One call to the live gateway; every call carries a fresh `Idempotency-Key` unless `idempotencyKey` names one.
    func call(
        _ method: HTTPRequest.Method,
        _ path: String,
        _ json: String? = nil,
        idempotencyKey: String? = nil
    ) async throws
        -> (status: Int, body: [String: Any])
    {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .init(rawValue: method.rawValue)
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Idempotency-Key", value: idempotencyKey ?? UUID().uuidString)
        if let json { request.body = .bytes(ByteBuffer(string: json)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 22)
        let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
        return (Int(response.status.code), object ?? [:])
    }

    /// Places an order at `broker` (`alpaca`, `saxo`, `tradeit`, `tradeogre`) on its linked account: `fields` are the
    /// order's JSON members other than the connection and the account (`"symbol":"AAPL","side":"buy",...`).
    /// Answers the status and the body, whatever they are.
    func place(_ broker: String, _ fields: String) async throws -> (status: Int, body: [String: Any]) {
        let link = try #require(links[broker], "no \(broker) connection")
        return try await call(
            .post,
            "/v1/orders",
            """
            {"connectionId":"\(link.connectionId)","accountId":"\(link.accountId)",\(fields)}
            """
        )
    }

    /// Places an order that must be accepted (2xx) and answers its gateway id.
    func placed(_ broker: String, _ fields: String) async throws -> String {
        let answer = try await place(broker, fields)
        #expect((200..<300).contains(answer.status), "\(broker) placement: \(answer.body)")
        return try #require(answer.body.data["id"] as? String, "\(broker) placement: \(answer.body)")
    }

    /// `GET /v1/orders/{id}`.
    func order(_ id: String) async throws -> (status: Int, body: [String: Any]) {
        try await call(.get, "/v1/orders/\(id)")
    }

    /// Moves the market's clock forward and wakes everything that watches it.
    func advance(seconds: TimeInterval) {
        clock.advance(by: seconds)
        market.moves.signal()
    }

    /// Limits what the touch of `symbol` holds (nil: unlimited again), as `PUT /_sandbox/depth/{symbol}` does.
    func setDepth(_ quantity: String?, for symbol: String) throws {
        try market.setDepth(quantity.flatMap { Decimal(string: $0) }, for: symbol)
    }

    /// Pins `symbol`'s price, as `PUT /_sandbox/prices/{symbol}` does.
    func setPrice(_ price: String, for symbol: String) throws {
        try market.setPriceOverride(Decimal(string: price), for: symbol)
    }

    // MARK: What the gateway says

    /// Waits until the stream carried an update of order `id` with `status` (the order watcher or a read found it),
    /// and answers that update's `order`.
    @discardableResult
    func awaitStatus(_ id: String, _ status: String, within timeout: Duration = .seconds(60)) async throws -> [String: Any] {
        let event = try await stream.next("order \(id) \(status)", within: timeout) {
            $0.name == "order" && $0.json["orderId"] as? String == id && $0.json["status"] as? String == status
        }
        return event.json["order"] as? [String: Any] ?? [:]
    }

    /// The stream's updates of order `id` so far, as (kind, status).
    func streamed(_ id: String) async -> [Change] {
        Self.changes(of: id, in: await stream.events)
    }

    static func changes(of id: String, in events: [EventStreamClient.Event]) -> [Change] {
        events.filter { $0.name == "order" && $0.json["orderId"] as? String == id }.map {
            Change($0.json["kind"] as? String ?? "?", $0.json["status"] as? String ?? "-")
        }
    }

    /// One change of an order as the stream carries it: the update's kind and the order's status after it.
    struct Change: Equatable, Sendable, CustomStringConvertible {
        var kind: String
        var status: String
        init(_ kind: String, _ status: String) {
            self.kind = kind
            self.status = status
        }
        var description: String { "\(kind)/\(status)" }
    }

    /// Checks what the gateway says of order `id` once its life is over, and answers the order as read:
    /// - `GET /v1/orders/{id}` answers 200 with `final` (never 404), and a second read changes nothing;
    /// - the order's journal (`GET /v1/orders/{id}/events`) ends in `final`, and every change in it is on the stream;
    /// - the stream carried exactly `changes`, in order, each once.
    @discardableResult
    func expectLife(
        of id: String,
        final: String,
        changes: [Change],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any] {
        try await awaitStatus(id, final)
        let read = try await order(id)
        #expect(read.status == 200, "GET /v1/orders/\(id): \(read.body)", sourceLocation: sourceLocation)
        #expect(read.body.data["status"] as? String == final, "\(read.body)", sourceLocation: sourceLocation)
        let again = try await order(id)
        #expect(again.body.data["status"] as? String == final, "\(again.body)", sourceLocation: sourceLocation)

        let events = try await call(.get, "/v1/orders/\(id)/events")
        #expect(events.status == 200, "\(events.body)", sourceLocation: sourceLocation)
        let journal = events.body.list.filter { $0["kind"] as? String != "intent" }
        #expect(journal.last?["status"] as? String == final, "journal: \(journal)", sourceLocation: sourceLocation)
        // Every journal event but the intent is one stream update; once the stream has as many as the journal, it
        // has caught up (it is a tail of the journal, in order), and any repeat of a change would be in both.
        var snapshot = await stream.events
        var seen = Self.changes(of: id, in: snapshot)
        while seen.count < journal.count {
            _ = try await stream.next("update \(seen.count + 1) of \(id)", after: snapshot.count, within: .seconds(30)) {
                $0.name == "order" && $0.json["orderId"] as? String == id
            }
            snapshot = await stream.events
            seen = Self.changes(of: id, in: snapshot)
        }
        #expect(seen == changes, "stream updates of \(id): \(seen); journal: \(journal)", sourceLocation: sourceLocation)
        #expect(seen.count == journal.count, "stream \(seen) vs journal \(journal)", sourceLocation: sourceLocation)
        return read.body.data
    }
}

// MARK: Cases every equity broker shares

/// The cases whose steps are the same at Alpaca, Saxo and TradeIt (an AAPL order on the linked account); what differs
/// is the broker's wire underneath, which each broker's suite names in its doc comment, and the checks it adds.
extension LifecycleWorld {
    /// Waits until the stream carried an update of order `id` with `quantity` filled, and answers that update's order.
    @discardableResult
    func awaitFilledQuantity(_ id: String, _ quantity: String) async throws -> [String: Any] {
        let event = try await stream.next("order \(id) filled \(quantity)", within: .seconds(60)) {
            $0.name == "order" && $0.json["orderId"] as? String == id
                && ($0.json["order"] as? [String: Any])?["filledQuantity"] as? String == quantity
        }
        return event.json["order"] as? [String: Any] ?? [:]
    }

    /// A resting buy of 1 AAPL (gtc, limit 90 under a price of 100) cancelled through `DELETE /v1/orders/{id}`: the
    /// stream carries `placed/open`, `canceled/canceled`. Answers the order as read at the end.
    @discardableResult
    func expectCancelled(at broker: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let id = try await placed(broker, #""symbol":"AAPL","side":"buy","type":"limit","timeInForce":"gtc","quantity":"1","limitPrice":"90""#)
        let canceled = try await call(.delete, "/v1/orders/\(id)")
        #expect((200..<300).contains(canceled.status), "\(canceled.body)", sourceLocation: sourceLocation)
        let order = try await expectLife(
            of: id,
            final: "canceled",
            changes: [Change("placed", "open"), Change("canceled", "canceled")],
            sourceLocation: sourceLocation
        )
        #expect(order["filledQuantity"] as? String == "0", "\(order)", sourceLocation: sourceLocation)
        return order
    }

    /// A buy of 100,000 AAPL at 100, more than the account's cash pays for: the broker refuses the placement, the
    /// gateway answers 422 `insufficient_funds` naming the order it journaled, and that order reads `rejected`, its
    /// one update `rejected/rejected`.
    func expectRefusedForFunds(at broker: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let answer = try await place(
            broker,
            #""symbol":"AAPL","side":"buy","type":"limit","timeInForce":"day","quantity":"100000","limitPrice":"100""#
        )
        #expect(answer.status == 422, "\(answer.body)", sourceLocation: sourceLocation)
        let error = answer.body["error"] as? [String: Any] ?? [:]
        #expect(error["code"] as? String == "insufficient_funds", "\(answer.body)", sourceLocation: sourceLocation)
        let id = try #require(error["orderId"] as? String, "the refusal names the order: \(answer.body)", sourceLocation: sourceLocation)
        try await expectLife(of: id, final: "rejected", changes: [Change("rejected", "rejected")], sourceLocation: sourceLocation)
    }

    /// A marketable buy of 3 AAPL (limit 110 over a price of 100) with one share at the touch, then one more, then
    /// the price at 104 and the touch deep again: it fills one, two, then all three, and the stream carries
    /// `placed/partially_filled`, `partially_filled/partially_filled`, `filled/filled`. Answers the placement's answer,
    /// the first partial fill's view and the order as read at the end; checks the volume-weighted average (two shares
    /// at the first price, one higher).
    func expectPartlyThenFullyFilled(
        at broker: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (placement: [String: Any], first: [String: Any], final: [String: Any]) {
        try setDepth("1", for: "AAPL")
        let placement = try await place(
            broker,
            #""symbol":"AAPL","side":"buy","type":"limit","timeInForce":"day","quantity":"3","limitPrice":"110""#
        )
        #expect((200..<300).contains(placement.status), "\(placement.body)", sourceLocation: sourceLocation)
        let id = try #require(placement.body.data["id"] as? String, "\(placement.body)", sourceLocation: sourceLocation)
        let first = try await awaitStatus(id, "partially_filled")
        #expect(first["filledQuantity"] as? String == "1", "\(first)", sourceLocation: sourceLocation)
        let firstPrice = try #require(
            (first["averageFillPrice"] as? String).flatMap { Decimal(string: $0) },
            "\(first)",
            sourceLocation: sourceLocation
        )

        // One more share: a second partial fill, another change.
        try setDepth("1", for: "AAPL")
        let second = try await awaitFilledQuantity(id, "2")
        #expect(second["status"] as? String == "partially_filled", "\(second)", sourceLocation: sourceLocation)

        // The market up a little and the touch deep again: the last share fills at the new price.
        try setPrice("104", for: "AAPL")
        try setDepth(nil, for: "AAPL")
        let order = try await expectLife(
            of: id,
            final: "filled",
            changes: [Change("placed", "partially_filled"), Change("partially_filled", "partially_filled"), Change("filled", "filled")],
            sourceLocation: sourceLocation
        )
        #expect(order["filledQuantity"] as? String == "3", "\(order)", sourceLocation: sourceLocation)
        let average = try #require(
            (order["averageFillPrice"] as? String).flatMap { Decimal(string: $0) },
            "\(order)",
            sourceLocation: sourceLocation
        )
        #expect(average > firstPrice && average < firstPrice + 2, "\(order)", sourceLocation: sourceLocation)
        return (placement.body.data, first, order)
    }

    /// A marketable buy of 5 AAPL with two shares at the touch: it fills two, and cancelled then it keeps them
    /// (`placed/partially_filled`, `canceled/canceled`, 2 filled with their average price).
    func expectPartlyFilledCancelKeepsFills(at broker: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try setDepth("2", for: "AAPL")
        let id = try await placed(broker, #""symbol":"AAPL","side":"buy","type":"limit","timeInForce":"day","quantity":"5","limitPrice":"110""#)
        try await awaitStatus(id, "partially_filled")
        let canceled = try await call(.delete, "/v1/orders/\(id)")
        #expect((200..<300).contains(canceled.status), "\(canceled.body)", sourceLocation: sourceLocation)
        let order = try await expectLife(
            of: id,
            final: "canceled",
            changes: [Change("placed", "partially_filled"), Change("canceled", "canceled")],
            sourceLocation: sourceLocation
        )
        #expect(order["filledQuantity"] as? String == "2", "\(order)", sourceLocation: sourceLocation)
        #expect(order["averageFillPrice"] as? String != nil, "\(order)", sourceLocation: sourceLocation)
    }

    /// A resting buy of 1 AAPL (gtc, limit 90) changed to limit 95 through `PATCH /v1/orders/{id}`: the answer is the
    /// same gateway order, open at the new limit. Answers its id, the broker order id before and the answer.
    func changeLimit(
        at broker: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws
        -> (id: String, brokerOrderIdBefore: String, changed: [String: Any])
    {
        let id = try await placed(broker, #""symbol":"AAPL","side":"buy","type":"limit","timeInForce":"gtc","quantity":"1","limitPrice":"90""#)
        let before = try await order(id)
        let brokerOrderId = try #require(before.body.data["brokerOrderId"] as? String, "\(before.body)", sourceLocation: sourceLocation)
        let changed = try await call(.patch, "/v1/orders/\(id)", #"{"limitPrice":"95"}"#)
        #expect(changed.status == 200, "\(changed.body)", sourceLocation: sourceLocation)
        #expect(changed.body.data["id"] as? String == id, "\(changed.body)", sourceLocation: sourceLocation)
        #expect(changed.body.data["limitPrice"] as? String == "95", "\(changed.body)", sourceLocation: sourceLocation)
        #expect(changed.body.data["status"] as? String == "open", "\(changed.body)", sourceLocation: sourceLocation)
        return (id, brokerOrderId, changed.body.data)
    }

    /// After ``changeLimit(at:)``: the market comes down through the new limit (but not the old one) and the changed
    /// order fills; the stream carries `placed/open`, `modified/open`, `filled/filled`. Answers the order as read.
    @discardableResult
    func expectChangedOrderFills(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        try setPrice("93", for: "AAPL")
        let order = try await expectLife(
            of: id,
            final: "filled",
            changes: [Change("placed", "open"), Change("modified", "open"), Change("filled", "filled")],
            sourceLocation: sourceLocation
        )
        let average = try #require(
            (order["averageFillPrice"] as? String).flatMap { Decimal(string: $0) },
            "\(order)",
            sourceLocation: sourceLocation
        )
        #expect(average > 90 && average <= 95, "\(order)", sourceLocation: sourceLocation)
        return order
    }
}
