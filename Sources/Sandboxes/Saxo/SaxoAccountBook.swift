import Foundation
import SandboxKit

/// What trading and valuation need besides the account itself: the market at one instant.
struct SaxoTradingEnvironment {
    let market: MarketEngine
    let instruments: SaxoInstruments
    let configuration: SaxoSandboxConfiguration
    let now: Date

    var accountCurrency: String { configuration.client.currency }

    func quote(_ instrument: SaxoInstrument) -> MarketQuote? {
        market.quote(symbol: instrument.market.symbol, at: now)
    }

    /// How many units of `to` one unit of `from` is worth, from the mid prices of the market's FX pairs
    /// (directly, inverted, or through one intermediate currency). nil when no pair connects them.
    func rate(from: String, to: String) -> Decimal? {
        if from == to { return 1 }
        let pairs = market.instruments.filter { $0.assetClass == .fx }
        func direct(_ a: String, _ b: String) -> Decimal? {
            for pair in pairs {
                guard let base = pair.baseCurrency, let quote = market.quote(symbol: pair.symbol, at: now) else { continue }
                let mid = quote.mid
                guard mid > 0 else { continue }
                if base == a, pair.currency == b { return mid }
                if base == b, pair.currency == a { return 1 / mid }
            }
            return nil
        }
        if let rate = direct(from, to) { return rate }
        var currencies: [String] = []
        for pair in pairs {
            for currency in [pair.baseCurrency ?? "", pair.currency] where !currency.isEmpty && !currencies.contains(currency) {
                currencies.append(currency)
            }
        }
        for middle in currencies where middle != from && middle != to {
            if let first = direct(from, middle), let second = direct(middle, to) { return first * second }
        }
        return nil
    }

    /// `rate(from:to:)` or 1 when the market cannot convert (valuations then say `ApproximatedPrice`).
    func convert(_ amount: Decimal, from: String) -> Decimal {
        amount * (rate(from: from, to: accountCurrency) ?? 1)
    }

    /// FX spot settles two weekdays after the trade date; US stocks one.
    func valueDate(for instrument: SaxoInstrument) -> Date {
        var day = Timestamp.floorDiv(Int64(now.timeIntervalSince1970.rounded(.down)), 86_400)
        var remaining = instrument.isFX ? 2 : 1
        while remaining > 0 {
            day += 1
            let weekday = ((day % 7) + 7 + 4) % 7  // 0 = Sunday
            if weekday != 0 && weekday != 6 { remaining -= 1 }
        }
        return Date(timeIntervalSince1970: Double(day * 86_400))
    }

    /// When a day order lapses: at the FX day's end (17:00 New York) for FX, at the regular close for stocks.
    func endOfDay(for instrument: SaxoInstrument) -> Date {
        guard instrument.isFX else { return USEquityHours.nextClose(after: now) }
        let offset = Int64(USEquityHours.newYorkOffset(at: now))
        let local = Int64(now.timeIntervalSince1970.rounded(.down)) + offset
        var boundary = Timestamp.floorDiv(local, 86_400) * 86_400 + 17 * 3600
        if boundary <= local { boundary += 86_400 }
        return Date(timeIntervalSince1970: Double(boundary - offset))
    }
}

/// Everything the simulator knows about the client's account: cash, working orders, open positions.
struct SaxoAccountBook: Sendable, Codable {
    /// In the account currency. FX trades book only their realised P&L here; stock trades book their full value.
    var cash: Decimal
    var orders: [SaxoOrder] = []
    var positions: [SaxoPosition] = []
    /// The order-activity audit log (`cs/v1/audit/orderactivities`), oldest first: every order's placement,
    /// changes, cancel, fills, expiry or rejection, kept after the order has left `orders`.
    var activities: [SaxoOrderActivity] = []
    private var nextOrderNumber: Int
    private var nextPositionNumber: Int
    private var nextLogNumber = 34_139_673

    init(cash: Decimal, firstOrderNumber: Int = 76_300_001, firstPositionNumber: Int = 212_600_001) {
        self.cash = cash
        self.nextOrderNumber = firstOrderNumber
        self.nextPositionNumber = firstPositionNumber
    }

    mutating func makeOrderID() -> String {
        defer { nextOrderNumber += 1 }
        return String(nextOrderNumber)
    }

    mutating func makePositionID() -> String {
        defer { nextPositionNumber += 1 }
        return String(nextPositionNumber)
    }

    /// The next audit `LogId` (Saxo's are numeric strings in time sequence; the first is from Saxo's example).
    mutating func makeLogID() -> Int {
        defer { nextLogNumber += 1 }
        return nextLogNumber
    }

    func order(_ id: String) -> SaxoOrder? {
        orders.first { $0.id == id }
    }

    /// Net amount held in `instrument` (signed).
    func netAmount(_ instrument: SaxoInstrument) -> Decimal {
        positions.filter { $0.instrument.listing.key == instrument.listing.key }.reduce(0) { $0 + $1.amount }
    }

    /// Net positions in the order their instruments were first traded. A net position closed to zero disappears at
    /// once (Saxo keeps it listed, flat, until end-of-day netting; the sandbox does not model the netting run).
    var netPositionInstruments: [SaxoInstrument] {
        var seen: Set<SaxoInstrumentKey> = []
        var result: [SaxoInstrument] = []
        for position in positions where !seen.contains(position.instrument.listing.key) {
            seen.insert(position.instrument.listing.key)
            result.append(position.instrument)
        }
        return result
    }
}
