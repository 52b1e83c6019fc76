/// Refusing unknown fields. In an API that moves money, a misspelled or unsupported field (`stopLoss`,
/// `limit_price`) must be refused, never silently dropped: the caller would believe it was applied.
public enum StrictKeys {
    /// The problem an unknown field is reported with.
    public static let unknownFieldProblem = "is not a field of this request (unknown fields are refused)"

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Throws a `DecodingError` at the first key (in sorted order) that `Keys` does not name.
    public static func reject<Keys: CodingKey & CaseIterable>(unknownKeysIn decoder: any Decoder, known _: Keys.Type) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(Keys.allCases.map(\.stringValue))
        if let unknown = container.allKeys.map(\.stringValue).filter({ !known.contains($0) }).sorted().first {
            throw DecodingError.dataCorruptedError(
                forKey: AnyKey(stringValue: unknown),
                in: container,
                debugDescription: unknownFieldProblem
            )
        }
    }
}
