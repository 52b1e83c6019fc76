public import Foundation
import GatewayCore
import GatewayModel
import OpenAPIRuntime

/// The unified API's JSON conventions: camelCase, RFC 3339 timestamps with milliseconds, decimals as strings
/// (the model types encode them so).
public enum APIJSON {
    /// The encoder every API body goes through, so keys are sorted and timestamps are RFC 3339 with milliseconds;
    /// `pretty` indents (the OpenAPI document and humans' reads).
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatTimestamp(date))
        }
        return encoder
    }

    /// A timestamp as the API writes it: RFC 3339 in UTC with milliseconds, the same in every body and header.
    public static func formatTimestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A timestamp a client sent, parsed as RFC 3339; `nil` when it is not one, so the caller can say which field was
    /// wrong.
    public static func parseTimestamp(_ text: String) -> Date? {
        RFC3339Timestamp.parse(text)
    }

    /// The generated server's and client's dates: RFC 3339 with milliseconds out, with or without fractions in.
    struct DateTranscoder: OpenAPIRuntime.DateTranscoder {
        func encode(_ date: Date) throws -> String { APIJSON.formatTimestamp(date) }

        func decode(_ text: String) throws -> Date {
            guard let date = APIJSON.parseTimestamp(text) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: [],
                        debugDescription: "must be an RFC 3339 timestamp such as 2026-01-31T15:04:05Z"
                    )
                )
            }
            return date
        }
    }

    /// The generated server's coding configuration: the same JSON as the rest of the API.
    static var configuration: Configuration {
        Configuration(dateTranscoder: DateTranscoder(), jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// Turns a decoding failure into field-level problems a client can act on.
    static func problems(from error: DecodingError) -> (message: String, details: [FieldProblem]) {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = codingPath + (last.map { [$0] } ?? [])
            let text = keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            let trimmed = text.hasPrefix(".") ? String(text.dropFirst()) : text
            return trimmed.isEmpty ? "body" : trimmed
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath, key)
            return ("\(field) is required", [FieldProblem(field: field, problem: "is required")])
        case .valueNotFound(_, let context):
            let field = path(context.codingPath)
            return ("\(field) must not be null", [FieldProblem(field: field, problem: "must not be null")])
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            let expected: String
            switch type {
            case is String.Type: expected = "a string"
            case is Bool.Type: expected = "true or false"
            case is Int.Type, is Double.Type, is Decimal.Type: expected = "a number"
            case is [Any].Type: expected = "an array"
            default: expected = field == "body" ? "a JSON object" : "of a different type"
            }
            return ("\(field) must be \(expected)", [FieldProblem(field: field, problem: "must be \(expected)")])
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return ("the body is not valid JSON", [FieldProblem(field: "body", problem: "is not valid JSON")])
            }
            let field = path(context.codingPath)
            if context.debugDescription.hasPrefix("Additional properties are disabled") || context.debugDescription == StrictKeys.unknownFieldProblem
            {
                let problem = StrictKeys.unknownFieldProblem
                return ("\(field) \(problem)", [FieldProblem(field: field, problem: problem)])
            }
            let reason = context.debugDescription.isEmpty ? "is not valid" : context.debugDescription
            return ("\(field) \(reason)", [FieldProblem(field: field, problem: reason)])
        @unknown default:
            return ("the body could not be read", [FieldProblem(field: "body", problem: "could not be read")])
        }
    }
}
