public import Foundation

/// A user's savings goal (seed 002, the Raven app): a target value in a currency and holdings allocated to it, each
/// an instrument at one of the user's connections, by quantity or by percent of what is held there.
///
/// `progress` is never stored: a read computes it from live positions (see `Goal.Progress`).
public struct Goal: Codable, Sendable, Hashable {
    /// The gateway's id for the goal.
    public var id: String
    /// The goal's name, unique among the user's goals (trimmed of surrounding spaces).
    public var name: String
    /// The value to reach, in `currency`: greater than 0.
    @DecimalString public var targetValue: Decimal
    /// The currency of the target and of the progress (upper case: `EUR`, `USD`, `BTC`).
    public var currency: String
    /// The holdings allocated to the goal, in the order the user gave them.
    public var allocations: [Allocation]
    /// When the goal was created.
    public var createdAt: Date?
    /// When the goal was last changed.
    public var updatedAt: Date?
    /// What the allocations are worth now, in `currency`; absent where the goal is only stored.
    public var progress: Progress?

    /// A goal; `progress` is added by a read, never stored.
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

    /// A holding allocated to a goal: the instrument `symbol` (of `assetClass`, when given) held at `connectionId`,
    /// by `quantity` (units) or by `percent` of what is held there: exactly one of the two.
    public struct Allocation: Codable, Sendable, Hashable {
        /// The user's connection (`conn_…`) that holds the instrument.
        public var connectionId: String
        /// The instrument's canonical symbol, compared case-insensitively (stored upper-cased).
        public var symbol: String
        /// Narrows the match to this asset class, when the symbol alone is ambiguous.
        public var assetClass: AssetClass?
        /// Units allocated: greater than 0, within ``DecimalBounds/quantity``; or `nil` when allocated by `percent`.
        @OptionalDecimalString public var quantity: Decimal?
        /// The percent of what the connection holds (greater than 0, at most 100; 25 is a quarter); or `nil` when
        /// allocated by `quantity`.
        @OptionalDecimalString public var percent: Decimal?

        /// An allocation; exactly one of `quantity` and `percent` (``GoalInput/problems(creating:)`` checks it).
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
        /// What the valued allocations are worth now, in the goal's currency.
        @DecimalString public var currentValue: Decimal
        /// `currentValue / targetValue`, rounded to 6 places: 0.5 is halfway, above 1 once the target is passed.
        @DecimalString public var progress: Decimal
        /// What is still missing to the target, in the goal's currency: never negative.
        @DecimalString public var remaining: Decimal
        /// Whether every allocation could be valued; `false` when one says why not (`problem`).
        public var complete: Bool
        /// One per allocation of the goal, in the same order.
        public var allocations: [AllocationValue]

        /// A goal's progress, as ``Goal/Progress`` describes its parts.
        public init(currentValue: Decimal, progress: Decimal, remaining: Decimal, complete: Bool, allocations: [AllocationValue]) {
            self.currentValue = currentValue
            self.progress = progress
            self.remaining = remaining
            self.complete = complete
            self.allocations = allocations
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
        /// The connection of the allocation.
        public var connectionId: String
        /// The symbol of the allocation, as the goal names it.
        public var symbol: String
        /// What the connection holds of the instrument now (every account of it together); 0 when nothing is held,
        /// `nil` when it could not be read.
        @OptionalDecimalString public var heldQuantity: Decimal?
        /// The units the allocation stands for: its `quantity`, or its `percent` of `heldQuantity`; `nil` when a percent
        /// cannot be worked out (nothing read).
        @OptionalDecimalString public var quantity: Decimal?
        /// How much of the allocated quantity is no longer held; `nil` when nothing is missing or it is not known.
        @OptionalDecimalString public var shortfall: Decimal?
        /// In the position's currency.
        @OptionalDecimalString public var marketValue: Decimal?
        /// The position's currency: that of `marketValue`.
        public var positionCurrency: String?
        /// In the goal's currency.
        @OptionalDecimalString public var value: Decimal?
        /// The rate `value` was converted at, from the position's currency into the goal's; `nil` when there is no
        /// value.
        public var rate: Portfolio.FXRate?
        /// Why the allocation has no value now; `nil` when it has one.
        public var problem: Problem?

        /// An allocation's line; what could not be worked out stays `nil`.
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
    }

    /// Every goal together, in one currency: targets and current values converted and summed. A goal whose target
    /// or value cannot be converted is in neither sum and is named in `unconverted` (by id).
    public struct Overall: Codable, Sendable, Hashable {
        /// The currency every amount here is in.
        public var currency: String
        /// The sum of the converted targets.
        @DecimalString public var targetValue: Decimal
        /// The sum of the converted current values.
        @DecimalString public var currentValue: Decimal
        /// `currentValue / targetValue`, rounded to 6 places; `nil` when there is no target (no goal converted).
        @OptionalDecimalString public var progress: Decimal?
        /// What is still missing to the summed target: never negative.
        @DecimalString public var remaining: Decimal
        /// The rate used for each goal currency converted (none for the overall currency itself).
        public var fxRates: [Portfolio.FXRate]
        /// The ids of the goals left out of both sums: no rate converts them, or they have no progress.
        public var unconverted: [String]

        /// The overall figures, as ``Goal/Overall`` describes them.
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
    }
}
