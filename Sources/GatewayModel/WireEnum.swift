/// A closed set of wire strings. Decoding an unknown value fails with a message that lists the allowed ones,
/// which the API turns into a field-level error.
public protocol WireEnum: RawRepresentable, CaseIterable, Codable, Sendable, Hashable where RawValue == String {}

extension WireEnum {
    /// Every wire value, comma-separated: what a decoding error lists.
    public static var allowedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Reads the wire string; a value outside the set fails with a message listing ``allowedValues``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let value = Self(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "must be one of: \(Self.allowedValues)"
            )
        }
        self = value
    }

    /// Writes the raw wire string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
