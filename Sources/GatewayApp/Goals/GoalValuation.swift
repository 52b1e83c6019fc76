public import Foundation
public import GatewayModel

/// Goals valued from positions and quotes: pure, so that progress and the over-allocation check can be worked by hand.
///
/// - A holding is what one connection holds of one symbol (every account of it, every position the allocation
///   names, `Goal.Allocation.names`). Only a long holding can be allocated.
/// - An allocation stands for its `quantity`, or `percent` of the quantity held; it is valued at its share of the
///   holding's market value (`marketValue × allocated / held`), converted into the goal's currency by
///   `PortfolioValuation` (the portfolio's rates and rounding).
/// - Across all of a user's goals, what is allocated of one holding never exceeds what is held.
public enum GoalValuation {
    /// What one connection holds of what an allocation names.
    public struct Held: Sendable, Hashable {
        /// How much of the instrument the connection holds over all its accounts.
        public var quantity: Decimal
        /// The positions that quantity is made of.
        public var positions: [Position]
    }

    /// The positions the allocation names, `nil` when there are none.
    public static func held(_ allocation: Goal.Allocation, in positions: [Position]) -> Held? {
        let matching = positions.filter { allocation.names($0) }
        if matching.isEmpty { return nil }
        return Held(quantity: matching.reduce(0) { $0 + $1.quantity }, positions: matching)
    }

    /// The quantity an allocation stands for when `held` is held.
    public static func allocatedQuantity(_ allocation: Goal.Allocation, held: Decimal) -> Decimal {
        if let quantity = allocation.quantity { return quantity }
        return PortfolioValuation.rounded((allocation.percent ?? 0) * held / 100, scale: 18)
    }

    struct HoldingKey: Hashable {
        var connectionId: String
        var symbol: String
        init(_ allocation: Goal.Allocation) {
            connectionId = allocation.connectionId
            symbol = allocation.symbol.uppercased()
        }
    }

    /// A problem for each allocation of `allocations` (field `allocations[i]`) whose holding is not held, or that
    /// takes what is allocated of its holding, with the user's `others` goals, beyond what is held.
    public static func overAllocation(_ allocations: [Goal.Allocation], others: [Goal], positions: [Position]) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        var reported: Set<HoldingKey> = []
        var allocatedHere: [HoldingKey: Decimal] = [:]
        for (index, allocation) in allocations.enumerated() {
            let key = HoldingKey(allocation)
            let field = "allocations[\(index)]"
            guard let held = held(allocation, in: positions), held.quantity > 0 else {
                problems.append(
                    FieldProblem(
                        field: field,
                        problem: "\(allocation.symbol) is not held (long) at \(allocation.connectionId): nothing to allocate"
                    )
                )
                reported.insert(key)
                continue
            }
            allocatedHere[key, default: 0] += allocatedQuantity(allocation, held: held.quantity)
            var byOthers: Decimal = 0
            var parts: [String] = []
            for goal in others {
                let quantity = goal.allocations.filter { HoldingKey($0) == key }
                    .reduce(Decimal(0)) { $0 + allocatedQuantity($1, held: held.quantity) }
                if quantity > 0 {
                    byOthers += quantity
                    parts.append("\(DecimalText.format(quantity)) by goal '\(goal.name)'")
                }
            }
            let total = byOthers + (allocatedHere[key] ?? 0)
            if total > held.quantity, !reported.contains(key) {
                reported.insert(key)
                var problem =
                    "\(allocation.symbol) at \(allocation.connectionId): \(DecimalText.format(total)) allocated of "
                    + "\(DecimalText.format(held.quantity)) held"
                if !parts.isEmpty { problem += " (\(parts.joined(separator: ", ")))" }
                problems.append(FieldProblem(field: field, problem: problem))
            }
        }
        return problems
    }

    /// A goal's progress. `unavailable` names the connections that could not be read (and why); `valuation`
    /// converts into the goal's currency.
    public static func progress(
        _ goal: Goal,
        positions: [Position],
        unavailable: [String: Goal.Problem],
        valuation: PortfolioValuation
    ) -> Goal.Progress {
        var values: [Goal.AllocationValue] = []
        var current: Decimal = 0
        for allocation in goal.allocations {
            var line = Goal.AllocationValue(connectionId: allocation.connectionId, symbol: allocation.symbol, quantity: allocation.quantity)
            defer { values.append(line) }
            if let problem = unavailable[allocation.connectionId] {
                line.problem = problem
                continue
            }
            guard let held = held(allocation, in: positions), held.quantity > 0 else {
                line.heldQuantity = 0
                line.shortfall = allocation.quantity
                line.problem = .notHeld
                continue
            }
            line.heldQuantity = held.quantity
            let allocated = allocatedQuantity(allocation, held: held.quantity)
            line.quantity = allocated
            let counted = min(allocated, held.quantity)
            if allocated > held.quantity { line.shortfall = allocated - held.quantity }
            var marketValue: Decimal = 0
            var converted: Decimal = 0
            for position in held.positions {
                guard let positionValue = position.marketValue else {
                    line.problem = .noValue
                    break
                }
                guard let (value, rate) = valuation.convert(positionValue, from: position.currency) else {
                    line.problem = .noRate
                    line.positionCurrency = position.currency
                    break
                }
                // Values near `Decimal`'s limit would sum to NaN: such a line has no value (as in the portfolio).
                guard !(marketValue + positionValue).isNaN, !(converted + value).isNaN else {
                    line.problem = .noValue
                    break
                }
                marketValue += positionValue
                converted += value
                line.positionCurrency = line.positionCurrency ?? position.currency
                line.rate = line.rate ?? rate
            }
            if line.problem != nil {
                line.rate = nil
                continue
            }
            line.marketValue = marketValue
            let value = counted == held.quantity ? converted : PortfolioValuation.rounded(converted * counted / held.quantity)
            guard !value.isNaN, !(current + value).isNaN else {
                line.problem = .noValue
                line.rate = nil
                continue
            }
            line.value = value
            current += value
        }
        return Goal.Progress(
            currentValue: current,
            progress: PortfolioValuation.rounded(current / goal.targetValue, scale: 6),
            remaining: max(0, goal.targetValue - current),
            complete: values.allSatisfy { $0.problem == nil },
            allocations: values
        )
    }

    /// Every goal (with its progress) together in `valuation`'s currency.
    public static func overall(_ goals: [Goal], valuation: PortfolioValuation) -> Goal.Overall {
        var target: Decimal = 0
        var current: Decimal = 0
        var rates: [String: Portfolio.FXRate] = [:]
        var unconverted: [String] = []
        for goal in goals {
            guard let progress = goal.progress,
                let (goalTarget, rate) = valuation.convert(goal.targetValue, from: goal.currency),
                let (goalCurrent, _) = valuation.convert(progress.currentValue, from: goal.currency)
            else {
                unconverted.append(goal.id)
                continue
            }
            target += goalTarget
            current += goalCurrent
            if rate.from != valuation.currency { rates[rate.from] = rate }
        }
        return Goal.Overall(
            currency: valuation.currency,
            targetValue: target,
            currentValue: current,
            progress: target == 0 ? nil : PortfolioValuation.rounded(current / target, scale: 6),
            remaining: max(0, target - current),
            fxRates: rates.values.sorted { $0.from < $1.from },
            unconverted: unconverted
        )
    }
}
