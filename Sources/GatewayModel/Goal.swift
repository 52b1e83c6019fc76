public import Foundation

/// A user's savings goal (seed 002, the Raven app): a target value in a currency and holdings allocated to it, each
/// an instrument at one of the user's connections, by quantity or by percent of what is held there.
///
/// `progress` is never stored: a read computes it from live positions (see `Goal.Progress`).
public struct Goal: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var targetValue: Decimal
    public var currency: String
    public var allocations: [Allocation]
    public var createdAt: Date?
    public var updatedAt: Date?
    /// What the allocations are worth now, in `currency`; absent where the goal is only stored.
    public var progress: Progress?

    public init(
        id: String,
        name: String,
        targetValue: Decimal,
        currency: String,
        allocations: [Allocation],
        createdAt: Date? = nil,
        updatedAt: Date? = nil,
        progress: Progress? = nil
    ) {
        self.id = id
        self.name = name
        self.targetValue = targetValue
        self.currency = currency
        self.allocations = allocations
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.progress = progress
    }

    enum CodingKeys: String, CodingKey { case id, name, targetValue, currency, allocations, createdAt, updatedAt, progress }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        targetValue = try c.decodeDecimal(forKey: .targetValue)
        currency = try c.decode(String.self, forKey: .currency)
        allocations = try c.decode([Allocation].self, forKey: .allocations)
        createdAt = try c.decodeIfPresent(Date.self, forKey: .createdAt)
        updatedAt = try c.decodeIfPresent(Date.self, forKey: .updatedAt)
        progress = try c.decodeIfPresent(Progress.self, forKey: .progress)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encodeDecimal(targetValue, forKey: .targetValue)
        try c.encode(currency, forKey: .currency)
        try c.encode(allocations, forKey: .allocations)
        try c.encodeIfPresent(createdAt, forKey: .createdAt)
        try c.encodeIfPresent(updatedAt, forKey: .updatedAt)
        try c.encodeIfPresent(progress, forKey: .progress)
    }

    /// A holding allocated to a goal: the instrument `symbol` (of `assetClass`, when given) held at `connectionId`,
    /// by `quantity` (units) or by `percent` of what is held there: exactly one of the two.
    public struct Allocation: Codable, Sendable, Hashable {
        public var connectionId: String
        public var symbol: String
        public var assetClass: AssetClass?
        public var quantity: Decimal?
        public var percent: Decimal?

        public init(connectionId: String, symbol: String, assetClass: AssetClass? = nil, quantity: Decimal? = nil, percent: Decimal? = nil) {
            self.connectionId = connectionId
            self.symbol = symbol
            self.assetClass = assetClass
            self.quantity = quantity
            self.percent = percent
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case connectionId, symbol, assetClass, quantity, percent }

        /// Closed, as every request body: an unknown field is refused, never dropped.
        public init(from decoder: any Decoder) throws {
            try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            connectionId = try c.decode(String.self, forKey: .connectionId)
            symbol = try c.decode(String.self, forKey: .symbol)
            assetClass = try c.decodeIfPresent(AssetClass.self, forKey: .assetClass)
            quantity = try c.decodeDecimalIfPresent(forKey: .quantity)
            percent = try c.decodeDecimalIfPresent(forKey: .percent)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(connectionId, forKey: .connectionId)
            try c.encode(symbol, forKey: .symbol)
            try c.encodeIfPresent(assetClass, forKey: .assetClass)
            try c.encodeDecimalIfPresent(quantity, forKey: .quantity)
            try c.encodeDecimalIfPresent(percent, forKey: .percent)
        }

        /// Whether a position is the holding this allocation names: same connection, same symbol (case aside), and
        /// the same asset class when the allocation gives one.
        public func names(_ position: Position) -> Bool {
            position.connectionId == connectionId && position.instrument.symbol.uppercased() == symbol.uppercased()
                && (assetClass == nil || position.instrument.assetClass == assetClass)
        }
    }

    /// A goal's worth now, in the goal's currency: `currentValue` is the sum of the allocations valued (rounded to
    /// `Portfolio.scale` places each), `progress` is `currentValue / targetValue` rounded to 6 places (above 1 once
    /// the target is passed), `remaining` is what is still missing (never negative). An allocation that could not be
    /// valued is in no sum and says why (`problem`); then `complete` is false.
    public struct Progress: Codable, Sendable, Hashable {
        public var currentValue: Decimal
        public var progress: Decimal
        public var remaining: Decimal
        public var complete: Bool
        /// One per allocation of the goal, in the same order.
        public var allocations: [AllocationValue]

        public init(currentValue: Decimal, progress: Decimal, remaining: Decimal, complete: Bool, allocations: [AllocationValue]) {
            self.currentValue = currentValue
            self.progress = progress
            self.remaining = remaining
            self.complete = complete
            self.allocations = allocations
        }

        enum CodingKeys: String, CodingKey { case currentValue, progress, remaining, complete, allocations }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            currentValue = try c.decodeDecimal(forKey: .currentValue)
            progress = try c.decodeDecimal(forKey: .progress)
            remaining = try c.decodeDecimal(forKey: .remaining)
            complete = try c.decode(Bool.self, forKey: .complete)
            allocations = try c.decode([AllocationValue].self, forKey: .allocations)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeDecimal(currentValue, forKey: .currentValue)
            try c.encodeDecimal(progress, forKey: .progress)
            try c.encodeDecimal(remaining, forKey: .remaining)
            try c.encode(complete, forKey: .complete)
            try c.encode(allocations, forKey: .allocations)
        }
    }

    /// Why an allocation has no value now.
    public enum Problem: String, WireEnum {
        /// The connection's broker did not answer (its line in `sources` says why).
        case sourceFailed = "source_failed"
        /// The connection is gone or not active.
        case connectionUnavailable = "connection_unavailable"
        /// The connection holds none of the instrument any more (or only short).
        case notHeld = "not_held"
        /// The broker gave the position no market value.
        case noValue = "no_value"
        /// No broker quotes the position's currency against the goal's (directly or through USD).
        case noRate = "no_rate"
    }

    /// One allocation now: the quantity it stands for (`percent` of what is held, or its `quantity`, at most what is
    /// held), its value in the goal's currency and the rate used. `shortfall` is how much of the allocated quantity
    /// is no longer held (the position shrank since); the value counts only what is held.
    public struct AllocationValue: Codable, Sendable, Hashable {
        public var connectionId: String
        public var symbol: String
        public var heldQuantity: Decimal?
        public var quantity: Decimal?
        public var shortfall: Decimal?
        /// In the position's currency.
        public var marketValue: Decimal?
        public var positionCurrency: String?
        /// In the goal's currency.
        public var value: Decimal?
        public var rate: Portfolio.FXRate?
        public var problem: Problem?

        public init(
            connectionId: String,
            symbol: String,
            heldQuantity: Decimal? = nil,
            quantity: Decimal? = nil,
            shortfall: Decimal? = nil,
            marketValue: Decimal? = nil,
            positionCurrency: String? = nil,
            value: Decimal? = nil,
            rate: Portfolio.FXRate? = nil,
            problem: Problem? = nil
        ) {
            self.connectionId = connectionId
            self.symbol = symbol
            self.heldQuantity = heldQuantity
            self.quantity = quantity
            self.shortfall = shortfall
            self.marketValue = marketValue
            self.positionCurrency = positionCurrency
            self.value = value
            self.rate = rate
            self.problem = problem
        }

        enum CodingKeys: String, CodingKey {
            case connectionId, symbol, heldQuantity, quantity, shortfall, marketValue, positionCurrency, value, rate, problem
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            connectionId = try c.decode(String.self, forKey: .connectionId)
            symbol = try c.decode(String.self, forKey: .symbol)
            heldQuantity = try c.decodeDecimalIfPresent(forKey: .heldQuantity)
            quantity = try c.decodeDecimalIfPresent(forKey: .quantity)
            shortfall = try c.decodeDecimalIfPresent(forKey: .shortfall)
            marketValue = try c.decodeDecimalIfPresent(forKey: .marketValue)
            positionCurrency = try c.decodeIfPresent(String.self, forKey: .positionCurrency)
            value = try c.decodeDecimalIfPresent(forKey: .value)
            rate = try c.decodeIfPresent(Portfolio.FXRate.self, forKey: .rate)
            problem = try c.decodeIfPresent(Problem.self, forKey: .problem)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(connectionId, forKey: .connectionId)
            try c.encode(symbol, forKey: .symbol)
            try c.encodeDecimalIfPresent(heldQuantity, forKey: .heldQuantity)
            try c.encodeDecimalIfPresent(quantity, forKey: .quantity)
            try c.encodeDecimalIfPresent(shortfall, forKey: .shortfall)
            try c.encodeDecimalIfPresent(marketValue, forKey: .marketValue)
            try c.encodeIfPresent(positionCurrency, forKey: .positionCurrency)
            try c.encodeDecimalIfPresent(value, forKey: .value)
            try c.encodeIfPresent(rate, forKey: .rate)
            try c.encodeIfPresent(problem, forKey: .problem)
        }
    }

    /// Every goal together, in one currency: targets and current values converted and summed. A goal whose target
    /// or value cannot be converted is in neither sum and is named in `unconverted` (by id).
    public struct Overall: Codable, Sendable, Hashable {
        public var currency: String
        public var targetValue: Decimal
        public var currentValue: Decimal
        public var progress: Decimal?
        public var remaining: Decimal
        public var fxRates: [Portfolio.FXRate]
        public var unconverted: [String]

        public init(
            currency: String,
            targetValue: Decimal,
            currentValue: Decimal,
            progress: Decimal?,
            remaining: Decimal,
            fxRates: [Portfolio.FXRate],
            unconverted: [String]
        ) {
            self.currency = currency
            self.targetValue = targetValue
            self.currentValue = currentValue
            self.progress = progress
            self.remaining = remaining
            self.fxRates = fxRates
            self.unconverted = unconverted
        }

        enum CodingKeys: String, CodingKey { case currency, targetValue, currentValue, progress, remaining, fxRates, unconverted }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            currency = try c.decode(String.self, forKey: .currency)
            targetValue = try c.decodeDecimal(forKey: .targetValue)
            currentValue = try c.decodeDecimal(forKey: .currentValue)
            progress = try c.decodeDecimalIfPresent(forKey: .progress)
            remaining = try c.decodeDecimal(forKey: .remaining)
            fxRates = try c.decode([Portfolio.FXRate].self, forKey: .fxRates)
            unconverted = try c.decode([String].self, forKey: .unconverted)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(currency, forKey: .currency)
            try c.encodeDecimal(targetValue, forKey: .targetValue)
            try c.encodeDecimal(currentValue, forKey: .currentValue)
            try c.encodeDecimalIfPresent(progress, forKey: .progress)
            try c.encodeDecimal(remaining, forKey: .remaining)
            try c.encode(fxRates, forKey: .fxRates)
            try c.encode(unconverted, forKey: .unconverted)
        }
    }
}

/// A goal as a client creates (`POST`, every field but none may be left out) or changes it (`PUT`: what is given
/// replaces, what is absent is kept). Closed: an unknown field is refused.
public struct GoalInput: Codable, Sendable, Hashable {
    public var name: String?
    public var targetValue: Decimal?
    public var currency: String?
    public var allocations: [Goal.Allocation]?

    public init(name: String? = nil, targetValue: Decimal? = nil, currency: String? = nil, allocations: [Goal.Allocation]? = nil) {
        self.name = name
        self.targetValue = targetValue
        self.currency = currency
        self.allocations = allocations
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, targetValue, currency, allocations }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        targetValue = try c.decodeDecimalIfPresent(forKey: .targetValue)
        currency = try c.decodeIfPresent(String.self, forKey: .currency)
        allocations = try c.decodeIfPresent([Goal.Allocation].self, forKey: .allocations)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeDecimalIfPresent(targetValue, forKey: .targetValue)
        try c.encodeIfPresent(currency, forKey: .currency)
        try c.encodeIfPresent(allocations, forKey: .allocations)
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
