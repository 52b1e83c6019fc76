import Foundation
import HTTPTypes
import TestWorlds
import Testing

/// An Alpaca order's life through `/v1`, against the Alpaca sandbox (issue 26): every end an order can come to reads
/// by its id with its real state, its journal ends there, and the stream carries each change once.
///
/// How Alpaca tells an order's end, and so what these tests lean on: `GET /v2/orders/{id}` answers every order the
/// account ever placed, open or closed, with its `status` (`new`, `partially_filled`, `filled`, `canceled`, `expired`,
/// `replaced`, `rejected`, …), its cumulative `filled_qty` and volume-weighted `filled_avg_price`, and the time of
/// each end (`filled_at`, `canceled_at`, `expired_at`, `replaced_at`, `failed_at`) (docs.alpaca.markets, "Orders";
/// alpaca-py `alpaca.trading.models.Order`). The gateway's order watcher reads it until the order ends.
///
/// - A replaced order: `PATCH /v2/orders/{id}` answers a new order (a new `id`, `replaces` the old one) and the old
///   one becomes `replaced` with `replaced_by`. The gateway keeps its own order id and follows the replacement (a
///   `modified` change, a new `brokerOrderId`); the old Alpaca order stays readable by its broker id as `replaced`.
/// - A rejected order: Alpaca refuses an order it cannot accept in the placement's answer (403 `insufficient buying
///   power`, 422 validation); that is the case tested. Alpaca also documents a `rejected` trade update for an order
///   routed and then refused by the venue; the sandbox's venue does not refuse routed orders, so that path is not
///   exercised here.
/// - Day orders lapse at the regular close (16:00 in New York) as `expired`.
@Suite("Lifecycle: Alpaca through /v1", .heavyWorld)
struct AlpacaLifecycleTests {
    typealias Change = LifecycleWorld.Change

    @Test func aMarketOrderFilledAtOnce() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let id = try await world.placed("alpaca", #""symbol":"AAPL","side":"buy","type":"market","timeInForce":"day","quantity":"2""#)
            let order = try await world.expectLife(of: id, final: "filled", changes: [.init("placed", "filled")])
            #expect(order["filledQuantity"] as? String == "2")
            #expect(order["averageFillPrice"] as? String != nil, "\(order)")
            #expect(order["filledAt"] as? String != nil, "\(order)")
        }
    }

    @Test func aLimitOrderPartlyThenFullyFilled() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let life = try await world.expectPartlyThenFullyFilled(at: "alpaca")
            // The first share filled while the placement was in flight: its answer says so.
            #expect(life.placement["status"] as? String == "partially_filled", "\(life.placement)")
            #expect(life.placement["filledQuantity"] as? String == "1", "\(life.placement)")
            #expect(life.final["filledAt"] as? String != nil, "\(life.final)")
        }
    }

    @Test func aCancelledOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let order = try await world.expectCancelled(at: "alpaca")
            #expect(order["canceledAt"] as? String != nil, "\(order)")
        }
    }

    @Test func aPartlyFilledOrderCancelledKeepsItsFills() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            try await world.expectPartlyFilledCancelKeepsFills(at: "alpaca")
        }
    }

    @Test func aReplacedOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let (id, oldBrokerId, changed) = try await world.changeLimit(at: "alpaca")
            let newBrokerId = try #require(changed["brokerOrderId"] as? String, "\(changed)")
            #expect(newBrokerId != oldBrokerId, "Alpaca's replace is a new order: \(changed)")
            #expect(changed["replaces"] as? String == oldBrokerId, "\(changed)")

            // The old Alpaca order is over, and says by what.
            let old = try await world.call(.get, "/v1/orders?brokerOrderId=\(oldBrokerId)")
            #expect(old.status == 200, "\(old.body)")
            let replaced = try #require(old.body.list.first, "\(old.body)")
            #expect(replaced["status"] as? String == "replaced", "\(replaced)")
            #expect(replaced["replacedBy"] as? String == newBrokerId, "\(replaced)")

            // The replacement is what fills.
            let order = try await world.expectChangedOrderFills(id)
            #expect(order["brokerOrderId"] as? String == newBrokerId, "\(order)")
        }
    }

    @Test func anExpiredDayOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let id = try await world.placed(
                "alpaca",
                #""symbol":"AAPL","side":"buy","type":"limit","timeInForce":"day","quantity":"1","limitPrice":"90""#
            )
            try await world.awaitStatus(id, "open")
            // 10:00 in New York to 18:00, past the 16:00 close where Alpaca's day order lapses.
            world.advance(seconds: 8 * 3600)
            let order = try await world.expectLife(of: id, final: "expired", changes: [Change("placed", "open"), Change("expired", "expired")])
            #expect(order["filledQuantity"] as? String == "0", "\(order)")
            #expect(order["expiredAt"] as? String != nil, "\(order)")
        }
    }

    @Test func aRejectedOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            // More than the account's cash pays for: Alpaca refuses the placement (403 `insufficient buying power`).
            try await world.expectRefusedForFunds(at: "alpaca")
        }
    }
}
