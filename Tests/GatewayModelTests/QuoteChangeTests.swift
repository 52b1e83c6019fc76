import Foundation
import GatewayModel
import Testing

/// `Quote.change(from:to:)`: the change an adapter derives when its broker reports only an open and a last price.
@Suite("Quote change")
struct QuoteChangeTests {
    @Test("net change and percentage, rounded to 4 places, exact in decimal")
    func change() throws {
        let rise = Quote.change(from: Decimal(string: "100")!, to: Decimal(string: "101.5")!)
        #expect(rise.netChange == Decimal(string: "1.5"))
        #expect(rise.percentChange == Decimal(string: "1.5"))
        let third = Quote.change(from: Decimal(string: "3")!, to: Decimal(string: "4")!)
        #expect(third.netChange == 1)
        #expect(third.percentChange == Decimal(string: "33.3333"))
        let tradeOgreSample = Quote.change(from: Decimal(string: "68244.43002928")!, to: Decimal(string: "68392.46369987")!)
        #expect(tradeOgreSample.netChange == Decimal(string: "148.03367059"))
        #expect(tradeOgreSample.percentChange == Decimal(string: "0.2169"))
    }

    @Test("no change without both prices, or from a zero open")
    func missing() {
        #expect(Quote.change(from: nil, to: 1) == (nil, nil))
        #expect(Quote.change(from: 1, to: nil) == (nil, nil))
        #expect(Quote.change(from: 0, to: 1) == (nil, nil))
    }
}
