public import Foundation

/// Foundation's `Decimal` arithmetic, answered by ``FixedDecimal`` where it can promise Foundation's exact result and
/// by Foundation itself elsewhere (``fast``), or by Foundation alone (``foundation``, the oracle tests hold the fast
/// one to). Each operation returns what the Foundation expression in its comment returns, the same digits in the same
/// stored form, so what a simulator renders from it is unchanged on the wire; ``fast`` is only cheaper, by some 10 µs
/// an operation on Linux.
public struct DecimalMath: Sendable {
    /// ``FixedDecimal`` first, Foundation where it answers `nil`.
    public static let fast = DecimalMath(usesFixed: true)
    /// Foundation's operators and `NSDecimalRound` alone.
    public static let foundation = DecimalMath(usesFixed: false)

    private let usesFixed: Bool

    private init(usesFixed: Bool) {
        self.usesFixed = usesFixed
    }

    /// `a + b`.
    public func sum(_ a: Decimal, _ b: Decimal) -> Decimal {
        if usesFixed, let x = FixedDecimal(a), let y = FixedDecimal(b), let result = FixedDecimal.sum(x, y) { return result.decimal }
        return a + b
    }

    /// `a - b`.
    public func difference(_ a: Decimal, _ b: Decimal) -> Decimal {
        if usesFixed, let x = FixedDecimal(a), let y = FixedDecimal(b), let result = FixedDecimal.difference(x, y) {
            return result.decimal
        }
        return a - b
    }

    /// `a * b`.
    public func product(_ a: Decimal, _ b: Decimal) -> Decimal {
        if usesFixed, let x = FixedDecimal(a), let y = FixedDecimal(b), let result = FixedDecimal.product(x, y) { return result.decimal }
        return a * b
    }

    /// `a / b` (fast only for a divisor of ±10ⁿ, where the quotient is exact).
    public func quotient(_ a: Decimal, _ b: Decimal) -> Decimal {
        if usesFixed, let x = FixedDecimal(a), let y = FixedDecimal(b), let result = FixedDecimal.exactQuotient(x, y) {
            return result.decimal
        }
        return a / b
    }

    /// `NSDecimalRound(a / b, scale, mode)`: a ratio rounded for the wire.
    public func quotient(_ a: Decimal, _ b: Decimal, scale: Int, _ mode: Decimal.RoundingMode = .plain) -> Decimal {
        if usesFixed, let x = FixedDecimal(a), let y = FixedDecimal(b), let result = FixedDecimal.quotient(x, y, scale: scale, mode) {
            return result.decimal
        }
        return DecimalText.foundationRound(a / b, scale: scale, mode)
    }

    /// `NSDecimalRound(value, scale, mode)`.
    public func round(_ value: Decimal, scale: Int, _ mode: Decimal.RoundingMode = .plain) -> Decimal {
        if usesFixed, let fixed = FixedDecimal(value), let rounded = fixed.rounded(scale: scale, mode) { return rounded.decimal }
        return DecimalText.foundationRound(value, scale: scale, mode)
    }
}
