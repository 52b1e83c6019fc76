import Foundation
import HTTPTypes
import TestWorlds
import Testing

/// A Saxo order's life through `/v1`, against the Saxo sandbox (issue 26): every end an order can come to reads by its
/// id with its real state, its journal ends there, and the stream carries each change once.
///
/// How Saxo tells an order's end, and so what these tests lean on: a working order is listed by
/// `port/v1/orders/{ClientKey}/{OrderId}` (`Status` `Working`, with `FilledAmount` once part of it filled: Saxo's
/// `OrderResponse`, typed in systematic-trader/saxobank-client `types/records/order-response.ts`); once it has left
/// that list, its order activities (`cs/v1/audit/orderactivities`, developer.saxo/openapi/learn/audit-orderactivities)
/// say how it ended: `Fill` / `FinalFill` (with `FilledAmount`, `AveragePrice`), `Cancelled`, `Expired`, `Changed`.
///
/// What cannot happen at Saxo, and what is tested instead:
/// - A replaced order: `PATCH trade/v2/orders` changes the order in place and keeps its `OrderId` (Saxo's reference
///   for `PATCH trade/v2/orders` answers the same `OrderId`; saxo_openapi `trading.orders.ChangeOrder`), so the
///   gateway reports a `modified` order with the same id, never a new one.
/// - An order accepted and rejected later: Saxo's audit `OrderLogStatus` has no `Rejected` value, a refusal is the
///   `SubStatus` of the request it answers (schema-orderlogstatus, schema-ordersubstatus). A placement Saxo refuses
///   is refused in the placement's answer (and leaves a `Placed`/`Rejected` audit entry); that is the rejected case.
///
/// Every clock jump is at most 30 minutes, followed by a read at Saxo: the sandbox's tokens live on the market's
/// clock (a 20-minute access token, a 60-minute refresh token, as Saxo's), so a jump of hours would kill the session
/// the gateway holds, which no real day does.
@Suite("Lifecycle: Saxo through /v1", .heavyWorld)
struct SaxoLifecycleTests {
    typealias Change = LifecycleWorld.Change

    @Test func aMarketOrderFilledAtOnce() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let id = try await world.placed("saxo", #""symbol":"AAPL","side":"buy","type":"market","timeInForce":"day","quantity":"2""#)
            let order = try await world.expectLife(of: id, final: "filled", changes: [Change("placed", "filled")])
            #expect(order["filledQuantity"] as? String == "2")
            #expect(order["averageFillPrice"] as? String != nil, "\(order)")
            #expect(order["filledAt"] as? String != nil, "\(order)")
        }
    }

    @Test func aLimitOrderPartlyThenFullyFilled() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            // The order works for the rest (`Working`, its `FilledAmount` growing); the average comes from the audit.
            try await world.expectPartlyThenFullyFilled(at: "saxo")
        }
    }

    @Test func aCancelledOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            try await world.expectCancelled(at: "saxo")
        }
    }

    @Test func aChangedOrderKeepsItsIdAndThenFills() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let (id, brokerOrderId, changed) = try await world.changeLimit(at: "saxo")
            #expect(changed["brokerOrderId"] as? String == brokerOrderId, "Saxo changes the order in place: \(changed)")
            let order = try await world.expectChangedOrderFills(id)
            #expect(order["brokerOrderId"] as? String == brokerOrderId, "\(order)")
        }
    }

    @Test func anExpiredDayOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            let id = try await world.placed(
                "saxo",
                #""symbol":"AAPL","side":"buy","type":"limit","timeInForce":"day","quantity":"1","limitPrice":"90""#
            )
            // 10:00 in New York to 18:00, past the 16:00 close where Saxo's day order lapses.
            try await advance(world, hours: 8)
            let order = try await world.expectLife(of: id, final: "expired", changes: [Change("placed", "open"), Change("expired", "expired")])
            #expect(order["filledQuantity"] as? String == "0", "\(order)")
            #expect(order["expiredAt"] as? String != nil, "\(order)")
        }
    }

    @Test func aRejectedOrder() async throws {
        try await LifecycleWorld.with(prices: ["AAPL": "100"]) { world in
            // More than the account's cash pays for: Saxo refuses the placement (`WouldExceedMargin`).
            try await world.expectRefusedForFunds(at: "saxo")
        }
    }

    // MARK: Helpers

    /// Moves the market's clock `hours` forward in half hours, each followed by a read at Saxo that must succeed (the
    /// gateway renews its session on the way, as it would through a real day).
    func advance(_ world: LifecycleWorld, hours: Int) async throws {
        let connection = try #require(world.links["saxo"]?.connectionId)
        for _ in 0..<(hours * 2) {
            world.advance(seconds: 1800)
            let read = try await world.call(.get, "/v1/balances?connection=\(connection)&maxAgeMs=0")
            let source = (read.body["sources"] as? [[String: Any]])?.first { $0["connection"] as? String == connection }
            #expect(source?["status"] as? String == "ok", "\(read.body)")
        }
    }
}
