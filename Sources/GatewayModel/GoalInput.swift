public import Foundation

/// A goal as a client creates (`POST`, every field but none may be left out) or changes it (`PUT`: what is given
/// replaces, what is absent is kept). Closed: an unknown field is refused.
public struct GoalInput: Codable, Sendable, Hashable {
    /// The goal's name: 1 to 100 characters once trimmed of surrounding spaces, unique among the user's goals.
    public var name: String?
    /// The value to reach: greater than 0, within ``targetBounds`` (never rounded).
    @OptionalDecimalString public var targetValue: Decimal?
    /// The goal's currency: a code of 2 to 10 letters or digits (`EUR`, `BTC`), stored upper-cased.
    public var currency: String?
    /// The holdings allocated (at most ``maximumAllocations``); given to a change, they replace all of them and are
    /// checked again against live positions.
    public var allocations: [Goal.Allocation]?

    /// An input as a client builds it; ``problems(creating:)`` says whether it is valid.
    public init(name: String? = nil, targetValue: Decimal? = nil, currency: String? = nil, allocations: [Goal.Allocation]? = nil) {
        self.name = name
        self.targetValue = targetValue
        self.currency = currency
        self.allocations = allocations
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, targetValue, currency, allocations }

    /// Hand-written to refuse unknown fields (``StrictKeys``); the encoding is synthesized.
    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        targetValue = try c.decodeDecimalIfPresent(forKey: .targetValue)
        currency = try c.decodeIfPresent(String.self, forKey: .currency)
        allocations = try c.decodeIfPresent([Goal.Allocation].self, forKey: .allocations)
    }

    /// The most allocations one goal may have.
    public static let maximumAllocations = 50
    /// Target values: up to 10^15, at most 18 decimal places (as notional amounts).
    public static let targetBounds = DecimalBounds.notional

    /// What is wrong with the input, field by field (a `PUT` needs at least one field).
    public func problems(creating: Bool) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        func required(_ field: String) { if creating { problems.append(FieldProblem(field: field, problem: "is required")) } }
        if let name {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed.count > 100 {
                problems.append(FieldProblem(field: "name", problem: "must be 1 to 100 characters (surrounding spaces aside)"))
            }
        } else {
            required("name")
        }
        if let targetValue {
            if targetValue <= 0 {
                problems.append(FieldProblem(field: "targetValue", problem: "must be greater than 0"))
            } else if let problem = Self.targetBounds.problem(targetValue) {
                problems.append(FieldProblem(field: "targetValue", problem: problem))
            }
        } else {
            required("targetValue")
        }
        if let currency {
            if !(2...10).contains(currency.count)
                || !currency.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) })
            {
                problems.append(FieldProblem(field: "currency", problem: "must be a currency code of 2 to 10 letters or digits (EUR, USD, BTC)"))
            }
        } else {
            required("currency")
        }
        if let allocations {
            if allocations.count > Self.maximumAllocations {
                problems.append(FieldProblem(field: "allocations", problem: "must have at most \(Self.maximumAllocations) entries"))
            }
            for (index, allocation) in allocations.enumerated() {
                problems += Self.problems(allocation, field: "allocations[\(index)]")
            }
        } else {
            required("allocations")
        }
        if !creating, name == nil, targetValue == nil, currency == nil, allocations == nil {
            problems.append(FieldProblem(field: "body", problem: "must change name, targetValue, currency or allocations"))
        }
        return problems
    }

    static func problems(_ allocation: Goal.Allocation, field: String) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if allocation.connectionId.isEmpty || allocation.connectionId.count > 128 {
            problems.append(FieldProblem(field: "\(field).connectionId", problem: "must be 1 to 128 characters"))
        }
        if allocation.symbol.isEmpty || allocation.symbol.count > 32 {
            problems.append(FieldProblem(field: "\(field).symbol", problem: "must be 1 to 32 characters"))
        }
        switch (allocation.quantity, allocation.percent) {
        case (nil, nil), (.some, .some):
            problems.append(FieldProblem(field: field, problem: "must give exactly one of quantity and percent"))
        case (let quantity?, nil):
            if quantity <= 0 {
                problems.append(FieldProblem(field: "\(field).quantity", problem: "must be greater than 0"))
            } else if let problem = DecimalBounds.quantity.problem(quantity) {
                problems.append(FieldProblem(field: "\(field).quantity", problem: problem))
            }
        case (nil, let percent?):
            if percent <= 0 || percent > 100 {
                problems.append(FieldProblem(field: "\(field).percent", problem: "must be greater than 0 and at most 100"))
            } else if let problem = DecimalBounds.quantity.problem(percent) {
                problems.append(FieldProblem(field: "\(field).percent", problem: problem))
            }
        }
        return problems
    }
}
