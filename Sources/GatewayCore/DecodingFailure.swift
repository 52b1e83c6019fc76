/// Explains why a broker's answer could not be read, naming the field but never quoting the payload (which may
/// carry account data). Adapters use it for their `malformed_response` messages.
public enum DecodingFailure {
    public static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "a body that is not the expected JSON" }
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return text.isEmpty ? "the body" : text
        }
        switch decoding {
        case .keyNotFound(let key, let context):
            return "a body without '\(key.stringValue)' at \(path(context))"
        case .valueNotFound(_, let context):
            return "a null where a value is required at \(path(context))"
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            return "an unreadable value at \(path(context)) (\(context.debugDescription))"
        @unknown default:
            return "a body that is not the expected JSON"
        }
    }
}
