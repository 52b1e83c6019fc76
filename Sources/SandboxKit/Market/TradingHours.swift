public import Foundation

/// US equity session times (NYSE/Nasdaq): regular 09:30–16:00 and extended 04:00–20:00 New York time, Monday to Friday.
/// Exchange holidays are not modelled. Daylight saving follows the US rule in force since 2007, computed here
/// rather than read from tzdata so the answer does not depend on the host's time-zone files.
public enum USEquityHours {
    /// The regular session's open, 09:30 New York time, in minutes after midnight.
    public static let regularOpenMinute = 9 * 60 + 30
    /// The regular session's close, 16:00 New York time, in minutes after midnight.
    public static let regularCloseMinute = 16 * 60
    /// The extended session's open (pre-market), 04:00 New York time, in minutes after midnight.
    public static let extendedOpenMinute = 4 * 60
    /// The extended session's close (after hours), 20:00 New York time, in minutes after midnight.
    public static let extendedCloseMinute = 20 * 60

    /// New York's offset from UTC at `date`, in seconds (-14400 in summer, -18000 in winter).
    public static func newYorkOffset(at date: Date) -> Int {
        let seconds = Timestamp.unixSeconds(date)
        let year = Timestamp.civilDate(fromDaysSinceEpoch: Timestamp.floorDiv(seconds, 86_400)).year
        // DST starts the second Sunday of March at 02:00 EST (07:00 UTC), ends the first Sunday of November at 02:00 EDT (06:00 UTC).
        let start = nthSunday(year: year, month: 3, n: 2) * 86_400 + 7 * 3600
        let end = nthSunday(year: year, month: 11, n: 1) * 86_400 + 6 * 3600
        return (seconds >= start && seconds < end) ? -4 * 3600 : -5 * 3600
    }

    /// Whether the regular session is open at `date`.
    public static func isRegularSessionOpen(at date: Date) -> Bool {
        isOpen(at: date, from: regularOpenMinute, to: regularCloseMinute)
    }

    /// Whether the extended (pre-market to after-hours) session is open at `date`.
    public static func isExtendedSessionOpen(at date: Date) -> Bool {
        isOpen(at: date, from: extendedOpenMinute, to: extendedCloseMinute)
    }

    /// The next regular-session open strictly after `date`.
    public static func nextOpen(after date: Date) -> Date { nextBoundary(after: date, minute: regularOpenMinute) }

    /// The next regular-session close strictly after `date`.
    public static func nextClose(after date: Date) -> Date { nextBoundary(after: date, minute: regularCloseMinute) }

    // MARK: -

    private static func isOpen(at date: Date, from openMinute: Int, to closeMinute: Int) -> Bool {
        let local = Timestamp.unixSeconds(date) + Int64(newYorkOffset(at: date))
        let day = Timestamp.floorDiv(local, 86_400)
        guard isWeekday(day) else { return false }
        let minute = Int((local - day * 86_400) / 60)
        return minute >= openMinute && minute < closeMinute
    }

    private static func nextBoundary(after date: Date, minute: Int) -> Date {
        let local = Timestamp.unixSeconds(date) + Int64(newYorkOffset(at: date))
        var day = Timestamp.floorDiv(local, 86_400)
        for _ in 0..<10 {
            if isWeekday(day) {
                // Convert that local wall time back to UTC with the offset in force on that day.
                let localSeconds = day * 86_400 + Int64(minute * 60)
                let guess = Date(timeIntervalSince1970: Double(localSeconds + 5 * 3600))
                let utc = Date(timeIntervalSince1970: Double(localSeconds - Int64(newYorkOffset(at: guess))))
                if utc > date { return utc }
            }
            day += 1
        }
        return date
    }

    /// 1970-01-01 was a Thursday.
    private static func isWeekday(_ daysSinceEpoch: Int64) -> Bool {
        let weekday = ((daysSinceEpoch % 7) + 7 + 4) % 7  // 0 = Sunday
        return weekday != 0 && weekday != 6
    }

    private static func nthSunday(year: Int64, month: Int, n: Int) -> Int64 {
        let first = Timestamp.daysSinceEpoch(year: year, month: month, day: 1)
        let weekday = ((first % 7) + 7 + 4) % 7
        let firstSunday = first + (7 - weekday) % 7
        return firstSunday + Int64(n - 1) * 7
    }
}
