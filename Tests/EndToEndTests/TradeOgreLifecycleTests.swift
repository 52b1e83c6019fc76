import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Sandbox
import TestWorlds
import Testing

/// A TradeOgre order's life through `/v1`, against the TradeOgre sandbox (issue 26): every end an order can come to
/// reads by its id with its real state, its journal ends there, and the stream carries each change once.
///
/// What TradeOgre's API v1 can do decides the cases (its documentation, archived, and ccxt 4.5.5's `tradeogre`:
/// `/work/shared/brokers/tradeogre.md` §2.3): `/order/buy` and `/order/sell` take `market`, `quantity` and `price`
/// only, so every order is a limit order that rests until it fills or is cancelled.
/// - There are **no market orders**: a market order is refused by the gateway (422, field `type`) before anything is
///   journaled; the nearest true thing, a marketable limit, fills at once against the book.
/// - There is **no time in force** and so no day order and no expiry: a day order is refused (422, field
///   `timeInForce`), nothing is journaled and nothing streamed; a good-till-cancelled order outlives the day.
/// - There is **no order change**: the gateway emulates a replacement as cancel, then place (declared `emulated`);
///   the gateway's order keeps its id and takes the new broker uuid.
/// - Partial fills come from the book: another account's order that crosses part of a resting order trades it
///   (the sandbox's book has price-time priority; TradeOgre's `/account/order/{uuid}` then says `quantity`, what
///   remains, and `fulfilled`, what traded). TradeOgre reports no average fill price, so none is read.
/// - A rejection is immediate (`{"success":false,"error":"Insufficient funds"}`); TradeOgre never accepts an order
///   and rejects it later.
@Suite("Lifecycle: TradeOgre through /v1", .heavyWorld)
struct TradeOgreLifecycleTests {
    /// XMR/BTC pinned at 0.005: the sandbox's maker quotes around a bid of 0.004995 and an ask of 0.005005 (spread
    /// 0.2 %), so 0.005 is inside the spread, 0.006 crosses every ask level and 0.004 rests below every bid level.
    static let prices = ["XMR/BTC": "0.005"]

    @Test func aMarketableLimitOrderFilledAtOnce() async throws {
        try await LifecycleWorld.with(prices: Self.prices) { world in
            let id = try await world.placed(
                "tradeogre",
                #""symbol":"XMR/BTC","side":"buy","type":"limit","timeInForce":"gtc","quantity":"0.5","limitPrice":"0.006""#
            )
            let order = try await world.expectLife(of: id, final: "filled", changes: [.init("placed", "filled")])
            #expect(order["filledQuantity"] as? String == "0.5")
            #expect(order["quantity"] as? String == "0.5")
        }
    }

    @Test func aMarketOrderIsRefusedAndNothingIsJournaled() async throws {
        try await LifecycleWorld.with(prices: Self.prices) { world in
            let refused = try await world.place(
                "tradeogre",
                #""symbol":"XMR/BTC","side":"buy","type":"market","timeInForce":"gtc","quantity":"0.5""#
            )
            #expect(refused.status == 422, "\(refused.body)")
            let error = refused.body["error"] as? [String: Any] ?? [:]
            #expect(error["code"] as? String == "unprocessable")
            #expect("\(error["details"] ?? "")".contains("type"), "\(error)")
            #expect(error["orderId"] == nil, "a refused request is not an order: \(error)")
            try await Self.expectNoOrderUpdates(before: world)
        }
    }

    @Test func aLimitOrderPartlyThenFullyFilled() async throws {
        try await LifecycleWorld.with(prices: Self.prices) { world in
            let id = try await world.placed(
                "tradeogre",
                #""symbol":"XMR/BTC","side":"buy","type":"limit","timeInForce":"gtc","quantity":"2","limitPrice":"0.005""#
            )
            let open = try await world.awaitStatus(id, "open")
            let counterparty = try await Venue.counterparty(world)

            try await counterparty.sell(quantity: "0.75", price: "0.005")
            let partly = try await world.awaitStatus(id, "partially_filled")
            #expect(partly["filledQuantity"] as? String == "0.75", "\(partly)")
            #expect(partly["quantity"] as? String == "2", "\(partly)")
            // TradeOgre has no client order ids: the gateway's stays the order's when the watcher reads it back by uuid.
            #expect(partly["clientOrderId"] as? String == open["clientOrderId"] as? String, "\(partly)")

            try await counterparty.sell(quantity: "1.25", price: "0.005")
            let order = try await world.expectLife(
                of: id,
                final: "filled",
                changes: [.init("placed", "open"), .init("partially_filled", "partially_filled"), .init("filled", "filled")]
            )
            #expect(order["filledQuantity"] as? String == "2")
            #expect(order["quantity"] as? String == "2")
        }
    }

    @Test func aCancelledOrder() async throws {
        try await LifecycleWorld.with(prices: Self.prices) { world in
            let id = try await world.placed(
                "tradeogre",
                #""symbol":"XMR/BTC","side":"buy","type":"limit","timeInForce":"gtc","quantity":"1","limitPrice":"0.004""#
            )
            let canceled = try await world.call(.delete, "/v1/orders/\(id)")
            #expect(canceled.status == 200, "\(canceled.body)")
            #expect(canceled.body.data["status"] as? String == "canceled")
            try await world.expectLife(of: id, final: "canceled", changes: [.init("placed", "open"), .init("canceled", "canceled")])
            // TradeOgre forgets a cancelled order (`Order not found`); the gateway answers it from its journal.
            let again = try await world.call(.delete, "/v1/orders/\(id)")
            #expect(again.status == 409, "\(again.body)")
        }
    }

    @Test func aReplacedOrderIsCancelledThenPlacedAgain() async throws {
        try await LifecycleWorld.with(prices: Self.prices) { world in
            let id = try await world.placed(
                "tradeogre",
                #""symbol":"XMR/BTC","side":"buy","type":"limit","timeInForce":"gtc","quantity":"1","limitPrice":"0.004""#
            )
            let first = try await world.awaitStatus(id, "open")
            let original = try #require(first["brokerOrderId"] as? String)
            let changed = try await world.call(.patch, "/v1/orders/\(id)", #"{"limitPrice":"0.0041"}"#)
            #expect(changed.status == 200, "\(changed.body)")
            #expect(changed.body.data["id"] as? String == id)
            #expect(changed.body.data["limitPrice"] as? String == "0.0041")
            let replacement = try #require(changed.body.data["brokerOrderId"] as? String)
            #expect(replacement != original, "the replacement is a new TradeOgre order")
            let canceled = try await world.call(.delete, "/v1/orders/\(id)")
            #expect(canceled.status == 200, "\(canceled.body)")
            let order = try await world.expectLife(
                of: id,
                final: "canceled",
                changes: [.init("placed", "open"), .init("modified", "open"), .init("canceled", "canceled")]
            )
            #expect(order["brokerOrderId"] as? String == replacement)
            #expect(order["limitPrice"] as? String == "0.0041")
        }
    }

    /// TradeOgre has no day orders: the gateway refuses one before anything reaches the journal or the broker. A
    /// good-till-cancelled order is still open days later, until it is cancelled.
    @Test func aDayOrderIsRefusedAndAGtcOrderDoesNotExpire() async throws {
        try await LifecycleWorld.with(prices: Self.prices) { world in
            let refused = try await world.place(
                "tradeogre",
                #""symbol":"XMR/BTC","side":"buy","type":"limit","timeInForce":"day","quantity":"1","limitPrice":"0.004""#
            )
            #expect(refused.status == 422, "\(refused.body)")
            let error = refused.body["error"] as? [String: Any] ?? [:]
            #expect(error["code"] as? String == "unprocessable")
            #expect("\(error["details"] ?? "")".contains("timeInForce"), "\(error)")
            #expect(error["orderId"] == nil, "a refused request is not an order: \(error)")
            try await Self.expectNoOrderUpdates(before: world)

            let id = try await world.placed(
                "tradeogre",
                #""symbol":"XMR/BTC","side":"buy","type":"limit","timeInForce":"gtc","quantity":"1","limitPrice":"0.004""#
            )
            try await world.awaitStatus(id, "open")
            world.advance(seconds: 3 * 86_400)
            let later = try await world.order(id)
            #expect(later.status == 200)
            #expect(later.body.data["status"] as? String == "open", "\(later.body)")
            let canceled = try await world.call(.delete, "/v1/orders/\(id)")
            #expect(canceled.status == 200, "\(canceled.body)")
            try await world.expectLife(of: id, final: "canceled", changes: [.init("placed", "open"), .init("canceled", "canceled")])
        }
    }

    @Test func aRejectedOrder() async throws {
        try await LifecycleWorld.with(prices: Self.prices) { world in
            // 1,000 XMR at 0.005 costs 5 BTC; the demo account has 1.5.
            let refused = try await world.place(
                "tradeogre",
                #""symbol":"XMR/BTC","side":"buy","type":"limit","timeInForce":"gtc","quantity":"1000","limitPrice":"0.005""#
            )
            #expect(refused.status == 422, "\(refused.body)")
            let error = refused.body["error"] as? [String: Any] ?? [:]
            #expect(error["code"] as? String == "insufficient_funds", "\(error)")
            let id = try #require(error["orderId"] as? String, "the rejected order's id: \(refused.body)")
            let order = try await world.expectLife(of: id, final: "rejected", changes: [.init("rejected", "rejected")])
            #expect(order["quantity"] as? String == "1000")
        }
    }

    /// TradeOgre forgets a cancelled order (`/account/order/{uuid}` answers `Order not found`). An order cancelled at
    /// the venue, not through the gateway, is still answered by its id (never a 404): its last confirmed state, from
    /// the journal and marked `source: journal`; the gateway sends it no cancel (the venue would not find it), and
    /// the stream carried nothing the gateway did not see.
    @Test func anOrderTheVenueForgotIsAnsweredFromTheJournal() async throws {
        try await LifecycleWorld.with(prices: Self.prices) { world in
            let id = try await world.placed(
                "tradeogre",
                #""symbol":"XMR/BTC","side":"buy","type":"limit","timeInForce":"gtc","quantity":"1","limitPrice":"0.004""#
            )
            let open = try await world.awaitStatus(id, "open")
            try await Venue.linkedAccount(world).cancel(uuid: try #require(open["brokerOrderId"] as? String))
            let read = try await world.order(id)
            #expect(read.status == 200, "\(read.body)")
            #expect(read.body.data["status"] as? String == "open", "\(read.body)")
            #expect(read.body.data["source"] as? String == "journal", "\(read.body)")
            let cancel = try await world.call(.delete, "/v1/orders/\(id)")
            #expect(cancel.status == 409, "\(cancel.body)")
            #expect(await world.streamed(id) == [.init("placed", "open")])
        }
    }

    // MARK: Helpers

    /// That the stream carried no order update before now: a sentinel order is placed and cancelled, and its first
    /// update must be the first order update the stream carried (the stream is a tail of the journal, in order).
    static func expectNoOrderUpdates(before world: LifecycleWorld, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let sentinel = try await world.placed(
            "tradeogre",
            #""symbol":"XMR/BTC","side":"sell","type":"limit","timeInForce":"gtc","quantity":"1","limitPrice":"0.009""#
        )
        try await world.awaitStatus(sentinel, "open")
        let orders = await world.stream.events.filter { $0.name == "order" }
        #expect(orders.first?.json["orderId"] as? String == sentinel, "updates before the sentinel: \(orders)", sourceLocation: sourceLocation)
        #expect(try await world.call(.delete, "/v1/orders/\(sentinel)").status == 200, sourceLocation: sourceLocation)
    }

    /// A TradeOgre account at the venue, called through TradeOgre's own API (HTTP Basic, form bodies), not the
    /// gateway: another account is the other side of a trade that fills the gateway's order; the linked account
    /// itself acts behind the gateway's back.
    struct Venue {
        let baseURL: String
        let authorization: String

        /// Another account, opened at run time (the counterparty).
        static func counterparty(_ world: LifecycleWorld) async throws -> Venue {
            let account = try world.tradeOgre.provisionAccount()
            return try await Venue(world, apiKey: account.apiKey, apiSecret: account.apiSecret)
        }

        /// The demo account the gateway's connection is linked to.
        static func linkedAccount(_ world: LifecycleWorld) async throws -> Venue {
            try await Venue(world, apiKey: TradeOgreSandboxAccount.demoAPIKey, apiSecret: TradeOgreSandboxAccount.demoAPISecret)
        }

        private init(_ world: LifecycleWorld, apiKey: String, apiSecret: String) async throws {
            let link = try #require(world.links["tradeogre"])
            let connection = try await world.call(.get, "/v1/connections/\(link.connectionId)")
            baseURL = try #require(connection.body.data["baseURL"] as? String, "\(connection.body)")
            authorization = "Basic " + Data("\(apiKey):\(apiSecret)".utf8).base64EncodedString()
        }

        /// `POST /order/sell` `market=XMR-BTC&quantity=…&price=…`.
        func sell(quantity: String, price: String, market: String = "XMR-BTC") async throws {
            try await post("/order/sell", "market=\(market)&quantity=\(quantity)&price=\(price)")
        }

        /// `POST /order/cancel` `uuid=…`.
        func cancel(uuid: String) async throws {
            try await post("/order/cancel", "uuid=\(uuid)")
        }

        /// TradeOgre's answer must say `success`.
        private func post(_ path: String, _ form: String) async throws {
            var request = HTTPClientRequest(url: baseURL + path)
            request.method = .POST
            request.headers.add(name: "Authorization", value: authorization)
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(response.status.code == 200 && body.contains("\"success\":true"), "\(path): \(body)")
        }
    }
}
