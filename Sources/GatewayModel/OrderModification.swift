public import Foundation

/// A change to a working order. Fields left `nil` keep their value.
public struct OrderModification: Codable, Sendable, Hashable {
    @OptionalDecimalString public var quantity: Decimal?
    @OptionalDecimalString public var limitPrice: Decimal?
    @OptionalDecimalString public var stopPrice: Decimal?
    public var timeInForce: TimeInForce?
    /// Saxo's seed flow turns a market order into a limit order and back.
    public var type: OrderType?

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

    public var isEmpty: Bool {
        quantity == nil && limitPrice == nil && stopPrice == nil && timeInForce == nil && type == nil
    }

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
