public import Foundation

/// A decimal written as a JSON string in its canonical text ("123.45") and read from a string or a number by the
/// strict rules of ``DecimalText`` (never rounded), so that a model type's `Codable` can be synthesized instead of
/// written by hand: `@DecimalString public var quantity: Decimal`.
///
/// `JSONEncoder` writes a bare `Decimal` as a number and drops trailing zeros, and `JSONDecoder` reads a string into no
/// `Decimal` at all; the wrapper keeps the gateway's wire (money as strings) without a line of coding per field.
/// The container overloads below are what synthesized code calls for a wrapped property, so a decimal is read and
/// written straight through its keyed container, exactly as the hand-written bodies did (`decodeDecimal(forKey:)`,
/// `encodeDecimal(_:forKey:)`): the same text, the same errors with the same coding paths.
@propertyWrapper
public struct DecimalString: Codable, Sendable, Hashable {
    /// The decimal itself, as the model's code sees it.
    public var wrappedValue: Decimal

    /// Wraps `wrappedValue`: what the compiler calls when a wrapped property is first set (in a memberwise or
    /// hand-written `init`).
    public init(wrappedValue: Decimal) {
        self.wrappedValue = wrappedValue
    }

    /// The whole value is the decimal (outside a keyed container, which the overloads below serve).
    public init(from decoder: any Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decodeDecimal()
    }

    /// Writes the canonical text as a JSON string (`"123.45"`), never a number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(DecimalText.format(wrappedValue))
    }
}

extension KeyedDecodingContainer {
    /// What synthesized `init(from:)` calls for a ``DecimalString`` property: ``decodeDecimal(forKey:)``.
    public func decode(_: DecimalString.Type, forKey key: Key) throws -> DecimalString {
        DecimalString(wrappedValue: try decodeDecimal(forKey: key))
    }
}

extension KeyedEncodingContainer {
    /// What synthesized `encode(to:)` calls for a ``DecimalString`` property: ``encodeDecimal(_:forKey:)``.
    public mutating func encode(_ value: DecimalString, forKey key: Key) throws {
        try encode(DecimalText.format(value.wrappedValue), forKey: key)
    }
}
