package import Foundation

extension StoreClock {
    /// The stored form of a caller's date: milliseconds since 1970, to the nearest by default.
    ///
    /// Rounded, not truncated: a date made by ``date(_:)`` can sit a hair below its millisecond
    /// (`1_700_000_000_123` → `1_700_000_000_122.9998…` as a Double) and must map back to the same integer.
    /// Dates beyond ±285,000 years (`distantPast`/`distantFuture` are well inside) are clamped.
    package static func millis(_ date: Date, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(rule)
        guard !value.isNaN else { return 0 }
        return Int64(min(max(value, -9.0e15), 9.0e15))
    }
}
