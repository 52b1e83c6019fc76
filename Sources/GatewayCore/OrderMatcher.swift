public import Foundation
public import GatewayModel

/// What a placement asked a broker for, as the gateway recorded it before sending: the part of an order intent that
/// a broker's order can be recognised by.
public struct OrderIntent: Sendable, Hashable {
    /// The client order id sent with the placement; `nil` where the broker keeps none.
    public var clientOrderId: String?
    /// `nil` matches any account.
    public var accountId: String?
    /// The canonical symbol; a broker order must carry the same one.
    public var symbol: String
    /// The direction asked for; a broker that reports `buy`/`sell` for `buy_to_cover`/`sell_short` still matches.
    public var side: OrderSide
    /// The order type asked for, matched exactly.
    public var type: OrderType
    /// The units asked for; `nil` for an order sized in money (`notional`).
    public var quantity: Decimal?
    /// The money asked for, for an order sized in money.
    public var notional: Decimal?
    /// The limit price asked for, matched exactly (`nil` matches only an order without one).
    public var limitPrice: Decimal?
    /// The stop price asked for, matched exactly (`nil` matches only an order without one).
    public var stopPrice: Decimal?
    /// When the placement was sent, on the gateway's clock.
    public var sentAt: Date

    /// An intent from its parts; ``init(_:clientOrderId:sentAt:)`` makes one from a canonical request.
    public init(
        clientOrderId: String?,
        accountId: String?,
        symbol: String,
        side: OrderSide,
        type: OrderType,
        quantity: Decimal?,
        limitPrice: Decimal? = nil,
        stopPrice: Decimal? = nil,
        sentAt: Date,
        notional: Decimal? = nil
    ) {
        self.clientOrderId = clientOrderId
        self.accountId = accountId
        self.symbol = symbol
        self.side = side
        self.type = type
        self.quantity = quantity
        self.notional = notional
        self.limitPrice = limitPrice
        self.stopPrice = stopPrice
        self.sentAt = sentAt
    }

    /// The intent of a canonical order request, sent at `sentAt` (the client order id defaults to the request's).
    public init(_ request: OrderRequest, clientOrderId: String? = nil, sentAt: Date) {
        self.init(
            clientOrderId: clientOrderId ?? request.clientOrderId,
            accountId: request.accountId,
            symbol: request.instrument.symbol,
            side: request.side,
            type: request.type,
            quantity: request.quantity,
            limitPrice: request.limitPrice,
            stopPrice: request.stopPrice,
            sentAt: sentAt,
            notional: request.notional
        )
    }
}

/// Finds the broker order a placement became, when the placement's answer was lost: the one reconciliation rule,
/// kept pure so it is tested without a broker.
///
/// An order carrying the intent's client order id is the match. Otherwise an order matches when it has the same
/// account (where the intent names one), instrument symbol, direction (the same side, or the plain `buy`/`sell` a
/// broker reports for a `buy_to_cover`/`sell_short`), type, quantity (or notional), limit and stop prices, and was created no
/// earlier than `sentAt` less the allowed clock skew (an order without a creation time is not excluded by time).
/// Orders without a broker id, and those in `claimed` (which already belong to another intent), never match, so a
/// broker order is never given to two intents.
public struct OrderMatcher: Sendable {
    /// How far the broker's clock may be behind the gateway's.
    public var clockSkew: TimeInterval

    /// A matcher allowing `clockSkew` seconds (one minute by default) between the two clocks.
    public init(clockSkew: TimeInterval = 60) {
        self.clockSkew = clockSkew
    }

    /// Every order that could be the intent's, best first: the order with the intent's client order id alone if
    /// there is one, else the matching orders, oldest first (those without a creation time last).
    public func candidates(for intent: OrderIntent, among orders: [Order], claimed: Set<String> = []) -> [Order] {
        let free = orders.filter { order in
            guard let brokerOrderId = order.brokerOrderId else { return false }
            return !claimed.contains(brokerOrderId)
        }
        if let clientOrderId = intent.clientOrderId, let exact = free.first(where: { $0.clientOrderId == clientOrderId }) {
            return [exact]
        }
        let earliest = intent.sentAt.addingTimeInterval(-clockSkew)
        return free.filter { order in
            (intent.accountId.map { $0 == order.accountId } ?? true)
                && order.instrument.symbol == intent.symbol
                && Self.sameDirection(order.side, intent.side)
                && order.type == intent.type
                && (intent.notional.map { order.notional == $0 } ?? (order.notional == nil && order.quantity == intent.quantity))
                && order.limitPrice == intent.limitPrice
                && order.stopPrice == intent.stopPrice
                && (order.createdAt ?? .distantFuture) >= earliest
        }
        .enumerated()
        .sorted { lhs, rhs in
            let left = lhs.element.createdAt ?? .distantFuture
            let right = rhs.element.createdAt ?? .distantFuture
            return left == right ? lhs.offset < rhs.offset : left < right
        }
        .map(\.element)
    }

    /// The best candidate, or `nil` when no order could be the intent's.
    public func match(_ intent: OrderIntent, among orders: [Order], claimed: Set<String> = []) -> Order? {
        candidates(for: intent, among: orders, claimed: claimed).first
    }

    /// The same side, or the plain side a broker reports for a short sale or a cover.
    static func sameDirection(_ reported: OrderSide, _ sent: OrderSide) -> Bool {
        reported == sent || reported == (sent.isBuy ? .buy : .sell)
    }
}
