public import Foundation

/// RFC 3339 text for wire bodies, computed with integer calendar arithmetic so the output does not
/// depend on the process locale, and fractional digits are exact (Foundation's ISO 8601 formatter stops at milliseconds).
public enum Timestamp {
    /// `2024-07-18T14:10:33.389152Z`: UTC, `fractionDigits` digits after the seconds (0 drops the fraction).
    public static func format(_ date: Date, fractionDigits: Int = 6) -> String {
        format(date, utcOffsetSeconds: 0, fractionDigits: fractionDigits)
    }

    /// `2024-07-18T10:10:33-04:00`: local wall time at the given offset from UTC.
    public static func format(_ date: Date, utcOffsetSeconds: Int, fractionDigits: Int = 6) -> String {
        let digits = max(0, min(fractionDigits, 9))
        let scale = Int64(pow10(digits))
        // Split into whole seconds and a fraction without letting Double rounding carry into the next second.
        let raw = date.timeIntervalSince1970
        let total = raw.isFinite ? min(max(raw, -Self.secondsLimit), Self.secondsLimit) : 0
        var seconds = Int64(total.rounded(.down))
        var fraction = Int64(((total - Double(seconds)) * Double(scale)).rounded(.down))
        if fraction >= scale {
            seconds += 1
            fraction -= scale
        }
        seconds += Int64(utcOffsetSeconds)
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(fromDaysSinceEpoch: days)
        var text = pad(Int(year), 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(Int(secondOfDay / 3600), 2) + ":" + pad(Int(secondOfDay / 60 % 60), 2) + ":" + pad(Int(secondOfDay % 60), 2)
        if digits > 0 {
            text += "." + pad(Int(fraction), digits)
        }
        if utcOffsetSeconds == 0 {
            text += "Z"
        } else {
            let sign = utcOffsetSeconds < 0 ? "-" : "+"
            let magnitude = abs(utcOffsetSeconds)
            text += sign + pad(magnitude / 3600, 2) + ":" + pad(magnitude / 60 % 60, 2)
        }
        return text
    }

    /// Dates are kept within ±10¹³ s (about 300 000 years) of 1970 before integer conversion, so no clock
    /// setting or arithmetic can trap on an out-of-range `Int64` conversion.
    public static let secondsLimit: Double = 1e13

    /// Whole seconds since 1970 (floor), clamped to ±``secondsLimit``.
    public static func unixSeconds(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970
        guard value.isFinite else { return value > 0 ? Int64(secondsLimit) : -Int64(secondsLimit) }
        return Int64(min(max(value, -secondsLimit), secondsLimit).rounded(.down))
    }

    /// `2024-07-18`, the calendar date at the given UTC offset.
    public static func formatDate(_ date: Date, utcOffsetSeconds: Int = 0) -> String {
        let seconds = Timestamp.unixSeconds(date) + Int64(utcOffsetSeconds)
        let (year, month, day) = civilDate(fromDaysSinceEpoch: floorDiv(seconds, 86_400))
        return pad(Int(year), 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    }

    /// Parses RFC 3339 (`2024-01-01T00:00:00Z`, `...+00:00`, any number of fractional digits, `t`/space separator)
    /// or a bare date (`2024-01-01`, midnight UTC). Returns nil for anything else.
    public static func parse(_ text: some StringProtocol) -> Date? {
        let b = Array(text.utf8)
        func digits(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for i in start..<(start + count) {
                guard b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(b[i] - UInt8(ascii: "0"))
            }
            return value
        }
        guard b.count >= 10, let year = digits(0, 4), b[4] == UInt8(ascii: "-"), let month = digits(5, 2),
            b[7] == UInt8(ascii: "-"), let day = digits(8, 2), (1...12).contains(month), (1...daysInMonth(year, month)).contains(day)
        else { return nil }
        let dayNumber = daysSinceEpoch(year: Int64(year), month: month, day: day)
        if b.count == 10 {
            return Date(timeIntervalSince1970: Double(dayNumber * 86_400))
        }
        guard b.count >= 20, [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(b[10]),
            let hour = digits(11, 2), b[13] == UInt8(ascii: ":"), let minute = digits(14, 2), b[16] == UInt8(ascii: ":"),
            let second = digits(17, 2), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if b[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < b.count, b[index] >= UInt8(ascii: "0"), b[index] <= UInt8(ascii: "9") {
                fraction += Double(b[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < b.count else { return nil }
        var offset = 0
        if b[index] == UInt8(ascii: "Z") || b[index] == UInt8(ascii: "z") {
            index += 1
        } else if b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-") {
            let sign = b[index] == UInt8(ascii: "-") ? -1 : 1
            guard let oh = digits(index + 1, 2), index + 3 < b.count, b[index + 3] == UInt8(ascii: ":"),
                let om = digits(index + 4, 2), oh < 24, om < 60
            else { return nil }
            offset = sign * (oh * 3600 + om * 60)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let seconds = dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offset)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    // MARK: Calendar arithmetic (proleptic Gregorian, after Howard Hinnant's algorithms)

    /// The UTC calendar date of day `days` since 1970-01-01 (day 0; negative before it); `month` and `day` from 1.
    public static func civilDate(fromDaysSinceEpoch days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// The day number of a calendar date, 1970-01-01 being 0: the inverse of ``civilDate(fromDaysSinceEpoch:)``.
    /// Days past the month's end are not checked: they count on (January 32 is February 1).
    public static func daysSinceEpoch(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `a / b` rounded toward negative infinity (Swift's `/` truncates toward zero): the bucket or day containing an
    /// instant before 1970 too. `b` must not be zero.
    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func pow10(_ n: Int) -> Int {
        var v = 1
        for _ in 0..<n { v *= 10 }
        return v
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
