public import Foundation

/// A change to a working order. Fields left `nil` keep their value.
public struct OrderModification: Codable, Sendable, Hashable {
    /// The new number of units: greater than 0, within ``DecimalBounds/quantity`` (never rounded).
    @OptionalDecimalString public var quantity: Decimal?
    /// The new limit price: greater than 0, within ``DecimalBounds/price`` (never rounded).
    @OptionalDecimalString public var limitPrice: Decimal?
    /// The new stop price: greater than 0, within ``DecimalBounds/price`` (never rounded).
    @OptionalDecimalString public var stopPrice: Decimal?
    /// The new time in force.
    public var timeInForce: TimeInForce?
    /// Saxo's seed flow turns a market order into a limit order and back.
    public var type: OrderType?

    /// A change; a field left `nil` keeps the order's value.
    public init(
        quantity: Decimal? = nil,
        limitPrice: Decimal? = nil,
        stopPrice: Decimal? = nil,
        timeInForce: TimeInForce? = nil,
        type: OrderType? = nil
    ) {
        self.quantity = quantity
        self.limitPrice = limitPrice
        self.stopPrice = stopPrice
        self.timeInForce = timeInForce
        self.type = type
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case quantity, limitPrice, stopPrice, timeInForce, type }

    /// Hand-written to refuse unknown fields (``StrictKeys``); the encoding is synthesized.
    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        quantity = try c.decodeDecimalIfPresent(forKey: .quantity)
        limitPrice = try c.decodeDecimalIfPresent(forKey: .limitPrice)
        stopPrice = try c.decodeDecimalIfPresent(forKey: .stopPrice)
        timeInForce = try c.decodeIfPresent(TimeInForce.self, forKey: .timeInForce)
        type = try c.decodeIfPresent(OrderType.self, forKey: .type)
    }

    /// Whether the change names no field at all: such a body is refused (`body` must change something).
    public var isEmpty: Bool {
        quantity == nil && limitPrice == nil && stopPrice == nil && timeInForce == nil && type == nil
    }

    /// What is wrong with the change, field by field: an empty change, a value not greater than 0 or beyond its
    /// ``DecimalBounds``. Whether the broker can make the change is the adapter's rule.
    public func problems() -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if isEmpty {
            problems.append(.init(field: "body", problem: "must change at least one of quantity, limitPrice, stopPrice, timeInForce, type"))
        }
        for (field, value, bounds) in [
            ("quantity", quantity, DecimalBounds.quantity), ("limitPrice", limitPrice, .price), ("stopPrice", stopPrice, .price),
        ] {
            guard let value else { continue }
            if value <= 0 {
                problems.append(.init(field: field, problem: "must be greater than 0"))
            } else if let problem = bounds.problem(value) {
                problems.append(.init(field: field, problem: problem))
            }
        }
        return problems
    }
}
