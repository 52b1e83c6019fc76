package import Foundation

/// Timestamps are stored as integer milliseconds since 1970.
///
/// A `Date` made from the stored integer compares equal to the one read back later, which matters because the
/// adapter registry keys its cache on `updatedAt`; a `Double` of seconds or a text date would not round-trip exactly.
package enum StoreClock {
    package static func nowMillis() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// A timestamp strictly after `previous`, so two quick updates still differ.
    package static func millis(after previous: Int64?) -> Int64 {
        let now = nowMillis()
        guard let previous else { return now }
        return max(now, previous + 1)
    }

    package static func date(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }
}
