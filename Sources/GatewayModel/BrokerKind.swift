/// The wire dialect a connection speaks. Open for extension: a new adapter brings its own kind.
public struct BrokerKind: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible, Comparable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let alpaca = BrokerKind("alpaca")
    public static let saxo = BrokerKind("saxo")
    public static let tradeit = BrokerKind("tradeit")
    public static let tradeogre = BrokerKind("tradeogre")

    public var description: String { rawValue }
    public static func < (lhs: BrokerKind, rhs: BrokerKind) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
