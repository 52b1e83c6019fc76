/// The wire dialect a connection speaks. Open for extension: a new adapter brings its own kind.
///
/// A kind is a name of 1 to ``maxLength`` characters of `a-z 0-9 _ -`, starting with a letter (``problem(with:)``),
/// the same rule the OpenAPI document states for `BrokerKind`. A kind travels far: into URLs, metric labels, log
/// lines, the dashboard's attributes and every client's decoder; lowercase only, so a dialect has one spelling
/// (`alpaca`, never also `Alpaca`).
public struct BrokerKind: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible, Comparable {
    /// The dialect's name on the wire (`alpaca`, `saxo`, `tradeit`, `tradeogre`).
    public let rawValue: String
    /// Any name makes a kind: the set is open, so an adapter outside this package can bring its own. Only a
    /// well-formed name (``isWellFormed``) decodes or is registered; check a name from outside with
    /// ``problem(with:)``.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Shorthand for ``init(rawValue:)``.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Alpaca's Trading API v2 with its Market Data API.
    public static let alpaca = BrokerKind("alpaca")
    /// Saxo Bank's OpenAPI.
    public static let saxo = BrokerKind("saxo")
    /// TradeIt's EMS API (the service is gone; its dialect remains).
    public static let tradeit = BrokerKind("tradeit")
    /// TradeOgre's API v1 (offline since 2025; its dialect remains).
    public static let tradeogre = BrokerKind("tradeogre")

    /// The longest kind, in characters (all ASCII): a name, not a description.
    public static let maxLength = 32

    /// What is wrong with `name` as a kind, said as a field problem ("must be …"), or `nil` when it is one.
    public static func problem(with name: String) -> String? {
        let bytes = name.utf8
        let wellFormed =
            (1...maxLength).contains(bytes.count)
            && bytes.first.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) } == true
            && bytes.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
        return wellFormed ? nil : "must be 1 to \(maxLength) characters of a-z, 0-9, _ and -, starting with a letter"
    }

    /// Whether the name is a kind by ``problem(with:)``'s rule.
    public var isWellFormed: Bool { Self.problem(with: rawValue) == nil }

    /// The raw name, for logs and messages.
    public var description: String { rawValue }
    /// By name, so that lists of brokers sort the same way every time.
    public static func < (lhs: BrokerKind, rhs: BrokerKind) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Reads a bare JSON string. Any well-formed name decodes, known to this build or not: the set is open, unlike
    /// a ``WireEnum``. A malformed one is refused with the rule as the reason, so a request naming it is a 400 that
    /// says which field and why.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        if let problem = Self.problem(with: name) {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: problem)
        }
        self.rawValue = name
    }
    /// Writes the name as a bare JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
