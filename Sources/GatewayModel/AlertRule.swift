public import Foundation

/// The rule of an alert, checked: a price rule or an order rule.
public enum AlertRule: Sendable, Hashable {
    case price(PriceRule)
    case order(OrderRule)

    public struct PriceRule: Sendable, Hashable {
        public var instrument: InstrumentReference
        /// Only quotes of this connection count; `nil`: quotes of any of the user's connections.
        public var connectionId: String?
        public var condition: AlertCondition
        /// A price (`above`, `below`) or a percent (`percent_move`: 5 is 5 %).
        public var threshold: Decimal
        /// `percent_move` only: how far back the prices compared reach.
        public var windowSeconds: Int?

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

    public struct OrderRule: Sendable, Hashable {
        public var on: AlertOrderEvent
        /// Only orders of this connection; `nil`: all the user's orders.
        public var connectionId: String?
        /// `unknown` only: how long an order may stay unknown before the alert fires.
        public var unknownForSeconds: Int?

        public init(on: AlertOrderEvent, connectionId: String? = nil, unknownForSeconds: Int? = nil) {
            self.on = on
            self.connectionId = connectionId
            self.unknownForSeconds = unknownForSeconds
        }
    }

    public var type: AlertRuleType {
        switch self {
        case .price: .price
        case .order: .order
        }
    }

    public var connectionId: String? {
        switch self {
        case .price(let rule): rule.connectionId
        case .order(let rule): rule.connectionId
        }
    }
}
