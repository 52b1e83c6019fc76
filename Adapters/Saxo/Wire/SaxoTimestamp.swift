import Foundation
import GatewayModel

/// Saxo's times: ISO 8601 UTC with up to seven fraction digits (`2019-03-07T14:54:17.423333Z`), and, for order
/// expiries, exchange-local times without a zone (`2022-01-01T13:00`, read here as UTC).
enum SaxoTimestamp {
    /// `nil` for text that is not a time, and for .NET's "no value" (`0001-01-01T00:00:00Z`).
    static func parse(_ text: String) -> Date? {
        var text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, !text.hasPrefix("0001-01-01") else { return nil }
        // A date alone, or a local time without a zone: read as UTC.
        if text.count == 10 { text += "T00:00:00Z" }
        if !text.hasSuffix("Z"), !text.hasSuffix("z"), text.dropFirst(19).firstIndex(where: { $0 == "+" || $0 == "-" }) == nil {
            if text.count == 16 { text += ":00" }
            text += "Z"
        }
        return RFC3339Timestamp.parse(text)
    }

    /// RFC 3339 with milliseconds, for persisted credentials.
    static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// `2024-06-30T16:00:00` (UTC, no zone): the form Saxo takes for `ExpirationDateTime`.
    static func formatLocal(_ date: Date) -> String {
        var text = date.formatted(Date.ISO8601FormatStyle())
        if text.hasSuffix("Z") { text.removeLast() }
        return text
    }
}
