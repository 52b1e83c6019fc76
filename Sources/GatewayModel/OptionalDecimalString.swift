public import Foundation

/// ``DecimalString`` for an optional decimal: a missing key or `null` reads as `nil`, and `nil` is written as no key
/// at all (never `null`), as `encodeIfPresent` does for the model's other optional fields.
@propertyWrapper
public struct OptionalDecimalString: Codable, Sendable, Hashable {
    /// The decimal itself, or `nil` for an absent field.
    public var wrappedValue: Decimal?

    /// Wraps `wrappedValue`: what the compiler calls when a wrapped property is first set (in a memberwise or
    /// hand-written `init`).
    public init(wrappedValue: Decimal?) {
        self.wrappedValue = wrappedValue
    }

    /// `nil`, so that a wrapped property needs no initial value, like an optional one.
    public init() {
        wrappedValue = nil
    }

    /// The whole value is the decimal or `null` (outside a keyed container, which the overloads below serve).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decodeDecimal()
    }

    /// Writes the canonical text as a JSON string, or `null` for `nil` (in a keyed container the overload below writes
    /// no key instead).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(DecimalText.format(wrappedValue))
        } else {
            try container.encodeNil()
        }
    }
}

extension KeyedDecodingContainer {
    /// What synthesized `init(from:)` calls for an ``OptionalDecimalString`` property: a missing key is `nil`, not a
    /// `keyNotFound` (the wrapper itself is not optional, so the synthesized code asks for it with `decode`).
    public func decode(_: OptionalDecimalString.Type, forKey key: Key) throws -> OptionalDecimalString {
        OptionalDecimalString(wrappedValue: try decodeDecimalIfPresent(forKey: key))
    }
}

extension KeyedEncodingContainer {
    /// What synthesized `encode(to:)` calls for an ``OptionalDecimalString`` property: `nil` writes no key.
    public mutating func encode(_ value: OptionalDecimalString, forKey key: Key) throws {
        guard let decimal = value.wrappedValue else { return }
        try encode(DecimalText.format(decimal), forKey: key)
    }
}
