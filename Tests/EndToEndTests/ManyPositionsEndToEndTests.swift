import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
import Sandbox
import TestWorlds
import Testing

/// One account with 2,000 positions, read through `/v1/positions` from the Alpaca sandbox: the whole answer arrives,
/// complete and correct. (10,000, and how fast, is `Benchmarks/PositionsBenchmark`'s question: in a debug build among
/// the suite's parallel tests, 10,000 took the machine's CPU for seconds and starved other tests' deadlines.)
@Suite("End to end: 2,000 positions of one account", .heavyWorld)
struct ManyPositionsEndToEndTests {
    static let count = 2_000

    /// `SYN00001` … `SYN02000`; what a test expects of each is computed from the index here, not read back.
    static func symbol(_ index: Int) -> String { "SYN" + String(format: "%05d", index) }
    static func reference(_ index: Int) -> Decimal { Decimal(20 + index % 300) + Decimal(index % 100) / 100 }
    static func quantity(_ index: Int) -> Decimal { Decimal(1 + index % 89) }
    static func entry(_ index: Int) -> Decimal { reference(index) - Decimal(index % 5) / 100 }
    static func exchange(_ index: Int) -> (alpaca: String, mic: String) { index % 3 == 0 ? ("NYSE", "XNYS") : ("NASDAQ", "XNAS") }

    static func sandbox() -> AlpacaSandbox {
        let instruments = (1...count).map { index in
            MarketInstrument(
                symbol: symbol(index),
                assetClass: .equity,
                name: "Synthetic \(index)",
                exchange: exchange(index).alpaca,
                currency: "USD",
                tickSize: Decimal(string: "0.01")!,
                lotSize: 1,
                minQuantity: 1,
                fractionable: false,
                referencePrice: reference(index),
                volatility: Decimal(string: "0.0001")!,
                spread: Decimal(string: "0.0002")!,
                sizeUnit: 100
            )
        }
        var account = AlpacaSandboxAccount.demo
        account.positions = (1...count).map { index in
            AlpacaSandboxAccount.Holding(symbol: symbol(index), quantity: quantity(index), averageEntryPrice: entry(index))
        }
        return AlpacaSandbox(
            configuration: AlpacaSandboxConfiguration(accounts: [account]),
            market: MarketEngine(configuration: MarketConfiguration(instruments: InstrumentCatalogue.standard + instruments))
        )
    }

    @Test func everyPositionArrivesComplete() async throws {
        // A debug build on a loaded machine takes seconds over thousands of positions: the router's deadlines are lifted so
        // that this proves completeness, not speed.
        let router = BrokerRouter(perSourceTimeout: .seconds(60), overallTimeout: .seconds(60))
        try await Loopback.with(Self.sandbox(), router: router) { world, client in
            let linked = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"alpaca","displayName":"Many","baseURL":"\(world.sandboxURL)",
                     "credentials":{"keyId":"\(AlpacaSandboxAccount.demoKeyID)","secretKey":"\(AlpacaSandboxAccount.demoSecretKey)"}}
                    """
            )
            #expect(linked.status == 201)
            let connection = try #require(linked.body.data["id"] as? String)

            let read = try await world.call(client, .get, "/v1/positions?maxAgeMs=0")
            #expect(read.status == 200)
            #expect(read.body["partial"] as? Bool == false)
            #expect(read.body.sources.map { $0["status"] as? String } == ["ok"])
            let positions = read.body.list
            #expect(positions.count == Self.count)

            // Every symbol exactly once, each with the quantity it was seeded with.
            var bySymbol: [String: [String: Any]] = [:]
            for position in positions {
                let instrument = position["instrument"] as? [String: Any] ?? [:]
                guard let symbol = instrument["symbol"] as? String else { continue }
                #expect(bySymbol[symbol] == nil, "\(symbol) twice")
                bySymbol[symbol] = position
            }
            #expect(bySymbol.count == Self.count)
            let wrongQuantities = (1...Self.count).filter { index in
                (bySymbol[Self.symbol(index)]?["quantity"] as? String).flatMap(DecimalText.parse) != Self.quantity(index)
            }
            #expect(wrongQuantities.isEmpty, "\(wrongQuantities.count) positions with a wrong or missing quantity")

            for index in [1, 2, 3, 999, 1_000, 1_999, 2_000] {
                let position = try #require(bySymbol[Self.symbol(index)])
                let instrument = position["instrument"] as? [String: Any] ?? [:]
                #expect(position["connectionId"] as? String == connection)
                #expect(position["accountId"].flatMap { ($0 as? String).flatMap(UUID.init(uuidString:)) } == AlpacaSandboxAccount.demoAccountID)
                #expect(position["currency"] as? String == "USD")
                #expect(instrument["assetClass"] as? String == "equity")
                #expect(instrument["exchange"] as? String == Self.exchange(index).mic)
                let assetId = (instrument["brokerKey"] as? [String: Any])?["assetId"] as? String
                #expect(assetId.flatMap(UUID.init(uuidString:)) == MarketInstrument.stableID(for: Self.symbol(index)))
                let average = (position["averagePrice"] as? String).flatMap(DecimalText.parse)
                #expect(average == Self.entry(index), "\(Self.symbol(index))")
                let costBasis = (position["costBasis"] as? String).flatMap(DecimalText.parse)
                #expect(costBasis == Self.quantity(index) * Self.entry(index), "\(Self.symbol(index))")
                // The market moves; its value is the quantity at the last price the same answer gives.
                let last = try #require((position["lastPrice"] as? String).flatMap(DecimalText.parse))
                let value = (position["marketValue"] as? String).flatMap(DecimalText.parse)
                #expect(value == Self.quantity(index) * last, "\(Self.symbol(index))")
            }
        }
    }
}
