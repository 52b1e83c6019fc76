public import Foundation
import GatewayModel

/// The JSON conventions of contract cases: canonical values are encoded the way the unified API shows them
/// (RFC 3339 dates with milliseconds, decimals as strings), and compared by meaning.
public enum ContractJSON {
    /// Encodes a canonical value the way cases write it.
    public static func encode(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatDate(date))
        }
        let data = try encoder.encode(value)
        guard let json = JSONValue(data: data) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the encoder wrote something that is not JSON"))
        }
        return json
    }

    /// Decodes a canonical value from a case's JSON; dates are RFC 3339 strings.
    public static func decode<T: Decodable>(_ type: T.Type, from json: JSONValue) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be an RFC 3339 date")
            }
            return date
        }
        return try decoder.decode(type, from: json.data)
    }

    /// A date as cases write it: RFC 3339 in UTC with milliseconds (`2024-03-01T14:30:00.000Z`).
    public static func formatDate(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// RFC 3339 with or without fraction digits (any number of them), `Z` or an offset.
    public static func parseDate(_ text: String) -> Date? {
        // Foundation's parsers accept at most three fraction digits everywhere: cut the rest.
        var normalized = text
        if let dot = text.firstIndex(of: "."),
            let zone = text[dot...].firstIndex(where: { $0 == "Z" || $0 == "z" || $0 == "+" || $0 == "-" })
        {
            let fraction = text[text.index(after: dot)..<zone]
            guard !fraction.isEmpty, fraction.allSatisfy(\.isNumber) else { return nil }
            normalized =
                String(text[..<dot]) + "." + String(fraction.prefix(3)).padding(toLength: 3, withPad: "0", startingAt: 0)
                + String(text[zone...])
        }
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: normalized) { return date }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        return plain.date(from: normalized)
    }

    /// The first difference between an expected and an actual JSON value, or `nil` when they mean the same:
    /// - a missing key and `null` are the same;
    /// - strings that are both RFC 3339 dates compare as instants (to the millisecond);
    /// - decimals compare by value, whether written as strings or numbers (`"100.0"` == `"100"` == `100`);
    /// - paths in `ignoring` (see `ContractExpectation.ignore`) are not compared.
    public static func difference(expected: JSONValue, actual: JSONValue, ignoring: [String] = []) -> String? {
        let patterns = ignoring.map { $0.split(separator: ".").map(String.init) }
        return difference(expected, actual, path: [], ignoring: patterns)
    }

    static func difference(_ expected: JSONValue, _ actual: JSONValue, path: [String], ignoring: [[String]]) -> String? {
        if ignoring.contains(where: { matches($0, path) }) { return nil }
        let here = path.isEmpty ? "the result" : path.joined(separator: ".")
        switch (expected, actual) {
        case (.object(let e), .object(let a)):
            for key in Set(e.keys).union(a.keys).sorted() {
                if let problem = difference(e[key] ?? .null, a[key] ?? .null, path: path + [key], ignoring: ignoring) {
                    return problem
                }
            }
            return nil
        case (.array(let e), .array(let a)):
            guard e.count == a.count else { return "\(here): expected \(e.count) elements, got \(a.count)" }
            for (index, pair) in zip(e, a).enumerated() {
                if let problem = difference(pair.0, pair.1, path: path + [String(index)], ignoring: ignoring) {
                    return problem
                }
            }
            return nil
        default:
            return sameScalar(expected, actual) ? nil : "\(here): expected \(expected), got \(actual)"
        }
    }

    static func sameScalar(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
        if expected == actual { return true }
        switch (expected, actual) {
        case (.string(let e), .string(let a)):
            if let ed = parseDate(e), let ad = parseDate(a) { return abs(ed.timeIntervalSince(ad)) < 0.001 }
            if let en = DecimalText.parse(e), let an = DecimalText.parse(a) { return en == an }
            return false
        case (.number(let e), .string(let a)):
            return DecimalText.parse(a) == e
        case (.string(let e), .number(let a)):
            return DecimalText.parse(e) == a
        default:
            return false
        }
    }

    static func matches(_ pattern: [String], _ path: [String]) -> Bool {
        guard pattern.count == path.count else { return false }
        return zip(pattern, path).allSatisfy { $0 == "*" || $0 == $1 }
    }

    /// The value at a dot path (`id`, `0.id`, `quotes.AAPL`), for provider captures.
    public static func value(at path: String, in json: JSONValue) -> JSONValue? {
        var current = json
        for segment in path.split(separator: ".").map(String.init) {
            switch current {
            case .object(let object):
                guard let next = object[segment] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(segment), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// The first way `actual` does not have the shape of `recorded` (`JSONValue.shape`): every recorded key must be
    /// present with the same kind; extra keys are fine (live APIs grow); `null` on either side matches any kind;
    /// arrays compare their first elements; keys in `optionalKeys` may be missing; keys in `looseKinds` may be a
    /// number on one side and a string on the other.
    public static func shapeDifference(
        recorded: JSONValue,
        actual: JSONValue,
        optionalKeys: Set<String> = [],
        looseKinds: Set<String> = []
    ) -> String? {
        var notes: [String] = []
        return shapeDifference(
            recorded.shape,
            actual.shape,
            path: [],
            optionalKeys: optionalKeys,
            looseKinds: looseKinds,
            notes: &notes
        )
    }

    static func shapeDifference(
        _ recorded: JSONValue,
        _ actual: JSONValue,
        path: [String],
        optionalKeys: Set<String>,
        looseKinds: Set<String>,
        notes: inout [String]
    ) -> String? {
        let here = path.isEmpty ? "the body" : path.joined(separator: ".")
        switch (recorded, actual) {
        case (.null, _), (_, .null):
            return nil
        case (.object(let r), .object(let a)):
            for key in r.keys.sorted() {
                guard let value = a[key] else {
                    if optionalKeys.contains(key) || optionalKeys.contains((path + [key]).joined(separator: ".")) {
                        continue
                    }
                    return "\(here): the sandbox leaves out '\(key)'"
                }
                if let problem = shapeDifference(
                    r[key]!,
                    value,
                    path: path + [key],
                    optionalKeys: optionalKeys,
                    looseKinds: looseKinds,
                    notes: &notes
                ) {
                    return problem
                }
            }
            return nil
        case (.array(let r), .array(let a)):
            guard let first = r.first, let other = a.first else {
                notes.append("\(here): an empty array on one side, not compared")
                return nil
            }
            return shapeDifference(
                first,
                other,
                path: path + ["0"],
                optionalKeys: optionalKeys,
                looseKinds: looseKinds,
                notes: &notes
            )
        case (.number, .string), (.string, .number):
            if let key = path.last, looseKinds.contains(key) { return nil }
            return "\(here): recorded \(kind(recorded)), the sandbox sends \(kind(actual))"
        default:
            return kind(recorded) == kind(actual)
                ? nil : "\(here): recorded \(kind(recorded)), the sandbox sends \(kind(actual))"
        }
    }

    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
