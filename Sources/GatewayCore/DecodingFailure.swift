import Foundation

/// Explains why a broker's answer could not be read, for `malformed_response` messages that reach clients: it says
/// where (our own field names and array positions) and never quotes the payload. A decoder's own description is
/// left out too, because it can quote a value ("Number 1e400 is not representable"), and so are keys of JSON
/// objects that the payload names (a map keyed by symbol or currency), shown as `{…}`: an answer from a service
/// posing as a broker must not be readable back through an error message.
public enum DecodingFailure {
    /// A client-safe sentence for why `error` kept a body from decoding (`a value of the wrong type at
    /// positions[0].qty`); any error that is not a `DecodingError` reads as a body that is not the expected JSON.
    public static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "a body that is not the expected JSON" }
        switch decoding {
        case .keyNotFound(let key, let context):
            let name = isOurs(key) ? "'\(key.stringValue)'" : "a required key"
            return "a body without \(name) at \(path(context.codingPath))"
        case .valueNotFound(_, let context):
            return "a null where a value is required at \(path(context.codingPath))"
        case .typeMismatch(_, let context):
            return "a value of the wrong type at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "a body that is not readable JSON" }
            return "an unreadable value at \(path(context.codingPath))"
        @unknown default:
            return "a body that is not the expected JSON"
        }
    }

    /// `positions[0].qty`, with keys the payload chose shown as `{…}`; `the body` for the top level.
    public static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue, !isOurs(key) {
                text += "[\(index)]"
            } else if isOurs(key) {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            } else {
                text += (text.isEmpty ? "" : ".") + "{…}"
            }
        }
        return text.isEmpty ? "the body" : text
    }

    /// A key is one of ours when it is a case of a `CodingKeys` enum (synthesized or written out); the decoder's own
    /// keys for array positions and object members (whatever Foundation calls them: found once by a probe) and an
    /// adapter's free-form key structs are not.
    static func isOurs(_ key: any CodingKey) -> Bool {
        !decoderKeyTypes.contains(ObjectIdentifier(type(of: key))) && Mirror(reflecting: key).displayStyle == .enum
            && key.stringValue.utf8.count <= 64
    }

    /// The key types `JSONDecoder` itself makes for array elements and dictionary members.
    static let decoderKeyTypes: Set<ObjectIdentifier> = {
        struct Probe: Decodable {
            var keyType: ObjectIdentifier?
            init(from decoder: any Decoder) throws {
                keyType = decoder.codingPath.last.map { ObjectIdentifier(type(of: $0)) }
            }
        }
        let decoder = JSONDecoder()
        var types = Set<ObjectIdentifier>()
        if let list = try? decoder.decode([Probe].self, from: Data("[0]".utf8)) { types.formUnion(list.compactMap(\.keyType)) }
        if let map = try? decoder.decode([String: Probe].self, from: Data(#"{"k":0}"#.utf8)) {
            types.formUnion(map.values.compactMap(\.keyType))
        }
        return types
    }()
}
