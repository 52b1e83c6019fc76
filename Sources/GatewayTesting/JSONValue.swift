public import Foundation

/// Any JSON document, for recorded payloads and for comparing bodies by meaning rather than by bytes.
/// Numbers keep their exact decimal value.
public enum JSONValue: Codable, Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Decimal)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Reads any JSON value; numbers decode as exact `Decimal`s.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Decimal.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Writes the value back as the JSON it came from.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses JSON bytes; `nil` when they are not JSON.
    public init?(data: Data) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        self = value
    }

    /// Compact JSON text with sorted keys, so equal values have equal text.
    public var data: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }

    /// The value's compact JSON text with sorted keys.
    public var description: String { String(decoding: data, as: UTF8.self) }

    /// The member `key` of an object; `nil` for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The JSON shape without values: the same keys and kinds, for provider-side checks ("same shape").
    public var shape: JSONValue {
        switch self {
        case .null: .null
        case .bool: .bool(true)
        case .number: .number(0)
        case .string: .string("")
        case .array(let items): .array(items.first.map { [$0.shape] } ?? [])
        case .object(let object): .object(object.mapValues(\.shape))
        }
    }
}
