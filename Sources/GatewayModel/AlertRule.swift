public import Foundation

/// The rule of an alert, checked: a price rule or an order rule.
public enum AlertRule: Sendable, Hashable {
    case price(PriceRule)
    case order(OrderRule)

    /// Fire on an instrument's price: the price a quote stands for is its last trade, else the middle of bid and ask.
    public struct PriceRule: Sendable, Hashable {
        /// The instrument whose quotes are watched (its symbol upper-cased when checked).
        public var instrument: InstrumentReference
        /// Only quotes of this connection count; `nil`: quotes of any of the user's connections.
        public var connectionId: String?
        /// When the price fires the alert: at or above `threshold`, at or below it, or a move of `threshold` percent.
        public var condition: AlertCondition
        /// A price (`above`, `below`) or a percent (`percent_move`: 5 is 5 %).
        public var threshold: Decimal
        /// `percent_move` only: how far back the prices compared reach.
        public var windowSeconds: Int?

        /// A price rule, as ``AlertRuleInput/checked(field:)`` makes it from valid input.
        public init(
            instrument: InstrumentReference,
            connectionId: String? = nil,
            condition: AlertCondition,
            threshold: Decimal,
            windowSeconds: Int? = nil
        ) {
            self.instrument = instrument
            self.connectionId = connectionId
            self.condition = condition
            self.threshold = threshold
            self.windowSeconds = windowSeconds
        }
    }

    /// Fire on what happens to the user's orders.
    public struct OrderRule: Sendable, Hashable {
        /// Which outcome fires the alert: a fill, a rejection, or an outcome unknown for too long.
        public var on: AlertOrderEvent
        /// Only orders of this connection; `nil`: all the user's orders.
        public var connectionId: String?
        /// `unknown` only: how long an order may stay unknown before the alert fires.
        public var unknownForSeconds: Int?

        /// An order rule, as ``AlertRuleInput/checked(field:)`` makes it from valid input.
        public init(on: AlertOrderEvent, connectionId: String? = nil, unknownForSeconds: Int? = nil) {
            self.on = on
            self.connectionId = connectionId
            self.unknownForSeconds = unknownForSeconds
        }
    }

    /// Which kind of rule this is, as the wire's `type` names it.
    public var type: AlertRuleType {
        switch self {
        case .price: .price
        case .order: .order
        }
    }

    /// The one connection the rule watches; `nil` for all of the user's connections.
    public var connectionId: String? {
        switch self {
        case .price(let rule): rule.connectionId
        case .order(let rule): rule.connectionId
        }
    }
}
