import Foundation
import GatewayModel
import HTTPTypes
import HummingbirdTesting
import Sandbox
import Testing

/// Issue 15, item 4 through /v1: a short position reads with the gateway's signs (quantity negative, values signed
/// like the quantity, unrealized P&L positive when the position gains).
extension SaxoEndToEndTests {
    @Test func aShortFXPositionReadsWithTheDocumentedSigns() async throws {
        let clock = ManualClock()
        let sandbox = SaxoSandbox(
            configuration: SaxoSandboxConfiguration(sessionOrdersPerSecond: nil, executionLatency: 1),
            market: MarketEngine(clock: clock)
        )
        try await Loopback.with(sandbox) { world, client in
            let connection = try await link(world, client)
            let accounts = try await world.call(client, .get, "/v1/accounts")
            let account = try #require(accounts.body.list.first?["id"] as? String)
            // Selling EUR/DKK the account does not hold opens a short (FX is a margin product at Saxo).
            let placed = try await world.call(
                client,
                .post,
                "/v1/orders",
                json: """
                    {"connectionId":"\(connection)","accountId":"\(account)","symbol":"EUR/DKK","side":"sell","type":"market",
                     "timeInForce":"ioc","quantity":"100000"}
                    """
            )
            #expect(placed.status == 201, "\(placed.body)")
            clock.advance(by: 2)
            // The sandbox fills when it is next asked (its execution latency has passed): the short opens.
            let opened = try await world.call(client, .get, "/v1/positions")
            #expect(opened.body.list.contains { ($0["instrument"] as? [String: Any])?["symbol"] as? String == "EUR/DKK" }, "\(opened.body)")
            // Let the market move so the short has a gain or a loss.
            clock.advance(by: 600)  // (within one access-token lifetime: the refresh is not what this is about)
            let positions = try await world.call(client, .get, "/v1/positions")
            let position = try #require(
                positions.body.list.first { ($0["instrument"] as? [String: Any])?["symbol"] as? String == "EUR/DKK" },
                "\(positions.body)"
            )
            func decimal(_ key: String) -> Decimal? { DecimalText.parse(position[key] as? String ?? "") }
            let quantity = try #require(decimal("quantity"))
            #expect(quantity == -100_000)
            let average = try #require(decimal("averagePrice"))
            let last = try #require(decimal("lastPrice"))
            let pnl = try #require(decimal("unrealizedPnl"))
            #expect(average > 0 && last > 0)
            // A short gains when the price falls: the P&L is (last − average) × quantity, to Saxo's rounding (the
            // average price to one digit more than the instrument's, the P&L to cents: under 1 DKK on 100,000 EUR).
            let expected = (last - average) * quantity
            #expect((pnl - expected).magnitude <= 1, "pnl \(pnl), expected \(expected)")
            if expected.magnitude > 1 { #expect((pnl > 0) == (last < average), "a short gains when the price falls") }
            if let marketValue = decimal("marketValue") { #expect(marketValue < 0) }
            if let costBasis = decimal("costBasis") { #expect(costBasis < 0) }
        }
    }
}
