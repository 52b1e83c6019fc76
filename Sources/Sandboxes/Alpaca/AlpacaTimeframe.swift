import Foundation
import SandboxKit

/// A bar width of the Market Data API (`timeframe=`): `[1-59]Min` (or `T`), `[1-23]Hour` (or `H`), `1Day` (`D`),
/// `1Week` (`W`), `[1,2,3,4,6,12]Month` (`M`). Units are read case-insensitively, because ccxt sends `1min`, `1H`,
/// `1D` and alpaca-py `1Min`, `1Hour`, `1Day`; a lone `m` is a month, as Alpaca's `M`.
struct AlpacaTimeframe: Sendable, Equatable {
    enum Unit: Sendable { case minute, hour, day, week, month }

    var amount: Int
    var unit: Unit

    static let oneDay = AlpacaTimeframe(amount: 1, unit: .day)

    init(amount: Int, unit: Unit) {
        self.amount = amount
        self.unit = unit
    }

    init?(_ text: String) {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 2, let amount = Int(digits) else { return nil }
        let unit: Unit
        switch text.dropFirst(digits.count).lowercased() {
        case "min", "t": unit = .minute
        case "hour", "h": unit = .hour
        case "day", "d": unit = .day
        case "week", "w": unit = .week
        case "month", "m": unit = .month
        default: return nil
        }
        let allowed: Bool
        switch unit {
        case .minute: allowed = (1...59).contains(amount)
        case .hour: allowed = (1...23).contains(amount)
        case .day, .week: allowed = amount == 1
        case .month: allowed = [1, 2, 3, 4, 6, 12].contains(amount)
        }
        guard allowed else { return nil }
        self.amount = amount
        self.unit = unit
    }
}

/// Where Alpaca's bars of one asset class begin: minute and hour bars on the UTC clock; day, week and month bars at
/// local midnight, New York for stocks (`"t":"2022-03-18T04:00:00Z"` in alpaca-py's snapshot fixture) and Chicago for
/// crypto (`"t":"2022-03-28T05:00:00Z"`, `"2024-11-01T05:00:00Z"` in alpaca-py's and ccxt's). Weeks begin on Monday.
struct AlpacaBarCalendar: Sendable {
    enum Zone: Sendable { case newYork, chicago }

    let timeframe: AlpacaTimeframe
    let zone: Zone

    private func offset(at seconds: Int64) -> Int64 {
        let newYork = Int64(USEquityHours.newYorkOffset(at: Date(timeIntervalSince1970: Double(seconds))))
        return zone == .newYork ? newYork : newYork - 3600
    }

    /// Local calendar day (days since 1970-01-01) of an instant.
    private func localDay(_ seconds: Int64) -> Int64 {
        Timestamp.floorDiv(seconds + offset(at: seconds), 86_400)
    }

    /// The instant of a local day's midnight.
    private func midnight(_ day: Int64) -> Int64 {
        let local = day * 86_400
        return local - offset(at: local + 6 * 3600)
    }

    private var fixedWidth: Int64? {
        switch timeframe.unit {
        case .minute: Int64(timeframe.amount) * 60
        case .hour: Int64(timeframe.amount) * 3600
        default: nil
        }
    }

    /// The start of the bar that contains `seconds`.
    func start(containing seconds: Int64) -> Int64 {
        if let width = fixedWidth { return Timestamp.floorDiv(seconds, width) * width }
        let day = localDay(seconds)
        switch timeframe.unit {
        case .week:
            let sinceMonday = ((day + 3) % 7 + 7) % 7  // 1970-01-01 was a Thursday
            return midnight(day - sinceMonday)
        case .month:
            let date = Timestamp.civilDate(fromDaysSinceEpoch: day)
            let index = date.year * 12 + Int64(date.month - 1)
            let first = Timestamp.floorDiv(index, Int64(timeframe.amount)) * Int64(timeframe.amount)
            let year = Timestamp.floorDiv(first, 12)
            return midnight(Timestamp.daysSinceEpoch(year: year, month: Int(first - year * 12) + 1, day: 1))
        default:
            return midnight(day)
        }
    }

    /// The start of the bar after the one starting at `start`.
    func next(after start: Int64) -> Int64 {
        if let width = fixedWidth { return start + width }
        switch timeframe.unit {
        case .week: return self.start(containing: start + 8 * 86_400 - 1)
        case .month:
            let date = Timestamp.civilDate(fromDaysSinceEpoch: localDay(start))
            let index = date.year * 12 + Int64(date.month - 1) + Int64(timeframe.amount)
            let year = Timestamp.floorDiv(index, 12)
            return midnight(Timestamp.daysSinceEpoch(year: year, month: Int(index - year * 12) + 1, day: 1))
        default: return midnight(localDay(start) + 1)
        }
    }

    /// The start of the bar before the one starting at `start`.
    func previous(before start: Int64) -> Int64 { self.start(containing: start - 1) }

    /// Whether a stock bar has trading in it when the market keeps hours: intraday bars that touch the extended
    /// session (04:00–20:00 New York), daily bars of weekdays; weeks and months always do.
    static func stockSessionHas(start: Int64, end: Int64, unit: AlpacaTimeframe.Unit) -> Bool {
        switch unit {
        case .minute, .hour:
            var probe = start
            while probe < end {
                if USEquityHours.isExtendedSessionOpen(at: Date(timeIntervalSince1970: Double(probe))) { return true }
                probe += 15 * 60
            }
            return false
        case .day:
            let middle = Date(timeIntervalSince1970: Double(start + 12 * 3600))
            let local = start + 12 * 3600 + Int64(USEquityHours.newYorkOffset(at: middle))
            let weekday = ((Timestamp.floorDiv(local, 86_400) + 4) % 7 + 7) % 7  // 0 = Sunday
            return weekday != 0 && weekday != 6
        case .week, .month:
            return true
        }
    }
}
