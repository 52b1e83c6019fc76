import Foundation
import Hummingbird
import SandboxKit

/// A request body the way TradeIt reads it: a JSON object whose members may be strings or numbers (the Java SDK
/// sends numbers as strings). A body that is not a JSON object is HTTP 400; a bad member is code 500 in a 200.
struct TradeItFields: Sendable {
    var json: JSON

    static func read(_ request: Request, _ context: SandboxRequestContext) async throws -> TradeItFields {
        let buffer = try await request.body(in: context)
        guard let json = try? JSON(parsing: Array(buffer: buffer)), json.objectMembers != nil else {
            throw TradeItAPIError.notJSON
        }
        return TradeItFields(json: json)
    }

    /// A string member, or a number's text; nil when absent or null.
    func string(_ key: String) -> String? {
        switch json[key] {
        case .string(let text)?: text
        case .number(let text)?: text
        case .bool(let flag)?: flag ? "true" : "false"
        default: nil
        }
    }

    /// A decimal sent as a number or a string; code 500 when it is something else.
    func decimal(_ key: String) throws(TradeItAPIError) -> Decimal? {
        guard let value = json[key], value != .null else { return nil }
        let text: String
        switch value {
        case .string(let string): text = string
        case .number(let number): text = number
        default: throw TradeItAPIError.parameter("\(key) must be a number.")
        }
        if text.isEmpty { return nil }
        guard let decimal = DecimalText.parse(text) else { throw TradeItAPIError.parameter("\(key) must be a number.") }
        return decimal
    }
}
