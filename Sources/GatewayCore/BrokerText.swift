/// Text a broker sent, made fit to pass on to a client: a broker (or anything posing as one) must not be able to
/// use the gateway's error messages to pass a long reply, control characters or terminal escapes to a caller or a
/// log. Every adapter passes the broker's own wording (an error message, a field problem) through here.
public enum BrokerText {
    /// The longest broker text passed on: enough for any broker's error sentence, too short to carry a document.
    public static let maximumLength = 200

    /// `text` without control characters (each run of them and of whitespace becomes one space), trimmed, and cut
    /// to `limit` characters with `…` when it was longer.
    public static func sanitized(_ text: some StringProtocol, limit: Int = maximumLength) -> String {
        var result = ""
        var pendingSpace = false
        var count = 0
        let limit = max(1, limit)
        for scalar in text.unicodeScalars {
            let isBlank =
                scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
                || scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator || scalar == "\u{FFFD}"
            if isBlank {
                pendingSpace = !result.isEmpty
                continue
            }
            if count + (pendingSpace ? 1 : 0) >= limit {
                result.unicodeScalars.append("…")
                return result
            }
            if pendingSpace {
                result.unicodeScalars.append(" ")
                count += 1
                pendingSpace = false
            }
            result.unicodeScalars.append(scalar)
            count += 1
        }
        return result
    }
}
