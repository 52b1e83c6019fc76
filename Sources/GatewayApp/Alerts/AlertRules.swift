public import Foundation
import GatewayCore
public import GatewayModel

/// The rules of alerts, pure: what a quote or an order update means for one alert, given what was seen before.
/// `AlertEngine` keeps the state and does the I/O; everything here is tested by hand.
public enum AlertRules {
    /// The price a quote stands for: its last trade, else the middle of bid and ask; `nil` when it has neither.
    public static func price(of quote: Quote) -> Decimal? {
        if let last = quote.last, last > 0 { return last }
        if let bid = quote.bid, let ask = quote.ask, bid > 0, ask > 0 { return (bid + ask) / 2 }
        return nil
    }

    /// Whether a quote is one a price rule watches: the symbol (case aside), the asset class when the rule names one,
    /// the connection when the rule names one.
    public static func watches(_ rule: AlertRule.PriceRule, _ quote: Quote) -> Bool {
        guard quote.instrument.symbol.uppercased() == rule.instrument.symbol.uppercased() else { return false }
        if let assetClass = rule.instrument.assetClass, quote.instrument.assetClass != assetClass { return false }
        if let connectionId = rule.connectionId, quote.connectionId != connectionId { return false }
        return true
    }

    /// What one price alert remembers between quotes: whether it is armed and, for `percent_move`, the prices
    /// seen within its window (oldest first).
    public struct PriceState: Sendable, Hashable {
        /// Whether the alert may fire: a fired alert is disarmed until its condition stops holding (or for good,
        /// as its rearm policy says).
        public var armed: Bool
        /// The prices seen within a `percent_move` window, oldest first; empty for other rules.
        public var window: [Sample]

        /// One price seen, and when: what a `percent_move` window is made of.
        public struct Sample: Sendable, Hashable {
            /// When the quote carrying the price was seen.
            public var at: Date
            /// The price the rule compared.
            public var price: Decimal
        }

        /// A price alert's state: whether it is armed, and the prices its window holds.
        public init(armed: Bool, window: [Sample] = []) {
            self.armed = armed
            self.window = window
        }

        /// The most prices a window keeps; past it the oldest go first.
        static let maximumSamples = 4096
    }

    /// What one quote means for a price alert.
    public enum Verdict: Sendable, Hashable {
        /// The condition holds and the alert was armed: it fires (and is disarmed), saying why.
        case fire(String)
        /// The condition no longer holds and the alert was disarmed: it is armed again.
        case rearm
        /// Nothing changes.
        case none
    }

    /// Judges one price for a price rule and moves its state: an armed alert whose condition holds fires and is
    /// disarmed; a disarmed alert whose condition no longer holds is re-armed (the price crossed back).
    public static func evaluate(_ rule: AlertRule.PriceRule, price: Decimal, at: Date, state: inout PriceState) -> Verdict {
        let symbol = rule.instrument.symbol
        let holds: Bool
        var reason = ""
        switch rule.condition {
        case .above:
            holds = price >= rule.threshold
            reason = "\(symbol) at \(DecimalText.format(price)) is at or above \(DecimalText.format(rule.threshold))"
        case .below:
            holds = price <= rule.threshold
            reason = "\(symbol) at \(DecimalText.format(price)) is at or below \(DecimalText.format(rule.threshold))"
        case .percentMove:
            let window = TimeInterval(rule.windowSeconds ?? 60)
            state.window.removeAll { at.timeIntervalSince($0.at) > window || $0.at > at }
            var moved: (percent: Decimal, from: Decimal)?
            if let low = state.window.map(\.price).min(), low > 0, price > low {
                let percent = (price - low) / low * 100
                if percent >= rule.threshold { moved = (percent, low) }
            }
            if moved == nil, let high = state.window.map(\.price).max(), high > 0, price < high {
                let percent = (high - price) / high * 100
                if percent >= rule.threshold { moved = (-percent, high) }
            }
            state.window.append(PriceState.Sample(at: at, price: price))
            if state.window.count > PriceState.maximumSamples { state.window.removeFirst(state.window.count - PriceState.maximumSamples) }
            holds = moved != nil
            if let moved {
                var rounded = Decimal()
                var percent = moved.percent
                NSDecimalRound(&rounded, &percent, 2, .plain)
                reason =
                    "\(symbol) moved \(DecimalText.format(rounded)) % (from \(DecimalText.format(moved.from)) to \(DecimalText.format(price))) within \(Int(window)) s"
            }
        }
        if holds, state.armed {
            state.armed = false
            return .fire(reason)
        }
        if !holds, !state.armed {
            state.armed = true
            return .rearm
        }
        return .none
    }

    /// Whether an order update fires an order rule at once (`filled`, `rejected`); `unknown` is the timers' to judge.
    public static func fires(_ rule: AlertRule.OrderRule, _ update: OrderUpdate) -> Bool {
        if let connectionId = rule.connectionId, update.connectionId != connectionId { return false }
        switch rule.on {
        // An order the broker filled (or rejected) as it accepted it is `placed` with that status: it fires too.
        case .filled:
            return update.kind == .filled || ([.reconciled, .placed].contains(update.kind) && update.status == .filled)
        case .rejected:
            return update.kind == .rejected || ([.reconciled, .placed].contains(update.kind) && update.status == .rejected)
        case .unknown: return false
        }
    }

    /// The orders of one user whose outcome is unknown: since when, and the update that said so. An update of kind
    /// `unknown` starts an order's clock (a repeated one keeps the first time); any other update of the order stops it.
    public struct UnknownOrders: Sendable, Hashable {
        /// The orders whose outcome is unknown, by order id, each with the update that first said so.
        public var pending: [String: OrderUpdate] = [:]

        /// No order pending: a user's state before any update was seen.
        public init() {}

        /// Takes one order update: an `unknown` one starts the order's clock, any other stops it.
        public mutating func observe(_ update: OrderUpdate) {
            if update.kind == .unknown {
                if pending[update.orderId] == nil { pending[update.orderId] = update }
            } else {
                pending[update.orderId] = nil
            }
        }

        /// The updates that made an order unknown longer ago than `seconds` at `now`, of the rule's connection.
        public func overdue(_ rule: AlertRule.OrderRule, now: Date) -> [OrderUpdate] {
            guard rule.on == .unknown, let seconds = rule.unknownForSeconds else { return [] }
            return pending.values
                .filter { (rule.connectionId == nil || $0.connectionId == rule.connectionId) && now.timeIntervalSince($0.at) > TimeInterval(seconds) }
                .sorted { ($0.at, $0.orderId) < ($1.at, $1.orderId) }
        }
    }

    /// The line a person reads for an order alert.
    public static func message(_ rule: AlertRule.OrderRule, _ update: OrderUpdate) -> String {
        let order = update.order.map { "\($0.instrument.symbol) " } ?? ""
        switch rule.on {
        case .filled: return "order \(order)\(update.orderId) was filled"
        case .rejected:
            return "order \(order)\(update.orderId) was rejected" + (update.detail.map { ": \(BrokerText.sanitized($0))" } ?? "")
        case .unknown:
            return "order \(order)\(update.orderId) has been unknown for more than \(rule.unknownForSeconds ?? 0) s"
        }
    }
}
