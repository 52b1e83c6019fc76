import Foundation
import GatewayCore
import GatewayModel
import Sandbox
import TestWorlds
import Testing

@testable import SaxoAdapter

/// Every Saxo order stays readable with its real state once it leaves the open orders: the adapter reads the
/// sandbox's order-activity audit (`cs/v1/audit/orderactivities`) as it would Saxo's.
@Suite("Saxo adapter: an order's whole life, against the sandbox", .heavyWorld)
struct OrderLifeTests {
    static let account = "9226397"

    static func request(
        _ symbol: String = "EUR/USD",
        type: OrderType,
        timeInForce: TimeInForce = .gtc,
        quantity: Decimal = 10_000,
        limitPrice: Decimal? = nil,
        clientOrderId: String
    ) -> OrderRequest {
        OrderRequest(
            connectionId: "conn-1",
            accountId: account,
            instrument: InstrumentReference(symbol: symbol),
            side: .buy,
            type: type,
            timeInForce: timeInForce,
            quantity: quantity,
            limitPrice: limitPrice,
            clientOrderId: clientOrderId
        )
    }

    /// A buy limit 2 % under the bid: it rests.
    static func restingLimit(_ sandbox: SaxoSandbox, _ symbol: String = "EUR/USD") throws -> Decimal {
        let bid = try #require(sandbox.market.quote(symbol: symbol)?.bid)
        return bid - Decimal(string: "0.02")!
    }

    @Test("a market order filled at once: the placement answers filled, and so does every later read")
    func marketFilledAtOnce() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let adapter = try SandboxEndToEndTests.adapter(sandbox, url: url, clock: clock)
            let placed = try await adapter.placeOrder(Self.request(type: .market, timeInForce: .day, clientOrderId: "gw-life-1"))
            #expect(placed.status == .filled)
            #expect(placed.filledQuantity == 10_000)
            let price = try #require(placed.averageFillPrice)
            #expect(price > 0)
            #expect(placed.filledAt != nil)
            #expect(placed.clientOrderId == "gw-life-1")
            #expect(placed.instrument == Instrument(symbol: "EUR/USD", assetClass: .fx))

            let read = try await adapter.order(brokerOrderId: try #require(placed.brokerOrderId))
            #expect(read.status == .filled && read.filledQuantity == 10_000 && read.averageFillPrice == price)
            #expect(read.brokerStatus == "FinalFill")
            let byReference = try #require(try await adapter.order(clientOrderId: "gw-life-1", accountId: Self.account))
            #expect(byReference.brokerOrderId == placed.brokerOrderId && byReference.status == .filled)
        }
    }

    @Test("a market order that fills after the placement is answered: open at first, filled once it has")
    func marketFilledLater() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock, executionLatency: 1)
        try await withSandbox(sandbox) { url in
            let adapter = try SandboxEndToEndTests.adapter(sandbox, url: url, clock: clock)
            let placed = try await adapter.placeOrder(Self.request(type: .market, timeInForce: .day, clientOrderId: "gw-life-2"))
            #expect(placed.status == .open)
            clock.advance(by: 2)
            let read = try await adapter.order(brokerOrderId: try #require(placed.brokerOrderId))
            #expect(read.status == .filled)
            #expect(read.filledQuantity == 10_000 && read.averageFillPrice != nil)
        }
    }

    @Test("a limit order cancelled reads canceled afterwards, with when")
    func limitCancelled() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let adapter = try SandboxEndToEndTests.adapter(sandbox, url: url, clock: clock)
            let placed = try await adapter.placeOrder(
                Self.request(type: .limit, limitPrice: try Self.restingLimit(sandbox), clientOrderId: "gw-life-3")
            )
            #expect(placed.status == .open)
            clock.advance(by: 5)
            _ = try await adapter.cancelOrder(placed)
            let read = try await adapter.order(brokerOrderId: try #require(placed.brokerOrderId))
            #expect(read.status == .canceled)
            #expect(read.canceledAt == clock.now())
            #expect(read.filledQuantity == 0 && read.averageFillPrice == nil)
            #expect(read.limitPrice == placed.limitPrice)
            #expect(try await adapter.order(clientOrderId: "gw-life-3", accountId: Self.account)?.status == .canceled)
        }
    }

    @Test("a limit order changed to market reads filled, from the change's answer on")
    func limitChangedToMarket() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let adapter = try SandboxEndToEndTests.adapter(sandbox, url: url, clock: clock)
            let placed = try await adapter.placeOrder(
                Self.request(type: .limit, limitPrice: try Self.restingLimit(sandbox), clientOrderId: "gw-life-4")
            )
            let changed = try await adapter.modifyOrder(placed, OrderModification(timeInForce: .ioc, type: .market))
            #expect(changed.status == .filled)
            #expect(changed.filledQuantity == 10_000)
            let price = try #require(changed.averageFillPrice)
            #expect(changed.clientOrderId == "gw-life-4")
            #expect(changed.brokerStatus == "FinalFill")
            let read = try await adapter.order(brokerOrderId: try #require(placed.brokerOrderId))
            #expect(read.status == .filled && read.averageFillPrice == price && read.type == .market)
        }
    }

    @Test("a day order the market never reached reads expired after the day's end")
    func dayOrderExpired() async throws {
        // 16:50 in New York: the FX day ends at 17:00, within the access token's 20 minutes.
        let clock = ManualClock(start: ManualClock.defaultStart.addingTimeInterval(6 * 3600 + 50 * 60))
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let adapter = try SandboxEndToEndTests.adapter(sandbox, url: url, clock: clock)
            let placed = try await adapter.placeOrder(
                Self.request(type: .limit, timeInForce: .day, limitPrice: try Self.restingLimit(sandbox), clientOrderId: "gw-life-5")
            )
            #expect(placed.status == .open)
            clock.advance(by: 15 * 60)
            let read = try await adapter.order(brokerOrderId: try #require(placed.brokerOrderId))
            #expect(read.status == .expired)
            let expiredAt = try #require(read.expiredAt)
            let createdAt = try #require(placed.createdAt)
            #expect(expiredAt > createdAt && expiredAt <= clock.now())
        }
    }

    @Test("a placement Saxo refuses is an error to the caller, and reads rejected by its client order id")
    func refusedPlacement() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let adapter = try SandboxEndToEndTests.adapter(sandbox, url: url, clock: clock)
            let tooBig = Self.request("AAPL", type: .market, timeInForce: .day, quantity: 100_000, clientOrderId: "gw-life-6")
            await #expect(throws: GatewayError.self) { try await adapter.placeOrder(tooBig) }
            let read = try #require(try await adapter.order(clientOrderId: "gw-life-6", accountId: Self.account))
            #expect(read.status == .rejected)
            #expect(read.instrument.symbol == "AAPL" && read.quantity == 100_000)
        }
    }

    @Test("an id neither the open orders nor the audit know is still not_found")
    func unknownOrder() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let adapter = try SandboxEndToEndTests.adapter(sandbox, url: url, clock: clock)
            let error = await #expect(throws: GatewayError.self) { try await adapter.order(brokerOrderId: "99999999") }
            #expect(error?.code == .notFound)
            #expect(try await adapter.order(clientOrderId: "never-placed", accountId: Self.account) == nil)
        }
    }

    @Test("an FX position the sandbox holds carries a market value: its exposure at the current price")
    func fxPositionValue() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let adapter = try SandboxEndToEndTests.adapter(sandbox, url: url, clock: clock)
            _ = try await adapter.placeOrder(Self.request("EUR/DKK", type: .market, timeInForce: .day, clientOrderId: "gw-life-7"))
            let position = try #require(try await adapter.positions(accountId: nil).first { $0.instrument.symbol == "EUR/DKK" })
            #expect(position.currency == "DKK")
            let value = try #require(position.marketValue)
            #expect(value == position.quantity * (position.lastPrice ?? 0))
            #expect(value > 10_000)
        }
    }
}
