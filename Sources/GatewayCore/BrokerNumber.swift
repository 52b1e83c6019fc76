public import Foundation
public import HTTPTypes

/// The one parser of numbers a broker sends outside its JSON bodies: `Retry-After`, `X-RateLimit-*` limits,
/// remainders and resets, sizes. Every value is finite and clamped where it is read, so nothing a broker sends
/// (`inf`, `nan`, `1e300`, `-5`, `0x10`, a date in the year 9999) can trap a conversion, stall a caller for longer
/// than a day, or reach an encoder as a non-finite number. The adapters' error tables and the pipeline's rate
/// limiter and retries all read through here.
public enum BrokerNumber {
    /// The largest count taken from a header (a rate limit of a trillion calls is as good as none).
    public static let maximumCount = 1_000_000_000_000
    /// The longest wait passed on: a day (`GatewayError.maximumRetryAfter`).
    public static let maximumSeconds = GatewayError.maximumRetryAfter

    /// A finite number in plain decimal notation (`12`, `-3.5`, `1e3`): an optional sign, digits with an optional
    /// fraction, an optional exponent of at most three digits, at most 40 characters. `nil` for anything else
    /// (`inf`, `nan`, hex, empty, text).
    public static func finite(_ text: String?) -> Double? {
        guard let text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let utf8 = Array(trimmed.utf8)
        guard !utf8.isEmpty, utf8.count <= 40 else { return nil }
        var index = 0
        func isDigit(_ i: Int) -> Bool { i < utf8.count && utf8[i] >= 0x30 && utf8[i] <= 0x39 }
        if utf8[index] == UInt8(ascii: "-") || utf8[index] == UInt8(ascii: "+") { index += 1 }
        var digits = 0
        while isDigit(index) {
            digits += 1
            index += 1
        }
        if index < utf8.count, utf8[index] == UInt8(ascii: ".") {
            index += 1
            while isDigit(index) {
                digits += 1
                index += 1
            }
        }
        guard digits > 0 else { return nil }
        if index < utf8.count, utf8[index] == UInt8(ascii: "e") || utf8[index] == UInt8(ascii: "E") {
            index += 1
            if index < utf8.count, utf8[index] == UInt8(ascii: "-") || utf8[index] == UInt8(ascii: "+") { index += 1 }
            var exponentDigits = 0
            while isDigit(index) {
                exponentDigits += 1
                index += 1
            }
            guard (1...3).contains(exponentDigits) else { return nil }
        }
        guard index == utf8.count, let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }

    /// A count (`X-RateLimit-Limit`, `-Remaining`): a non-negative number, rounded down, at most `maximumCount`.
    /// `nil` for negatives and for anything `finite` refuses.
    public static func count(_ text: String?) -> Int? {
        guard let value = finite(text), value >= 0 else { return nil }
        return Int(exactly: min(value, Double(maximumCount)).rounded(.down))
    }

    /// A size in bytes (`Content-Length`): like `count`.
    public static func size(_ text: String?) -> Int? {
        count(text)
    }

    /// Seconds, clamped to 0…`maximumSeconds` (negatives are 0: "now").
    public static func seconds(_ text: String?) -> Double? {
        finite(text).map(clampSeconds)
    }

    static func clampSeconds(_ value: Double) -> Double {
        min(max(value, 0), maximumSeconds)
    }

    /// How a reset header counts.
    public enum ResetKind: Sendable, Hashable {
        /// Seconds from now (Saxo's `X-RateLimit-*-Reset`).
        case secondsFromNow
        /// Unix seconds (Alpaca's `X-RateLimit-Reset`).
        case unixSeconds
    }

    /// A rate-limit reset as seconds from `now`, clamped to 0…`maximumSeconds`.
    public static func resetSeconds(_ text: String?, kind: ResetKind, now: Date) -> Double? {
        guard let value = finite(text) else { return nil }
        switch kind {
        case .secondsFromNow: return clampSeconds(value)
        case .unixSeconds: return clampSeconds(value - now.timeIntervalSince1970)
        }
    }

    /// `Retry-After`: delay-seconds or an HTTP date (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), as seconds from
    /// `now`, clamped to 0…`maximumSeconds`.
    public static func retryAfter(_ text: String?, now: Date) -> Double? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = seconds(text) { return seconds }
        guard let date = httpDate(text) else { return nil }
        return clampSeconds(date - now.timeIntervalSince1970)
    }

    /// `Retry-After` of a response's headers.
    public static func retryAfter(_ headers: HTTPFields, now: Date) -> Double? {
        retryAfter(headers[.retryAfter], now: now)
    }

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// An IMF-fixdate as unix seconds; `nil` unless the text is exactly one, with a year from 1970 to 9999.
    public static func httpDate(_ text: String) -> Double? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","),
            weekdays.contains(String(parts[0].dropLast())), parts[5] == "GMT",
            parts[1].count == 2, let day = Int(parts[1]), (1...31).contains(day),
            let monthIndex = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = Int(parts[3]), (1970...9999).contains(year)
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        return Double(daysFromCivil(year: year, month: monthIndex + 1, day: day)) * 86_400
            + Double(hour * 3600 + minute * 60 + second)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
