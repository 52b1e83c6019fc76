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
import Sandbox
import SaxoAdapter
import TestWorlds
import Testing
import TradeItAdapter
import TradeOgreAdapter

/// `GET /v1/portfolio` over the four sandboxes at once, on one market with pinned prices, checked against totals
/// worked out by hand (issue 16, the portfolio).
@Suite("End to end: the portfolio across four brokers", .heavyWorld)
struct PortfolioEndToEndTests {
    static let prices = [
        "AAPL": "200", "MSFT": "400", "SPY": "500", "BTC/USD": "50000", "EUR/USD": "1.25", "XMR/BTC": "0.004",
        "LTC/BTC": "0.002", "BTC/USDT": "50000",
    ]

    static func decimal(_ value: Any?) -> Decimal? { (value as? String).flatMap { Decimal(string: $0) } }

    @Test func totalsInEuroMatchTheHandWorkedFigures() async throws {
        let quartet = try Quartet(prices: Self.prices)
        try await quartet.with { call in
            let read = try await call(.get, "/v1/portfolio?currency=EUR", nil)
            #expect(read.status == 200, "\(read.body)")
            #expect(read.body["partial"] as? Bool == false, "\(read.body)")
            let data = try #require(read.body["data"] as? [String: Any])
            #expect(data["currency"] as? String == "EUR")
            // By hand, with USD→EUR = 1 / 1.25 = 0.8 and BTC→EUR = 50,000 × 0.8 = 40,000:
            // cash: Alpaca 100,000 USD = 80,000; Saxo 1,000,000 EUR; TradeIt 50,000 USD = 40,000;
            //       TradeOgre 1.5 BTC = 60,000 (its XMR, LTC and USDT are positions, not cash) → 1,180,000.
            // positions: Alpaca 10 AAPL 2,000 + 5 MSFT 2,000 + 0.05 BTC 2,500 = 6,500 USD = 5,200;
            //            TradeIt 10 AAPL 2,000 + 5 MSFT 2,000 + 3 SPY 1,500 = 5,500 USD = 4,400;
            //            TradeOgre 25 XMR 0.1 + 40 LTC 0.08 + 10,000 USDT 0.2 = 0.38 BTC = 15,200 → 24,800.
            #expect(Self.decimal(data["cash"]) == 1_180_000, "\(data)")
            #expect(Self.decimal(data["positionsValue"]) == 24_800, "\(data)")
            #expect(Self.decimal(data["totalValue"]) == 1_204_800, "\(data)")
            #expect((data["unconverted"] as? [Any])?.isEmpty == true, "\(data)")

            // Today's change: Alpaca's and TradeIt's positions report one (in USD), TradeOgre's three do not.
            let positions = try await call(.get, "/v1/positions", nil)
            let reported = (positions.body["data"] as? [[String: Any]] ?? []).compactMap { Self.decimal($0["dayChange"]) }
            #expect(reported.count == 6, "\(positions.body)")
            // Each converted at 0.8 and rounded to 8 places, as every amount is.
            let converted = reported.map { change -> Decimal in
                var exact = change * Decimal(string: "0.8")!
                var rounded = Decimal()
                NSDecimalRound(&rounded, &exact, 8, .plain)
                return rounded
            }
            #expect(Self.decimal(data["dayChange"]) == converted.reduce(0, +), "\(data)")
            #expect(data["dayChangeUnknown"] as? Int == 3)

            // The rates, and who quoted them.
            let rates = try #require(data["fxRates"] as? [[String: Any]])
            let usd = try #require(rates.first { $0["from"] as? String == "USD" })
            #expect(Self.decimal(usd["rate"]) == Decimal(string: "0.8"))
            let usdQuotes = usd["quotes"] as? [[String: Any]]
            #expect(usdQuotes?.first?["symbol"] as? String == "EUR/USD")
            #expect(usdQuotes?.first?["inverted"] as? Bool == true)
            #expect(usdQuotes?.first?["broker"] as? String == "saxo")
            let btc = try #require(rates.first { $0["from"] as? String == "BTC" })
            #expect(Self.decimal(btc["rate"]) == 40_000)
            #expect(btc["via"] as? String == "USD")

            // Net positions: the AAPL held at two brokers is one line with two parts.
            let holdings = try #require(data["holdings"] as? [[String: Any]])
            let aapl = try #require(holdings.first { ($0["instrument"] as? [String: Any])?["symbol"] as? String == "AAPL" })
            #expect(Self.decimal(aapl["quantity"]) == 20)
            #expect(Self.decimal(aapl["value"]) == 3_200)
            #expect(Set((aapl["parts"] as? [[String: Any]] ?? []).compactMap { $0["broker"] as? String }) == ["alpaca", "tradeit"])
            let usdt = try #require(holdings.first { ($0["instrument"] as? [String: Any])?["symbol"] as? String == "USDT/BTC" })
            #expect(Self.decimal(usdt["value"]) == 8_000, "\(usdt)")

            // Allocation by broker adds up to the total; cash is an asset class of its own.
            let allocation = try #require(data["allocation"] as? [String: Any])
            let brokers = Dictionary(
                uniqueKeysWithValues: (allocation["broker"] as? [[String: Any]] ?? []).compactMap { slice in
                    (slice["key"] as? String).map { ($0, Self.decimal(slice["value"]) ?? -1) }
                }
            )
            #expect(brokers == ["alpaca": 85_200, "saxo": 1_000_000, "tradeit": 44_400, "tradeogre": 75_200], "\(allocation)")
            let classes = allocation["assetClass"] as? [[String: Any]] ?? []
            #expect(classes.first?["key"] as? String == "cash")
            #expect(Self.decimal(classes.first?["weight"]) == Decimal(string: "0.979416"), "\(classes)")
        }
    }

    @Test func aBrokerThatFailsIsNamedAndLeftOutOfTheTotals() async throws {
        let quartet = try Quartet(prices: Self.prices)
        try await quartet.with { call in
            quartet.tradeIt.faults.add(FaultRule(.error(status: 503)))
            let read = try await call(.get, "/v1/portfolio?currency=EUR", nil)
            #expect(read.status == 200)
            #expect(read.body["partial"] as? Bool == true)
            let failed = (read.body["sources"] as? [[String: Any]])?.filter { $0["status"] as? String == "error" }
            #expect(failed?.compactMap { $0["broker"] as? String } == ["tradeit"], "\(read.body)")
            let data = try #require(read.body["data"] as? [String: Any])
            // The same totals less TradeIt's 40,000 of cash and 4,400 of positions.
            #expect(Self.decimal(data["totalValue"]) == 1_160_400, "\(data)")
        }
    }

    @Test func aCurrencyNoBrokerQuotesIsNamedNotGuessed() async throws {
        let quartet = try Quartet(prices: Self.prices)
        try await quartet.with { call in
            let read = try await call(.get, "/v1/portfolio?currency=ZAR", nil)
            #expect(read.status == 200)
            #expect(read.body["partial"] as? Bool == true)
            let data = try #require(read.body["data"] as? [String: Any])
            #expect(Self.decimal(data["totalValue"]) == 0)
            let unconverted = data["unconverted"] as? [[String: Any]] ?? []
            #expect(!unconverted.isEmpty && unconverted.allSatisfy { $0["reason"] as? String == "no_rate" }, "\(data)")
            #expect(Set(unconverted.compactMap { $0["currency"] as? String }) == ["USD", "EUR", "BTC"])

            for bad in ["E", "EURO-1", "%24%24%24", "ABCDEFGHIJK"] {
                let refused = try await call(.get, "/v1/portfolio?currency=\(bad)", nil)
                #expect(refused.status == 400, "\(bad): \(refused.body)")
            }
        }
    }
}
