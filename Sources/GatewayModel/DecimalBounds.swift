public import Foundation

/// The values one kind of client field may take: at most 10^`maximumExponent` in size, with at most `fractionDigits`
/// digits after the point. Beyond them a value is refused (422 naming the field and the bound), never rounded or clipped.
///
/// The bounds are far beyond any real order and keep every accepted value short: a quantity or price within them has
/// at most 34 significant digits and a canonical text of at most 35 characters, so it is exact in `Decimal`, in the
/// journal and at every broker's wire. What a broker sends is not bounded this way (only by what `Decimal` holds
/// exactly, ``DecimalText``): the gateway reports it as it is.
public struct DecimalBounds: Sendable, Hashable {
    /// The largest size allowed is 10 to this power (inclusive).
    public var maximumExponent: Int
    /// The most digits allowed after the decimal point.
    public var fractionDigits: Int

    /// Bounds of at most 10^`maximumExponent` in size and `fractionDigits` digits after the point.
    public init(maximumExponent: Int, fractionDigits: Int) {
        self.maximumExponent = maximumExponent
        self.fractionDigits = fractionDigits
    }

    /// The largest size allowed: 10^`maximumExponent`.
    public var maximum: Decimal { Decimal(sign: .plus, exponent: maximumExponent, significand: 1) }

    /// Order quantities (`quantity` of a placement, a preview and a change): up to 10^15 units (a thousand trillion:
    /// more than the whole supply of the most plentiful traded tokens), down to 10^-18 (the smallest unit of an
    /// 18-decimal token; shares and coins need far fewer).
    public static let quantity = DecimalBounds(maximumExponent: 15, fractionDigits: 18)

    /// Prices (`limitPrice`, `stopPrice`): up to 10^12 (a million times the dearest listed share, more than any price
    /// quoted in a currency of small units), down to 10^-18 (tokens quoted in bitcoin trade near 10^-10).
    public static let price = DecimalBounds(maximumExponent: 12, fractionDigits: 18)

    /// Notional amounts (`notional` of a placement or a preview: an order sized by money instead of units): up to
    /// 10^15, down to 10^-18.
    public static let notional = DecimalBounds(maximumExponent: 15, fractionDigits: 18)

    /// Why `value` is outside the bounds, as a field problem's text; `nil` when it is within them. Only the size is
    /// checked here: whether a value must be positive is the field's own rule.
    public func problem(_ value: Decimal) -> String? {
        if value.magnitude > maximum {
            return "must be at most \(DecimalText.format(maximum)) (10^\(maximumExponent))"
        }
        if DecimalText.fractionDigits(value) > fractionDigits {
            return "must have at most \(fractionDigits) digits after the decimal point (it is never rounded)"
        }
        return nil
    }
}
