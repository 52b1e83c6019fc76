public import Foundation

/// RFC 3339 timestamps, the one parser the gateway uses for the times brokers and clients send:
/// `2024-07-18T04:10:33.389152169-04:00`, `2021-03-16T18:38:01.942282Z`, `2019-08-24T14:15:22Z`.
///
/// Parsed by hand because Foundation's ISO 8601 parsers disagree across platforms on more than three fraction
/// digits. Up to nine fraction digits (nanoseconds) are read; `Date` is a `Double`, so digits past the microsecond
/// are rounded away (keep the raw text where they matter). The date and time may be separated by `T`, `t` or a space
/// (RFC 3339 § 5.6 allows it); the zone, `Z` or `±HH:MM`, is required. Anything longer than
/// ``maximumLength`` bytes is refused before it is read.
public enum RFC3339Timestamp {
    /// The longest text read: `2024-07-18T04:10:33.389152169-04:00` is 35 bytes.
    public static let maximumLength = 40
    /// Nanoseconds.
    public static let maximumFractionDigits = 9

    /// The moment `text` names, or `nil` for anything that is not a whole RFC 3339 timestamp (a missing zone, an
    /// impossible date, more than ``maximumFractionDigits`` fraction digits, trailing text).
    public static func parse(_ text: some StringProtocol) -> Date? {
        guard text.utf8.count <= maximumLength else { return nil }
        let bytes = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + count)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
            expect("Tt "), let hour = digits(2), expect(":"), let minute = digits(2), expect(":"),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var nanoseconds = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var count = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                count += 1
                guard count <= maximumFractionDigits else { return nil }
                nanoseconds = nanoseconds * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<maximumFractionDigits { nanoseconds *= 10 }
        }
        var offsetSeconds = 0
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHour = digits(2), expect(":"), let offsetMinute = digits(2), offsetHour < 24,
                offsetMinute < 60
            else { return nil }
            offsetSeconds = sign * (offsetHour * 3600 + offsetMinute * 60)
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        // Exact integers divided once: the nearest Double to the fraction, as `Double("0.423333")` gives.
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    /// `2024-01-01T00:00:00Z`, with milliseconds (`.250`) only when the date has them.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var whole = Int(interval.rounded(.down))
        var millis = Int(((interval - Double(whole)) * 1000).rounded())
        if millis == 1000 {
            whole += 1
            millis = 0
        }
        let days = Int((Double(whole) / 86_400).rounded(.down))
        let secondsOfDay = whole - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text =
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
            + "\(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay % 3600 / 60, 2)):\(pad(secondsOfDay % 60, 2))"
        if millis > 0 { text += "." + pad(millis, 3) }
        return text + "Z"
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
