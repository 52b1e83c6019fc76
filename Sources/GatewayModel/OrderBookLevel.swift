public import Foundation

/// One price level of an order book: the quantity resting at a price.
public struct OrderBookLevel: Codable, Sendable, Hashable {
    @DecimalString public var price: Decimal
    @DecimalString public var size: Decimal

    public init(price: Decimal, size: Decimal) {
        self.price = price
        self.size = size
    }
}
