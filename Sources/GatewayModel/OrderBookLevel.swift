public import Foundation

/// One price level of an order book: the quantity resting at a price.
public struct OrderBookLevel: Codable, Sendable, Hashable {
    /// The price of the level, in the instrument's quote currency (the `QUOTE` of a `BASE/QUOTE` pair).
    @DecimalString public var price: Decimal
    /// The quantity resting at that price, in units of the instrument (the `BASE` of a pair).
    @DecimalString public var size: Decimal

    /// A level of `size` units at `price`.
    public init(price: Decimal, size: Decimal) {
        self.price = price
        self.size = size
    }
}
