import Foundation
import GatewayModel

/// Every Kraken answer: `{"error": [...], "result": {...}}`. `error` holds strings `<severity><category>:<text>`;
/// severity `E` is a failure, `W` a warning on a success. A failure may carry no `result` or an empty one
/// (Spot REST Introduction vs the errors guide).
struct KrakenEnvelope<Result: Decodable>: Decodable {
    var error: [String]
    var result: Result?

    enum CodingKeys: String, CodingKey { case error, result }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        error = try c.decodeIfPresent([String].self, forKey: .error) ?? []
        // A failure's result (absent, `{}`) is not read: the error decides.
        if error.contains(where: { $0.hasPrefix("E") }) {
            result = nil
        } else {
            result = try c.decodeIfPresent(Result.self, forKey: .result)
        }
    }

    /// The `E…` strings (warnings aside).
    var failures: [String] { error.filter { $0.hasPrefix("E") } }
}

/// Only the `error` member, for reading a failure whatever its status.
struct KrakenErrorsOnly: Decodable {
    var error: [String]?
}

/// A value Kraken sends as a string or as a number (`"30300.1"` or `30300.1`, `1688666559.8974`), kept as text.
struct KrakenText: Decodable, Sendable, Hashable {
    var text: String

    init(_ text: String) { self.text = text }

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let text = try? c.decode(String.self) {
            self.text = text
        } else if let number = try? c.decode(Decimal.self) {
            self.text = "\(number)"
        } else if let flag = try? c.decode(Bool.self) {
            self.text = flag ? "true" : "false"
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "must be a string or a number")
        }
    }

    /// A strict decimal, or nil.
    var decimal: Decimal? { DecimalText.parse(text) }

    /// Unix seconds (fractional), or nil.
    var date: Date? {
        guard let seconds = Double(text), seconds.isFinite, seconds > 0 else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}

extension KeyedDecodingContainer {
    /// A unix time in seconds, number or string (`1688666559.8974`, `"1705259439.563000"`); 0 or absent is nil.
    func decodeKrakenTimeIfPresent(forKey key: Key) throws -> Date? {
        try decodeIfPresent(KrakenText.self, forKey: key)?.date
    }
}
