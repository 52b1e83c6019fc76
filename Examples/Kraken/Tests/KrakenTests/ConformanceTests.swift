import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import KrakenAdapter
import KrakenSandbox
import SandboxKit
import Testing

/// GatewayTesting's conformance suite, as any adapter author runs it: the factory against a live Kraken sandbox.
@Suite("Kraken conformance suite")
struct ConformanceTests {
    @Test("Kraken passes every check")
    func conformance() async throws {
        let market = MarketEngine(clock: ManualClock())
        try market.setPriceOverride(60_000, for: "BTC/USD")
        try await withSandbox(KrakenSandbox(market: market)) { url in
            let target = ConformanceTarget(
                baseURL: url.absoluteString,
                credentials: BrokerCredentials([
                    "apiKey": KrakenSandboxAccount.demoAPIKey, "apiSecret": KrakenSandboxAccount.demoAPISecret,
                ]),
                // A secret must be base64 for the adapter to be made at all: a well-formed pair Kraken does not know.
                badCredentials: BrokerCredentials([
                    "apiKey": "NOT-A-KRAKEN-KEY", "apiSecret": Data(repeating: 7, count: 64).base64EncodedString(),
                ]),
                instrument: InstrumentReference(symbol: "BTC/USD"),
                searchText: "BTC",
                restingOrder: ConformanceOrder(
                    side: .buy,
                    quantity: Decimal(string: "0.01")!,
                    limitPrice: 30_000,
                    timeInForce: .gtc,
                    modification: OrderModification(limitPrice: 29_000)
                ),
                unknownOrderId: "OAAAAA-BBBBB-CCCCCC"
            )
            let report = await ConformanceSuite(factory: KrakenAdapterFactory(), target: target).run()
            #expect(report.passed, "\(report)")
        }
    }
}
