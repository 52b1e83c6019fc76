import Foundation
import GatewayApp
import GatewayModel
import Testing

/// `PortfolioValuation` by hand: rates direct, inverted and through USD, shorts, positions without a value, coins
/// that are positions and not cash, rounding.
@Suite("Portfolio valuation")
struct PortfolioValuationTests {
    static func quote(_ symbol: String, bid: String?, ask: String?, last: String? = nil, connection: String = "c1") -> PortfolioValuation.PricedQuote
    {
        PortfolioValuation.PricedQuote(
            Quote(
                instrument: Instrument(symbol: symbol, assetClass: .fx),
                connectionId: connection,
                bid: bid.flatMap { Decimal(string: $0) },
                ask: ask.flatMap { Decimal(string: $0) },
                last: last.flatMap { Decimal(string: $0) }
            ),
            broker: .saxo
        )
    }

    static func position(
        _ symbol: String,
        _ assetClass: AssetClass,
        quantity: Decimal,
        value: Decimal?,
        currency: String,
        connection: String = "c1",
        dayChange: Decimal? = nil
    ) -> (Position, BrokerKind) {
        (
            Position(
                connectionId: connection,
                accountId: "a1",
                instrument: Instrument(symbol: symbol, assetClass: assetClass),
                quantity: quantity,
                marketValue: value,
                currency: currency,
                dayChange: dayChange
            ), .alpaca
        )
    }

    @Test func ratesComeDirectInvertedOrThroughUSDFromTheFirstQuote() throws {
        let valuation = PortfolioValuation(
            currency: "EUR",
            quotes: [
                Self.quote("EUR/DKK", bid: "7.4", ask: "7.5"),  // DKK→EUR = 1 / 7.45
                Self.quote("EUR/USD", bid: "1.2", ask: "1.3"),  // USD→EUR = 1 / 1.25 = 0.8
                Self.quote("EUR/USD", bid: "9", ask: "9", connection: "c2"),  // a later quote of the same pair is not used
                Self.quote("BTC/USD", bid: nil, ask: nil, last: "50000"),  // BTC→EUR = 50,000 × 0.8
                Self.quote("GBP/EUR", bid: "0", ask: "1.2"),  // one-sided and no last: unusable
            ]
        )
        let dkk = try #require(valuation.rate(from: "DKK"))
        #expect(dkk.rate == Decimal(string: "0.134228187919"))
        #expect(dkk.quotes.first?.inverted == true && dkk.via == nil)
        #expect(valuation.rate(from: "usd")?.rate == Decimal(string: "0.8"))
        #expect(valuation.rate(from: "USD")?.quotes.first?.connectionId == "c1")
        let btc = try #require(valuation.rate(from: "BTC"))
        #expect(btc.rate == 40_000 && btc.via == "USD" && btc.quotes.map(\.symbol) == ["BTC/USD", "EUR/USD"])
        #expect(valuation.rate(from: "GBP") == nil)
        #expect(valuation.rate(from: "EUR")?.rate == 1)
    }

    @Test func shortsSubtractUnvaluedPositionsAreNamedAndCoinsAreNotCashToo() {
        let valuation = PortfolioValuation(currency: "USD", quotes: [Self.quote("XMR/USD", bid: "150", ask: "150")])
        let portfolio = valuation.portfolio(
            balances: [
                (Balance(connectionId: "c1", accountId: "a1", currency: "USD", total: 1000, available: 1000, held: 0), .alpaca),
                (Balance(connectionId: "c1", accountId: "a1", currency: "XMR", total: 2, available: 2, held: 0), .alpaca),
                (Balance(connectionId: "c1", accountId: "a1", currency: "CHF", total: 5, available: 5, held: 0), .alpaca),
            ],
            positions: [
                Self.position("AAPL", .equity, quantity: 10, value: 2000, currency: "USD", dayChange: 50),
                Self.position("TSLA", .equity, quantity: -2, value: -500, currency: "USD", dayChange: -20),
                Self.position("XMR/USD", .crypto, quantity: 2, value: 300, currency: "USD"),
                Self.position("OBSCURE", .equity, quantity: 1, value: nil, currency: "USD"),
            ]
        )
        // Cash: 1,000 USD (the XMR balance is the XMR position; CHF has no rate). Positions: 2,000 − 500 + 300.
        #expect(portfolio.cash == 1000)
        #expect(portfolio.positionsValue == 1800)
        #expect(portfolio.totalValue == 2800)
        #expect(portfolio.unconverted.map(\.reason) == [.noRate, .noValue])
        #expect(portfolio.unconverted.map(\.item) == ["cash", "OBSCURE"])
        #expect(portfolio.holdings.first?.instrument.symbol == "AAPL")
        // Today: +50 − 20 where reported; the XMR position reports none (the unvalued one is not counted).
        #expect(portfolio.dayChange == 30)
        #expect(portfolio.dayChangeUnknown == 1)
        #expect(portfolio.allocation.assetClass.map(\.key) == ["equity", "cash", "crypto"])
        #expect(portfolio.allocation.assetClass.first?.weight == Decimal(string: "0.535714"))
    }

    /// Issue 27 N8: a broker value at `Decimal`'s limit made the totals `NaN` (two of them add up past it) and the
    /// read whole. The amount that would overflow is named `no_value` instead, and every total stays a number.
    @Test func valuesThatWouldOverflowTheTotalsAreNamedNotSummedToNaN() {
        let huge = Decimal.greatestFiniteMagnitude
        let valuation = PortfolioValuation(currency: "USD", quotes: [])
        let portfolio = valuation.portfolio(
            balances: [
                (Balance(connectionId: "c1", accountId: "a1", currency: "USD", total: huge, available: huge, held: 0), .alpaca),
                (Balance(connectionId: "c2", accountId: "a2", currency: "USD", total: 100, available: 100, held: 0), .saxo),
            ],
            positions: [
                Self.position("AAPL", .equity, quantity: 1, value: huge, currency: "USD", dayChange: huge),
                Self.position("MSFT", .equity, quantity: huge, value: 10, currency: "USD"),
                Self.position("MSFT", .equity, quantity: huge, value: 10, currency: "USD", connection: "c2"),
            ]
        )
        let totals =
            [portfolio.totalValue, portfolio.cash, portfolio.positionsValue]
            + portfolio.accounts.flatMap { [$0.cash, $0.positionsValue, $0.totalValue] }
            + portfolio.holdings.flatMap { [$0.quantity, $0.value] }
            + portfolio.allocation.assetClass.map(\.value) + portfolio.allocation.broker.map(\.value)
            + portfolio.allocation.currency.map(\.value) + [portfolio.dayChange ?? 0]
        #expect(!totals.contains { $0.isNaN })
        #expect(portfolio.cash == huge + 100 || portfolio.cash == huge)
        #expect(portfolio.totalValue == portfolio.cash + portfolio.positionsValue)
        // The position that would overflow the total and the second MSFT (its quantity would) are named.
        #expect(portfolio.unconverted.map(\.item) == ["AAPL", "MSFT"])
        #expect(portfolio.unconverted.allSatisfy { $0.reason == .noValue })
    }

    @Test func amountsAreRoundedToEightPlaces() {
        let valuation = PortfolioValuation(currency: "EUR", quotes: [Self.quote("EUR/USD", bid: "3", ask: "3")])
        let portfolio = valuation.portfolio(
            balances: [(Balance(connectionId: "c1", accountId: "a1", currency: "USD", total: 1, available: 1, held: 0), .alpaca)],
            positions: []
        )
        #expect(portfolio.cash == Decimal(string: "0.33333333"))
        #expect(portfolio.fxRates.first?.rate == Decimal(string: "0.333333333333"))
    }

    @Test func candidateSymbolsAskEachWayAndThroughUSD() {
        #expect(
            PortfolioValuation.candidateSymbols(for: ["USD", "BTC", "EUR"], to: "eur") == [
                "BTC/EUR", "EUR/BTC", "BTC/USD", "USD/BTC", "USD/EUR", "EUR/USD",
            ]
        )
        #expect(PortfolioValuation.candidateSymbols(for: ["USD"], to: "USD").isEmpty)
    }
}
