/// The wire dialect a connection speaks. Open for extension: a new adapter brings its own kind.
public struct BrokerKind: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible, Comparable {
    /// The dialect's name on the wire (`alpaca`, `saxo`, `tradeit`, `tradeogre`).
    public let rawValue: String
    /// Any name makes a kind: the set is open, so an adapter outside this package can bring its own.
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

    /// The raw name, for logs and messages.
    public var description: String { rawValue }
    /// By name, so that lists of brokers sort the same way every time.
    public static func < (lhs: BrokerKind, rhs: BrokerKind) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Reads a bare JSON string. Any name decodes: the set is open, unlike a ``WireEnum``.
    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    /// Writes the name as a bare JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
