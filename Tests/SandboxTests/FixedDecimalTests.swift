import Foundation
import Sandbox
import TestWorlds
import Testing

@testable import AlpacaSandbox
@testable import SandboxKit

/// A small deterministic generator (SplitMix64), so every run checks the same cases and a failure can be replayed.
private struct SplitMix {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// `digits` random decimal digits (the first may be zero).
    mutating func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(below(10))) }) }

    /// A decimal with up to `places` decimal places and up to `integerDigits` digits before the point.
    mutating func decimal(places: Int, integerDigits: Int, negative: Bool = false) -> Decimal {
        let text = (negative ? "-" : "") + "1" + digits(below(integerDigits)) + "e-" + String(below(places + 1))
        return dec(text)
    }

    /// Values as a book holds them: quantities with up to 9 places, prices with up to 6, zero, negative, and huge ones
    /// (30 to 38 digits) whose products and quotients Foundation has to compute itself.
    mutating func operand() -> Decimal {
        switch below(12) {
        case 0: 0
        case 1: dec((below(2) == 0 ? "-" : "") + "1" + digits(29 + below(9)) + "e" + String(below(40) - 30))
        case 2: dec("1e" + String(below(24) - 12))
        case 3, 4, 5: decimal(places: 9, integerDigits: 7, negative: below(5) == 0)
        default: decimal(places: 6, integerDigits: 6, negative: below(5) == 0)
        }
    }
}

/// Foundation's stored form of a `Decimal`: significand, exponent, sign and compact flag (what the next operation and
/// the text depend on).
private func stored(_ value: Decimal) -> String {
    guard let fixed = FixedDecimal(value) else { return value.isNaN ? "NaN" : "unreadable" }
    return "\(fixed.isNegative ? "-" : "")\(fixed.magnitude)e\(fixed.exponent)\(fixed.isCompact ? " compact" : "")"
}

private let modes: [Decimal.RoundingMode] = [.plain, .down, .up, .bankers]

@Suite("FixedDecimal: Foundation's Decimal arithmetic, exactly, without its cost")
struct FixedDecimalTests {
    /// One operation both ways: the same text on the wire and the same stored form.
    private func expectSame(_ fast: Decimal, _ foundation: Decimal, _ what: @autoclosure () -> String) {
        #expect(DecimalText.format(fast) == DecimalText.format(foundation), "\(what())")
        #expect(stored(fast) == stored(foundation), "\(what())")
    }

    @Test("Foundation's layout is the one read and written here, so the fast path runs")
    func layout() {
        #expect(FixedDecimal.layoutHolds)
        for text in ["0", "1.5", "-0.000000001", "123456789.123456789", "99999999999999999999999999999999999999"] {
            let value = dec(text)
            #expect(FixedDecimal(value)?.decimal == value)
            #expect(stored(FixedDecimal(value)!.decimal) == stored(value))
        }
        #expect(FixedDecimal(Decimal.nan) == nil)
    }

    @Test("sums, differences, products and rounded quotients of generated operands match Foundation's")
    func generated() {
        var random = SplitMix(state: 29)
        var fastProducts = 0
        var fastQuotients = 0
        var ordinary = 0
        for _ in 0..<4_000 {
            let a = random.operand()
            let b = random.operand()
            let fast = DecimalMath.fast
            expectSame(fast.sum(a, b), a + b, "\(a) + \(b)")
            expectSame(fast.difference(a, b), a - b, "\(a) - \(b)")
            expectSame(fast.product(a, b), a * b, "\(a) * \(b)")
            for scale in [0, 2, 9, 16] {
                let mode = modes[random.below(modes.count)]
                expectSame(fast.round(a, scale: scale, mode), DecimalText.foundationRound(a, scale: scale, mode), "round(\(a), \(scale), \(mode))")
                guard !b.isZero else { continue }
                expectSame(
                    fast.quotient(a, b, scale: scale, mode),
                    DecimalText.foundationRound(a / b, scale: scale, mode),
                    "round(\(a) / \(b), \(scale), \(mode))"
                )
            }
            if !b.isZero { expectSame(fast.quotient(a, b), a / b, "\(a) / \(b)") }
            // The fast path must carry ordinary values (a quantity and a price), or this test proves nothing.
            if let x = FixedDecimal(a), let y = FixedDecimal(b), x.magnitude < 1 << 64, y.magnitude < 1 << 64, !y.isZero,
                abs(x.exponent) <= 12, abs(y.exponent) <= 12
            {
                ordinary += 1
                if FixedDecimal.product(x, y) != nil { fastProducts += 1 }
                if FixedDecimal.quotient(x, y, scale: 9, .plain) != nil { fastQuotients += 1 }
            }
        }
        #expect(ordinary > 1_500)
        #expect(fastProducts == ordinary)
        #expect(Double(fastQuotients) >= 0.95 * Double(ordinary))
    }

    @Test("huge values fall back to Foundation, and still match")
    func huge() {
        let big = dec("12345678901234567890123456789012345678")
        let x = FixedDecimal(big)!
        #expect(FixedDecimal.product(x, x) == nil)
        #expect(FixedDecimal.quotient(x, FixedDecimal(dec("0.0000003"))!, scale: 16, .plain) == nil)
        #expect(FixedDecimal.sum(x, FixedDecimal(dec("1e-30"))!) == nil)
        expectSame(DecimalMath.fast.product(big, big), big * big, "big²")
        expectSame(DecimalMath.fast.sum(big, dec("1e-30")), big + dec("1e-30"), "big + 1e-30")
        expectSame(
            DecimalMath.fast.quotient(big, dec("0.0000003"), scale: 16),
            DecimalText.foundationRound(big / dec("0.0000003"), scale: 16),
            "big / 3e-7"
        )
        // A zero operand: returned as it is by a sum, Foundation's zero from a product.
        expectSame(DecimalMath.fast.sum(0, dec("1.50")), 0 + dec("1.50"), "0 + 1.50")
        expectSame(DecimalMath.fast.difference(0, dec("2.5")), 0 - dec("2.5"), "0 - 2.5")
        expectSame(DecimalMath.fast.product(0, dec("2.5")), 0 * dec("2.5"), "0 * 2.5")
        expectSame(DecimalMath.fast.quotient(0, dec("2.5"), scale: 16), DecimalText.foundationRound(0 / dec("2.5"), scale: 16), "0 / 2.5")
    }

    @Test("exact ties round as Foundation rounds them, in every mode")
    func ties() {
        var random = SplitMix(state: 2_029)
        for _ in 0..<1_500 {
            let divisor = random.decimal(places: 6, integerDigits: 5)
            let scale = [0, 2, 9, 16][random.below(4)]
            // (2k+1)·5·10^-(scale+1): halfway between two values of `scale` places.
            let half = dec(String(2 * random.below(100_000) + 1) + "5e-" + String(scale + 1))
            let dividend = divisor * half
            for mode in modes {
                expectSame(
                    DecimalMath.fast.quotient(dividend, divisor, scale: scale, mode),
                    DecimalText.foundationRound(dividend / divisor, scale: scale, mode),
                    "round(\(dividend) / \(divisor), \(scale), \(mode))"
                )
                expectSame(
                    DecimalMath.fast.round(-half, scale: scale, mode),
                    DecimalText.foundationRound(-half, scale: scale, mode),
                    "round(\(-half), \(scale), \(mode))"
                )
            }
        }
    }

    /// Foundation truncates its quotient to what fits 128 bits and then rounds that: a dividend of 39 digits just past
    /// a multiple of the divisor gives a quotient whose excess Foundation never sees, so rounding up gives Foundation
    /// the multiple and the exact quotient one more. The fast path must notice and let Foundation answer.
    @Test("quotients closer to a boundary than Foundation's digits reach give Foundation's answer")
    func nearBoundaries() {
        var random = SplitMix(state: 38)
        var checked = 0
        for _ in 0..<1_500 {
            let divisor = [3, 7, 11, 13, 17, 19, 23, 29, 31][random.below(9)]
            let multiple = String(divisor * (1 + random.below(99_999)))
            guard multiple.count == 1 || Int(multiple.prefix(2))! < 34 else { continue }  // 39 digits under 2^128
            let zeros = 38 - multiple.count
            let sign = random.below(3) == 0 ? "-" : ""
            let dividend = dec(sign + multiple + String(repeating: "0", count: zeros) + String(1 + random.below(9)) + "e-" + String(zeros + 1))
            for mode in modes {
                checked += 1
                expectSame(
                    DecimalMath.fast.quotient(dividend, Decimal(divisor), scale: 0, mode),
                    DecimalText.foundationRound(dividend / Decimal(divisor), scale: 0, mode),
                    "round(\(dividend) / \(divisor), 0, \(mode))"
                )
            }
        }
        #expect(checked > 1_000)
    }

    @Test("a price on a path: the product, the exact quotient by the unit and the tick rounding match Foundation's")
    func pricePath() {
        var random = SplitMix(state: 6)
        for _ in 0..<2_000 {
            let reference = random.decimal(places: 6, integerDigits: 6)
            let tick = [dec("0.01"), dec("0.0001"), dec("0.05"), dec("0.000001"), dec("1"), dec("0.25")][random.below(6)]
            let offset = Int64(random.below(1_800_001)) - 900_000
            let fast = DecimalMath.fast
            let raw = fast.quotient(fast.product(reference, Decimal(1_000_000 + offset)), Decimal(1_000_000))
            let foundationRaw = reference * Decimal(1_000_000 + offset) / Decimal(1_000_000)
            expectSame(raw, foundationRaw, "\(reference) on offset \(offset)")
            expectSame(
                DecimalText.round(raw, toMultipleOf: tick),
                DecimalText.foundationRound(foundationRaw / tick, scale: 0) * tick,
                "\(foundationRaw) to a multiple of \(tick)"
            )
        }
    }
}

@Suite("Alpaca positions: rendered with the fast arithmetic, Foundation's answer")
struct AlpacaPositionArithmeticTests {
    private static func instrument(_ index: Int, reference: Decimal, tick: Decimal, crypto: Bool) -> MarketInstrument {
        MarketInstrument(
            symbol: crypto ? "C\(index)/USD" : "EQ\(index)",
            assetClass: crypto ? .crypto : .equity,
            name: "Generated \(index)",
            exchange: crypto ? "CRYPTO" : "NYSE",
            baseCurrency: crypto ? "C\(index)" : nil,
            currency: "USD",
            tickSize: tick,
            lotSize: crypto ? dec("0.000000001") : 1,
            minQuantity: crypto ? dec("0.000000001") : 1,
            fractionable: true,
            referencePrice: reference,
            volatility: dec("0.0005"),
            spread: dec("0.0002"),
            sizeUnit: 100
        )
    }

    @Test("every field of generated positions, both ways")
    func fields() {
        var random = SplitMix(state: 150)
        let now = ManualClock.defaultStart
        for index in 0..<3_000 {
            let qty = random.below(20) == 0 ? 0 : random.decimal(places: 9, integerDigits: 6)
            let entry = random.decimal(places: 6, integerDigits: 5)
            let position = AlpacaPosition(
                instrument: Self.instrument(index, reference: entry, tick: dec("0.000001"), crypto: index % 3 == 0),
                qty: qty,
                costBasis: random.below(30) == 0 ? 0 : qty * entry,
                openedAt: random.below(2) == 0 ? now : now.addingTimeInterval(-86_400 * 3)
            )
            let valuation: (last: Decimal, previousClose: Decimal)? =
                random.below(10) == 0
                ? nil
                : (random.decimal(places: 6, integerDigits: 5), random.below(25) == 0 ? 0 : random.decimal(places: 6, integerDigits: 5))
            let held = random.below(4) == 0 ? random.decimal(places: 9, integerDigits: 3) : 0
            func render(_ math: DecimalMath) -> String {
                AlpacaWire.position(
                    position,
                    valuation: valuation,
                    qtyAvailable: max(0, math.difference(qty, held)),
                    now: now,
                    math: math
                ).serialized
            }
            #expect(render(.fast) == render(.foundation))
        }
    }

    /// A book of a few thousand generated positions (fractional quantities, prices of up to six places, crypto pairs,
    /// a few huge prices that take Foundation's path, some shares held for resting sell orders), read through the real
    /// route and rendered again from the same book with Foundation's arithmetic alone.
    @Test("GET /v2/positions and /v2/account: the same bytes as Foundation's arithmetic gives", .heavyWorld)
    func route() async throws {
        var random = SplitMix(state: 10_000)
        let clock = ManualClock()
        var instruments: [MarketInstrument] = []
        var holdings: [AlpacaSandboxAccount.Holding] = []
        for index in 0..<2_500 {
            let huge = index % 500 == 7
            let reference = huge ? dec("123456789012345678901234.5") : random.decimal(places: 6, integerDigits: 5)
            let tick = [dec("0.01"), dec("0.0001"), dec("0.000001"), dec("0.05")][random.below(4)]
            let item = Self.instrument(index, reference: reference, tick: tick, crypto: index % 4 == 0)
            instruments.append(item)
            holdings.append(
                .init(
                    symbol: item.symbol,
                    quantity: random.decimal(places: 9, integerDigits: 5),
                    averageEntryPrice: huge ? reference : random.decimal(places: 6, integerDigits: 5)
                )
            )
        }
        let today = AlpacaSandboxAccount(
            accountNumber: "PA3FIXED0001",
            keyID: "FIXED-TODAY",
            secretKey: "FIXED-TODAY-SECRET",
            startingCash: 1_000_000_000,
            positions: holdings,
            createdAt: clock.now()
        )
        let earlier = AlpacaSandboxAccount(
            accountNumber: "PA3FIXED0002",
            keyID: "FIXED-EARLIER",
            secretKey: "FIXED-EARLIER-SECRET",
            startingCash: 1_000_000_000,
            positions: holdings
        )
        let market = MarketEngine(configuration: MarketConfiguration(seed: 29, instruments: InstrumentCatalogue.standard + instruments), clock: clock)
        let sandbox = AlpacaSandbox(
            configuration: AlpacaSandboxConfiguration(accounts: [today, earlier], requestsPerMinute: 1_000_000),
            market: market
        )
        try await withSandbox(sandbox) { url in
            for account in [today, earlier] {
                var client = TestClient(base: url)
                client.headers = [("APCA-API-KEY-ID", account.keyID), ("APCA-API-SECRET-KEY", account.secretKey)]
                // Coins held for resting sells (limit far above the market): `qty_available` is less than `qty`.
                for holding in holdings.prefix(160) where holding.symbol.hasSuffix("/USD") {
                    let qty = DecimalText.format(DecimalText.foundationRound(holding.quantity / 2, scale: 9, .down))
                    guard qty != "0" else { continue }
                    let reply = try await client.post(
                        "/v2/orders",
                        #"{"symbol":"\#(holding.symbol)","qty":"\#(qty)","side":"sell","type":"limit","limit_price":"999999999","time_in_force":"gtc"}"#
                    )
                    #expect(reply.status == 200, "\(reply.text)")
                }
                let positions = try await client.get("/v2/positions")
                #expect(positions.status == 200)
                #expect(positions.array.count == holdings.count)
                let expected = try sandbox.withBook(account.id) { book, env in
                    AlpacaWire.positions(book, env: env, math: .foundation).serialized
                }
                #expect(positions.text == expected)
                #expect(positions.array.contains { $0["qty_available"] as? String != $0["qty"] as? String })

                let accountReply = try await client.get("/v2/account")
                let expectedAccount = try sandbox.withBook(account.id) { book, env in
                    AlpacaWire.account(book, env: env, math: .foundation).serialized
                }
                #expect(accountReply.text == expectedAccount)
            }
        }
    }
}
