import Foundation
import GatewayApp
import GatewayModel
import Testing

/// `GoalValuation` by hand: allocations by quantity and percent, what is no longer held, what cannot be valued or
/// converted, the over-allocation check across goals, and the overall figure.
@Suite("Goal valuation")
struct GoalValuationTests {
    static let valuation = PortfolioValuation(
        currency: "EUR",
        quotes: [
            PortfolioValuation.PricedQuote(
                Quote(
                    instrument: Instrument(symbol: "EUR/USD", assetClass: .fx),
                    connectionId: "c1",
                    bid: Decimal(string: "1.25"),
                    ask: Decimal(string: "1.25")
                ),
                broker: .saxo
            )
        ]
    )

    static func position(
        _ symbol: String,
        quantity: Decimal,
        value: Decimal?,
        currency: String = "USD",
        connection: String = "c1",
        account: String = "a1"
    ) -> Position {
        Position(
            connectionId: connection,
            accountId: account,
            instrument: Instrument(symbol: symbol, assetClass: .equity),
            quantity: quantity,
            marketValue: value,
            currency: currency
        )
    }

    static func goal(_ name: String, target: Decimal = 1000, currency: String = "EUR", _ allocations: [Goal.Allocation]) -> Goal {
        Goal(id: "goal_\(name)", name: name, targetValue: target, currency: currency, allocations: allocations)
    }

    @Test func quantityAndPercentAreValuedAtTheirShareOfTheHolding() throws {
        // 10 AAPL in two accounts of one connection (6 + 4), worth 2,000 USD = 1,600 EUR; 3 MSFT worth 1,200 USD.
        let positions = [
            Self.position("AAPL", quantity: 6, value: 1200, account: "a1"),
            Self.position("AAPL", quantity: 4, value: 800, account: "a2"),
            Self.position("MSFT", quantity: 3, value: 1200),
            Self.position("AAPL", quantity: 99, value: 19800, connection: "c2"),
        ]
        let goal = Self.goal(
            "House",
            target: 2000,
            [
                Goal.Allocation(connectionId: "c1", symbol: "aapl", quantity: 4),  // 4/10 of 1,600 = 640
                Goal.Allocation(connectionId: "c1", symbol: "MSFT", percent: Decimal(string: "33.3")),  // 0.999 of 3: 960 × 0.333 = 319.68
            ]
        )
        let progress = GoalValuation.progress(goal, positions: positions, unavailable: [:], valuation: Self.valuation)
        #expect(progress.allocations.map(\.value) == [640, Decimal(string: "319.68")])
        #expect(progress.allocations.map(\.quantity) == [4, Decimal(string: "0.999")])
        #expect(progress.allocations.map(\.heldQuantity) == [10, 3])
        #expect(progress.allocations[0].marketValue == 2000)
        #expect(progress.allocations[0].rate?.rate == Decimal(string: "0.8"))
        // 959.68 of 2,000: 0.47984; 1,040.32 to go.
        #expect(progress.currentValue == Decimal(string: "959.68"))
        #expect(progress.progress == Decimal(string: "0.47984"))
        #expect(progress.remaining == Decimal(string: "1040.32"))
        #expect(progress.complete)
    }

    @Test func whatIsNoLongerHeldIsAShortfallNotAFailure() {
        // 8 allocated, 5 held now: the 5 count (5 × 200 USD × 0.8 = 800 EUR), 3 are short.
        let goal = Self.goal(
            "House",
            [
                Goal.Allocation(connectionId: "c1", symbol: "AAPL", quantity: 8),
                Goal.Allocation(connectionId: "c1", symbol: "TSLA", quantity: 1),
            ]
        )
        let progress = GoalValuation.progress(
            goal,
            positions: [Self.position("AAPL", quantity: 5, value: 1000)],
            unavailable: [:],
            valuation: Self.valuation
        )
        #expect(progress.allocations[0].value == 800)
        #expect(progress.allocations[0].shortfall == 3)
        #expect(progress.allocations[0].problem == nil)
        #expect(progress.allocations[1].problem == .notHeld)
        #expect(progress.allocations[1].shortfall == 1)
        #expect(progress.currentValue == 800)
        #expect(progress.progress == Decimal(string: "0.8"))
        #expect(progress.remaining == 200)
        #expect(!progress.complete)
    }

    @Test func whatCannotBeReadValuedOrConvertedIsNamed() {
        let goal = Self.goal(
            "House",
            [
                Goal.Allocation(connectionId: "down", symbol: "AAPL", quantity: 1),
                Goal.Allocation(connectionId: "gone", symbol: "AAPL", quantity: 1),
                Goal.Allocation(connectionId: "c1", symbol: "OBSCURE", quantity: 1),
                Goal.Allocation(connectionId: "c1", symbol: "NESN", quantity: 1),
                Goal.Allocation(connectionId: "c1", symbol: "AAPL", quantity: 1),
            ]
        )
        let positions = [
            Self.position("OBSCURE", quantity: 1, value: nil),
            Self.position("NESN", quantity: 2, value: 200, currency: "CHF"),
            Self.position("AAPL", quantity: 1, value: 200),
        ]
        let progress = GoalValuation.progress(
            goal,
            positions: positions,
            unavailable: ["down": .sourceFailed, "gone": .connectionUnavailable],
            valuation: Self.valuation
        )
        #expect(progress.allocations.map(\.problem) == [.sourceFailed, .connectionUnavailable, .noValue, .noRate, nil])
        #expect(progress.allocations.map(\.value) == [nil, nil, nil, nil, 160])
        #expect(progress.allocations[3].positionCurrency == "CHF")
        #expect(progress.currentValue == 160)
        #expect(!progress.complete)
    }

    @Test func allocationsAcrossGoalsNeverExceedWhatIsHeld() {
        let positions = [Self.position("AAPL", quantity: 10, value: 2000), Self.position("TSLA", quantity: -2, value: -500)]
        let house = Self.goal("House", [Goal.Allocation(connectionId: "c1", symbol: "AAPL", quantity: 6)])
        let car = Self.goal("Car", [Goal.Allocation(connectionId: "c1", symbol: "AAPL", percent: 20)])
        // 6 + 2 (20% of 10) by others; 2 more fit exactly, 3 do not.
        #expect(
            GoalValuation.overAllocation(
                [Goal.Allocation(connectionId: "c1", symbol: "AAPL", quantity: 2)],
                others: [house, car],
                positions: positions
            ).isEmpty
        )
        let over = GoalValuation.overAllocation(
            [Goal.Allocation(connectionId: "c1", symbol: "AAPL", quantity: 1), Goal.Allocation(connectionId: "c1", symbol: "aapl", quantity: 2)],
            others: [house, car],
            positions: positions
        )
        #expect(over == [FieldProblem(field: "allocations[1]", problem: "aapl at c1: 11 allocated of 10 held (6 by goal 'House', 2 by goal 'Car')")])
        // Percents of one goal alone over 100; a short and something not held at all.
        let percents = GoalValuation.overAllocation(
            [Goal.Allocation(connectionId: "c1", symbol: "AAPL", percent: 60), Goal.Allocation(connectionId: "c1", symbol: "AAPL", percent: 41)],
            others: [],
            positions: positions
        )
        #expect(percents.map(\.field) == ["allocations[1]"])
        #expect(percents.first?.problem.contains("10.1 allocated of 10 held") == true)
        let notHeld = GoalValuation.overAllocation(
            [Goal.Allocation(connectionId: "c1", symbol: "TSLA", quantity: 1), Goal.Allocation(connectionId: "c2", symbol: "AAPL", quantity: 1)],
            others: [],
            positions: positions
        )
        #expect(notHeld.map(\.field) == ["allocations[0]", "allocations[1]"])
    }

    @Test func overallConvertsEachGoalAndNamesWhatItCannot() {
        var house = Self.goal("House", target: 1000, currency: "EUR", [])
        house.progress = Goal.Progress(currentValue: 400, progress: Decimal(string: "0.4")!, remaining: 600, complete: true, allocations: [])
        var car = Self.goal("Car", target: 500, currency: "USD", [])
        car.progress = Goal.Progress(currentValue: 250, progress: Decimal(string: "0.5")!, remaining: 250, complete: true, allocations: [])
        var chalet = Self.goal("Chalet", target: 1000, currency: "CHF", [])
        chalet.progress = Goal.Progress(currentValue: 0, progress: 0, remaining: 1000, complete: true, allocations: [])
        // EUR: targets 1,000 + 500 × 0.8 = 1,400; current 400 + 250 × 0.8 = 600; 600 / 1,400 = 0.428571 (6 places).
        let overall = GoalValuation.overall([house, car, chalet], valuation: Self.valuation)
        #expect(overall.targetValue == 1400)
        #expect(overall.currentValue == 600)
        #expect(overall.progress == Decimal(string: "0.428571"))
        #expect(overall.remaining == 800)
        #expect(overall.unconverted == ["goal_Chalet"])
        #expect(overall.fxRates.map(\.from) == ["USD"])
    }
}
