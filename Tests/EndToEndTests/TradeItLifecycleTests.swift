import Foundation
import HTTPTypes
import TestWorlds
import Testing

/// A TradeIt order's life through `/v1`, against the TradeIt sandbox (issue 26): every end an order can come to reads
/// by its id with its real state, its journal ends there, and the stream carries each change once.
///
/// How TradeIt tells an order's end, and so what these tests lean on: `order/getSingleOrderStatus` (and
/// `getAllOrderStatus`, `cancelOrder`) answer `orderStatusDetailsList` entries whose `orderStatus` is one of
/// `PENDING`, `OPEN`, `PART_FILLED`, `FILLED`, `CANCELED`, `REJECTED`, `NOT_FOUND`, `PENDING_CANCEL`, `EXPIRED`
/// (TradeItIosTicketSDK2 `TradeItOrderStatusDetails.OrderStatus`), and whose leg carries `orderedQuantity`, the
/// cumulative `filledQuantity` and `fills` (`price`, `quantity`, `timestamp` each: TradeItIosEmsApi `TradeItOrderLeg`,
/// `TradeItOrderFill`). TradeIt pushes nothing: the gateway's order watcher reads the order until it ends.
///
/// - A replaced order: TradeIt has no change call (neither JavaApi nor the iOS SDKs have one), so the gateway
///   declares `modifyOrder` emulated and changes an order by `order/cancelOrder`, then preview and place of the
///   changed order. The gateway keeps its own order id and follows the new order number (a `modified` change, a new
///   `brokerOrderId`); the first TradeIt order stays readable by its number as `canceled` (TradeIt has no `replaced`
///   state).
/// - A rejected order: TradeIt refuses an order it cannot take in the preview's answer (`"status":"ERROR"`, code 200
///   `BROKER_EXECUTION_ERROR` with the broker's text); that is the case tested. `REJECTED` also exists as an
///   `orderStatus` for an order a broker refused after taking it, but no TradeIt source says when the Dummy broker (the
///   sandbox's) would do that, so the sandbox does not invent it.
/// - The sandbox lapses a day order at the end of its UTC day (`EXPIRED`).
@Suite("Lifecycle: TradeIt through /v1", .heavyWorld)
struct TradeItLifecycleTests {
    typealias Change = LifecycleWorld.Change

    @Test func aMarketOrderFilledAtOnce() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let placement = try await world.place(
                "tradeit",
                #""symbol":"AAPL","side":"buy","type":"market","timeInForce":"day","quantity":"2""#
            )
            #expect((200..<300).contains(placement.status), "\(placement.body)")
            // The fill happened while the placement was in flight: its answer says so.
            #expect(placement.body.data["status"] as? String == "filled", "\(placement.body)")
            let id = try #require(placement.body.data["id"] as? String, "\(placement.body)")
            let order = try await world.expectLife(of: id, final: "filled", changes: [Change("placed", "filled")])
            #expect(order["filledQuantity"] as? String == "2", "\(order)")
            #expect(order["averageFillPrice"] as? String != nil, "\(order)")
            #expect(order["filledAt"] as? String != nil, "\(order)")
        }
    }

    @Test func aLimitOrderPartlyThenFullyFilled() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let life = try await world.expectPartlyThenFullyFilled(at: "tradeit")
            // The first share filled while the placement was in flight (`PART_FILLED`): its answer says so.
            #expect(life.placement["status"] as? String == "partially_filled", "\(life.placement)")
            #expect(life.placement["filledQuantity"] as? String == "1", "\(life.placement)")
            #expect(life.final["filledAt"] as? String != nil, "\(life.final)")

            // The account holds the three shares it paid for, fill by fill, besides the Dummy persona's ten.
            let connectionId = try #require(world.links["tradeit"]?.connectionId)
            let positions = try await world.call(.get, "/v1/positions?connectionId=\(connectionId)")
            let aapl = positions.body.list.first {
                $0["connectionId"] as? String == connectionId && ($0["instrument"] as? [String: Any])?["symbol"] as? String == "AAPL"
            }
            #expect(aapl?["quantity"] as? String == "13", "\(positions.body)")
        }
    }

    @Test func aCancelledOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            try await world.expectCancelled(at: "tradeit")
        }
    }

    @Test func aPartlyFilledOrderCancelledKeepsItsFills() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            try await world.expectPartlyFilledCancelKeepsFills(at: "tradeit")
        }
    }

    @Test func aReplacedOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let (id, oldBrokerId, changed) = try await world.changeLimit(at: "tradeit")
            let newBrokerId = try #require(changed["brokerOrderId"] as? String, "\(changed)")
            #expect(newBrokerId != oldBrokerId, "TradeIt changes an order by cancel and place: \(changed)")

            // The first TradeIt order is over: cancelled (TradeIt has no `replaced` state).
            let old = try await world.call(.get, "/v1/orders?brokerOrderId=\(oldBrokerId)")
            #expect(old.status == 200, "\(old.body)")
            let first = try #require(old.body.list.first, "\(old.body)")
            #expect(first["status"] as? String == "canceled", "\(first)")

            // The replacement is what fills.
            let order = try await world.expectChangedOrderFills(id)
            #expect(order["brokerOrderId"] as? String == newBrokerId, "\(order)")
        }
    }

    @Test func anExpiredDayOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let id = try await world.placed(
                "tradeit",
                #""symbol":"AAPL","side":"buy","type":"limit","timeInForce":"day","quantity":"1","limitPrice":"90""#
            )
            try await world.awaitStatus(id, "open")
            // 15:00 UTC to 01:00 the next day: past the end of the day the order was placed on.
            world.advance(seconds: 10 * 3600)
            let order = try await world.expectLife(of: id, final: "expired", changes: [Change("placed", "open"), Change("expired", "expired")])
            #expect(order["filledQuantity"] as? String == "0", "\(order)")
        }
    }

    @Test func anExpiredPartlyFilledDayOrderKeepsItsFills() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            try world.setDepth("1", for: "AAPL")
            let id = try await world.placed(
                "tradeit",
                #""symbol":"AAPL","side":"buy","type":"limit","timeInForce":"day","quantity":"4","limitPrice":"110""#
            )
            try await world.awaitStatus(id, "partially_filled")
            world.advance(seconds: 10 * 3600)
            let order = try await world.expectLife(
                of: id,
                final: "expired",
                changes: [Change("placed", "partially_filled"), Change("expired", "expired")]
            )
            #expect(order["filledQuantity"] as? String == "1", "\(order)")
            #expect(order["averageFillPrice"] as? String != nil, "\(order)")
        }
    }

    @Test func aRejectedOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            // More than the account's cash pays for: TradeIt refuses the preview (code 200, "buying power").
            try await world.expectRefusedForFunds(at: "tradeit")
        }
    }
}
