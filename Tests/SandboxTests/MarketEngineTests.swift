import Foundation
import Sandbox
import ServiceLifecycle
import Testing

@testable import AlpacaSandbox
@testable import SandboxKit

@Suite("Market engine")
struct MarketEngineTests {
    static let start = ManualClock.defaultStart

    @Test("same seed and time give the same quotes; another seed gives others")
    func deterministic() throws {
        let a = MarketEngine(configuration: MarketConfiguration(seed: 42), clock: ManualClock(start: Self.start))
        let b = MarketEngine(configuration: MarketConfiguration(seed: 42), clock: ManualClock(start: Self.start))
        let c = MarketEngine(configuration: MarketConfiguration(seed: 43), clock: ManualClock(start: Self.start))
        for instrument in InstrumentCatalogue.standard {
            #expect(a.quote(symbol: instrument.symbol) == b.quote(symbol: instrument.symbol))
        }
        let differing = InstrumentCatalogue.standard.filter { a.quote(symbol: $0.symbol)?.last != c.quote(symbol: $0.symbol)?.last }
        #expect(differing.count > InstrumentCatalogue.standard.count / 2)
    }

    @Test("prices move as the manual clock advances, and stay on the tick grid around the reference")
    func movesOverTime() throws {
        let clock = ManualClock(start: Self.start)
        let market = MarketEngine(configuration: MarketConfiguration(seed: 1), clock: clock)
        for instrument in InstrumentCatalogue.standard {
            var seen = Set<Decimal>()
            for _ in 0..<120 {
                let quote = try #require(market.quote(symbol: instrument.symbol))
                #expect(quote.bid < quote.ask, "\(instrument.symbol) bid \(quote.bid) ask \(quote.ask)")
                #expect(quote.bid > 0)
                #expect(DecimalText.isMultiple(quote.last, of: instrument.tickSize))
                #expect(DecimalText.isMultiple(quote.bid, of: instrument.tickSize))
                #expect(quote.low <= quote.last && quote.last <= quote.high, "\(instrument.symbol) \(quote.low) \(quote.last) \(quote.high)")
                let deviation = abs(quote.last - instrument.referencePrice) / instrument.referencePrice
                #expect(deviation < dec("0.3"), "\(instrument.symbol) wandered to \(quote.last)")
                seen.insert(quote.last)
                clock.advance(by: 30)
            }
            #expect(seen.count > 5, "\(instrument.symbol) barely moved: \(seen.count) distinct prices in an hour")
        }
    }

    @Test("a quote at a past moment does not depend on what was asked before")
    func pastQuotesAreStable() throws {
        let clock = ManualClock(start: Self.start)
        let market = MarketEngine(configuration: MarketConfiguration(seed: 9), clock: clock)
        let earlier = Self.start.addingTimeInterval(600)
        let before = market.quote(symbol: "AAPL", at: earlier)
        clock.advance(by: 3600)
        _ = market.quote(symbol: "AAPL")
        #expect(market.quote(symbol: "AAPL", at: earlier) == before)
    }

    @Test(
        "the two- and three-word hashes are the variadic one without its array",
        arguments: [
            (UInt64(0), UInt64(0), UInt64(0)), (1, 2, 3), (UInt64.max, 0x9e37_79b9_7f4a_7c15, 42), (20_250_106, 7, UInt64.max - 1),
        ]
    )
    func fixedArityHashes(words: (UInt64, UInt64, UInt64)) {
        let variadic: (UInt64...) -> UInt64 = StableHash.combine
        #expect(StableHash.combine(words.0, words.1) == variadic(words.0, words.1))
        #expect(StableHash.combine(words.0, words.1, words.2) == variadic(words.0, words.1, words.2))
    }

    @Test("quotes asked from many tasks at once agree with quotes asked one by one")
    func concurrentQuotesAgree() async throws {
        let concurrent = MarketEngine(configuration: MarketConfiguration(seed: 5), clock: ManualClock(start: Self.start))
        let serial = MarketEngine(configuration: MarketConfiguration(seed: 5), clock: ManualClock(start: Self.start))
        let symbols = InstrumentCatalogue.standard.map(\.symbol)
        let quotes = await withTaskGroup(of: [MarketQuote?].self) { group in
            for _ in 0..<4 { group.addTask { symbols.map { concurrent.quote(symbol: $0) } } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let expected = symbols.map { serial.quote(symbol: $0) }
        for answer in quotes { #expect(answer == expected) }
    }

    @Test("an override pins the price, enters the day's range, and clears")
    func override() throws {
        let clock = ManualClock(start: Self.start)
        let market = MarketEngine(configuration: MarketConfiguration(seed: 3), clock: clock)
        let path = try #require(market.quote(symbol: "TSLA"))
        try market.setPriceOverride(dec("100.004"), for: "TSLA")
        let pinned = try #require(market.quote(symbol: "TSLA"))
        #expect(pinned.last == dec("100"))
        #expect(pinned.isOverridden)
        #expect(pinned.bid < dec("100") && pinned.ask > dec("100"))
        #expect(pinned.low == dec("100"))
        clock.advance(by: 120)
        #expect(market.quote(symbol: "TSLA")?.last == dec("100"))
        try market.setPriceOverride(nil, for: "TSLA")
        let cleared = try #require(market.quote(symbol: "TSLA"))
        #expect(!cleared.isOverridden)
        #expect(cleared.low == dec("100"), "the override stays in the day's low")
        #expect(cleared.last != dec("100") || path.last == dec("100"))
        #expect(throws: MarketError.unknownSymbol("NOPE")) { try market.setPriceOverride(1, for: "NOPE") }
        #expect(throws: MarketError.self) { try market.setPriceOverride(-1, for: "TSLA") }
    }

    @Test("previous close is yesterday's last price and open is today's first")
    func dayStatistics() throws {
        let clock = ManualClock(start: Self.start)
        let market = MarketEngine(configuration: MarketConfiguration(seed: 5), clock: clock)
        let quote = try #require(market.quote(symbol: "SPY"))
        let midnight = Date(timeIntervalSince1970: (Self.start.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
        #expect(market.quote(symbol: "SPY", at: midnight.addingTimeInterval(-1))?.last == quote.previousClose)
        #expect(market.quote(symbol: "SPY", at: midnight)?.last == quote.open)
    }

    @Test("instrument ids are stable and distinct")
    func stableIDs() {
        let ids = InstrumentCatalogue.standard.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(MarketInstrument.stableID(for: "AAPL") == MarketInstrument.stableID(for: "AAPL"))
        #expect(MarketInstrument.stableID(for: "AAPL").uuidString.dropFirst(14).first == "5")
    }
}

@Suite("Order matching")
struct OrderMatchingTests {
    static func quote(bid: String, ask: String) -> MarketQuote {
        MarketQuote(
            symbol: "X",
            timestamp: Date(timeIntervalSince1970: 0),
            bid: dec(bid),
            ask: dec(ask),
            bidSize: 1,
            askSize: 1,
            last: (dec(bid) + dec(ask)) / 2,
            lastSize: 1,
            tradeID: 0,
            open: 1,
            high: 1,
            low: 1,
            previousClose: 1,
            isOverridden: false
        )
    }

    @Test("market orders take the touch")
    func market() {
        var state = OrderMatching.RestingState()
        let q = Self.quote(bid: "99", ask: "101")
        #expect(OrderMatching.evaluate(.market, side: .buy, quote: q, state: &state) == 101)
        #expect(OrderMatching.evaluate(.market, side: .sell, quote: q, state: &state) == 99)
    }

    @Test("limit orders fill at the touch once it reaches the limit")
    func limit() {
        var state = OrderMatching.RestingState()
        #expect(OrderMatching.evaluate(.limit(100), side: .buy, quote: Self.quote(bid: "100", ask: "101"), state: &state) == nil)
        #expect(OrderMatching.evaluate(.limit(100), side: .buy, quote: Self.quote(bid: "98", ask: "99.5"), state: &state) == dec("99.5"))
        #expect(OrderMatching.evaluate(.limit(100), side: .sell, quote: Self.quote(bid: "99", ask: "100"), state: &state) == nil)
        #expect(OrderMatching.evaluate(.limit(100), side: .sell, quote: Self.quote(bid: "100.5", ask: "101"), state: &state) == dec("100.5"))
    }

    @Test("stops trigger once and then stay triggered; stop-limits then need their limit")
    func stops() {
        var state = OrderMatching.RestingState()
        #expect(OrderMatching.evaluate(.stop(105), side: .buy, quote: Self.quote(bid: "100", ask: "101"), state: &state) == nil)
        #expect(!state.triggered)
        #expect(OrderMatching.evaluate(.stop(105), side: .buy, quote: Self.quote(bid: "105", ask: "106"), state: &state) == 106)
        var stopLimit = OrderMatching.RestingState()
        let terms = ExecutionTerms.stopLimit(stop: 95, limit: 94)
        #expect(OrderMatching.evaluate(terms, side: .sell, quote: Self.quote(bid: "93", ask: "94"), state: &stopLimit) == nil)
        #expect(stopLimit.triggered, "the stop was reached although the limit was not")
        #expect(OrderMatching.evaluate(terms, side: .sell, quote: Self.quote(bid: "94.5", ask: "95"), state: &stopLimit) == dec("94.5"))
    }

    @Test("a trailing sell stop follows the highest bid")
    func trailing() {
        var state = OrderMatching.RestingState()
        let terms = ExecutionTerms.trailingStop(.price(2))
        #expect(OrderMatching.evaluate(terms, side: .sell, quote: Self.quote(bid: "100", ask: "101"), state: &state) == nil)
        #expect(OrderMatching.evaluate(terms, side: .sell, quote: Self.quote(bid: "110", ask: "111"), state: &state) == nil)
        #expect(state.watermark == 110)
        #expect(OrderMatching.evaluate(terms, side: .sell, quote: Self.quote(bid: "108.5", ask: "109"), state: &state) == nil)
        #expect(OrderMatching.evaluate(terms, side: .sell, quote: Self.quote(bid: "108", ask: "108.5"), state: &state) == 108)
    }
}

@Suite("Wire text helpers")
struct WireTextTests {
    @Test(
        "decimal text is parsed strictly",
        arguments: [
            ("1.5", "1.5"), ("-0.25", "-0.25"), ("1e-05", "0.00001"), ("100", "100"), ("0.000000001", "0.000000001"),
        ]
    )
    func decimals(_ text: String, _ expected: String) {
        #expect(DecimalText.parse(text) == dec(expected))
    }

    @Test("malformed decimal text is refused", arguments: ["1.5abc", "", ".5", "5.", "1e999", "NaN", " 1", "1,5", "+1", "0x10", "1e"])
    func badDecimals(_ text: String) {
        #expect(DecimalText.parse(text) == nil)
    }

    @Test("RFC 3339 formatting and parsing round-trip")
    func timestamps() throws {
        let date = Date(timeIntervalSince1970: 1_721_286_633.389152)
        #expect(Timestamp.format(date) == "2024-07-18T07:10:33.389152Z")
        #expect(Timestamp.format(date, utcOffsetSeconds: -4 * 3600, fractionDigits: 0) == "2024-07-18T03:10:33-04:00")
        let parsed = try #require(Timestamp.parse("2024-07-18T04:10:33.389152169-04:00"))
        #expect(abs(parsed.timeIntervalSince1970 - 1_721_290_233.389152169) < 1e-6)
        #expect(Timestamp.parse("2024-01-01T00:00:00+00:00")?.timeIntervalSince1970 == 1_704_067_200)
        #expect(Timestamp.parse("2024-01-01T00:00:00.000Z")?.timeIntervalSince1970 == 1_704_067_200)
        #expect(Timestamp.parse("2024-01-01")?.timeIntervalSince1970 == 1_704_067_200)
        for bad in ["2024-13-01", "2024-02-30", "2024-01-01T25:00:00Z", "2024-01-01T00:00:00", "yesterday", "2024-01-01T00:00:00Zjunk"] {
            #expect(Timestamp.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("US equity hours follow New York time and daylight saving")
    func equityHours() {
        let mondayOpen = Date(timeIntervalSince1970: 1_736_175_600)  // 2025-01-06 15:00Z = 10:00 EST
        #expect(USEquityHours.newYorkOffset(at: mondayOpen) == -18_000)
        #expect(USEquityHours.isRegularSessionOpen(at: mondayOpen))
        #expect(!USEquityHours.isRegularSessionOpen(at: mondayOpen.addingTimeInterval(7 * 3600)))  // 17:00 EST
        #expect(USEquityHours.isExtendedSessionOpen(at: mondayOpen.addingTimeInterval(7 * 3600)))
        let saturday = mondayOpen.addingTimeInterval(5 * 86_400)
        #expect(!USEquityHours.isRegularSessionOpen(at: saturday))
        #expect(Timestamp.format(USEquityHours.nextOpen(after: saturday), fractionDigits: 0) == "2025-01-13T14:30:00Z")
        #expect(Timestamp.format(USEquityHours.nextClose(after: mondayOpen), fractionDigits: 0) == "2025-01-06T21:00:00Z")
        let july = Date(timeIntervalSince1970: 1_721_286_633)
        #expect(USEquityHours.newYorkOffset(at: july) == -14_400)
        #expect(Timestamp.format(USEquityHours.nextClose(after: july), fractionDigits: 0) == "2024-07-18T20:00:00Z")
    }

    @Test("JSON keeps number text, member order and nulls, and refuses bad input")
    func json() throws {
        let value = try JSON(parsing: #"{"b":1.50,"a":[null,true,"\u00e9\n"],"c":-0.0000001}"#)
        #expect(value["b"] == .number("1.50"))
        #expect(value.serialized == #"{"b":1.50,"a":[null,true,"é\n"],"c":-0.0000001}"#)
        for bad in [
            "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\u{01}\"", "[1] 2", "nul",
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ] {
            #expect(throws: JSONParseError.self, "\(bad)") { try JSON(parsing: bad) }
        }
    }
}

@Suite("Sandbox ticker")
struct SandboxTickerTests {
    @Test("the ticker fills a resting order without any request, and stops on graceful shutdown")
    func ticks() async throws {
        let clock = ManualClock()
        let market = MarketEngine(configuration: MarketConfiguration(seed: 2), clock: clock)
        let sandbox = AlpacaSandbox(market: market)
        let (ticks, tickContinuation) = AsyncStream.makeStream(of: Void.self)
        let ticker = SandboxTicker(every: .milliseconds(1)) {
            sandbox.evaluate()
            tickContinuation.yield()
        }
        try await withSandbox(sandbox) { url in
            let client = TestClient(base: url)
            let order = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":1,"side":"buy","type":"limit","limit_price":"100","time_in_force":"gtc"}"#
            ).object
            let id = try #require(order["id"] as? String)
            try market.setPriceOverride(99, for: "AAPL")
            let group = ServiceGroup(configuration: .init(services: [ticker], logger: SandboxServer.quietLogger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                // Two ticks guarantee that at least one ran after the override.
                var iterator = ticks.makeAsyncIterator()
                _ = await iterator.next()
                _ = await iterator.next()
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            // Look without ticking: a request would fill the order by itself.
            let book = try #require(sandbox.bookWithoutTicking(AlpacaSandboxAccount.demoAccountID))
            #expect(book.order(try #require(UUID(uuidString: id)))?.status == .filled)
        }
    }
}
