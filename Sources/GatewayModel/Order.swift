public import Foundation

/// An order at a broker, as the gateway knows it.
///
/// An order is sized either in units (`quantity`) or in money (`notional`, a dollar-amount order). For a notional
/// order the broker decides the units as it fills: until then `quantity` reads as the quantity filled so far (0 for
/// an unfilled order) and `notional` says what was ordered.
///
/// The replace chain and the times are the broker's: `replaces` / `replacedBy` are broker order ids (Alpaca replaces
/// an order with a new one on every change; the gateway's `id` stays the same across the chain), and each time is
/// present only when the broker reports it.
public struct Order: Codable, Sendable, Hashable {
    /// The gateway's id for the order: opaque, stable across replaces.
    public var id: String
    /// The broker's own id for the order (the one `GET /v1/orders?brokerOrderId=` finds); `nil` while the gateway knows
    /// none, as for a placement whose outcome is still unknown.
    public var brokerOrderId: String?
    /// The client order id: for an order placed through the gateway, the caller's or the one the gateway made (derived
    /// from the `Idempotency-Key`); for an order placed elsewhere, the broker's (its order id where the broker has
    /// none, as TradeIt).
    public var clientOrderId: String
    /// The gateway connection (`conn_…`) the order was placed through or seen at.
    public var connectionId: String
    /// The dialect of that connection's broker.
    public var broker: BrokerKind
    /// The broker's account id the order belongs to (`Account.id`).
    public var accountId: String
    /// The instrument traded.
    public var instrument: Instrument
    /// Whether the order buys or sells (and whether it opens or covers a short).
    public var side: OrderSide
    /// How the order is priced: market, limit, stop or stop limit.
    public var type: OrderType
    /// How long the order stays working.
    public var timeInForce: TimeInForce
    /// Units ordered. For an order sized in money (`notional`) the broker decides the units as it fills: until then
    /// this reads as the quantity filled so far (0 for an unfilled order).
    @DecimalString public var quantity: Decimal
    /// The limit price, for `limit` and `stop_limit` orders; `nil` for the others.
    @OptionalDecimalString public var limitPrice: Decimal?
    /// The stop (trigger) price, for `stop` and `stop_limit` orders; `nil` for the others.
    @OptionalDecimalString public var stopPrice: Decimal?
    /// The gateway's state of the order, mapped from the broker's: what to act on (see ``OrderStatus``).
    public var status: OrderStatus
    /// Units filled so far: 0 before the first fill.
    @DecimalString public var filledQuantity: Decimal
    /// The average price of the fills so far; `nil` before the first fill or where the broker does not say.
    @OptionalDecimalString public var averageFillPrice: Decimal?
    /// When the order was created: the broker's time where it reports one, else the gateway's at placement; `nil` when
    /// neither is known.
    public var createdAt: Date?
    /// When the order last changed, where known: the broker's time, or the gateway's when it recorded the change.
    public var updatedAt: Date?
    /// For `gtd` orders: when the order expires.
    public var expiresAt: Date?
    /// The broker's status text, kept for diagnosis; `status` is what to act on.
    public var brokerStatus: String?
    /// The amount of money ordered (in the instrument's quote currency) when the order is sized by money rather than
    /// units; `nil` for an order sized in units.
    @OptionalDecimalString public var notional: Decimal?
    /// The broker order id of the order this one replaced (a change at a broker that replaces orders).
    public var replaces: String?
    /// The broker order id of the order that replaced this one.
    public var replacedBy: String?
    /// When the broker received the order.
    public var submittedAt: Date?
    /// When the order filled completely.
    public var filledAt: Date?
    /// When the order was canceled.
    public var canceledAt: Date?
    /// When the order expired.
    public var expiredAt: Date?
    /// `journal` when the broker could not say and this is the journal's last confirmed state; absent for the
    /// broker's own report.
    public var source: OrderSource?

    /// An order as an adapter maps it from its broker's answer (or the journal rebuilds it); unknown parts stay `nil`.
    public init(
        id: String,
        brokerOrderId: String?,
        clientOrderId: String,
        connectionId: String,
        broker: BrokerKind,
        accountId: String,
        instrument: Instrument,
        side: OrderSide,
        type: OrderType,
        timeInForce: TimeInForce,
        quantity: Decimal,
        limitPrice: Decimal? = nil,
        stopPrice: Decimal? = nil,
        status: OrderStatus,
        filledQuantity: Decimal = 0,
        averageFillPrice: Decimal? = nil,
        createdAt: Date? = nil,
        updatedAt: Date? = nil,
        expiresAt: Date? = nil,
        brokerStatus: String? = nil,
        notional: Decimal? = nil,
        replaces: String? = nil,
        replacedBy: String? = nil,
        submittedAt: Date? = nil,
        filledAt: Date? = nil,
        canceledAt: Date? = nil,
        expiredAt: Date? = nil,
        source: OrderSource? = nil
    ) {
        self.id = id
        self.brokerOrderId = brokerOrderId
        self.clientOrderId = clientOrderId
        self.connectionId = connectionId
        self.broker = broker
        self.accountId = accountId
        self.instrument = instrument
        self.side = side
        self.type = type
        self.timeInForce = timeInForce
        self.quantity = quantity
        self.limitPrice = limitPrice
        self.stopPrice = stopPrice
        self.status = status
        self.filledQuantity = filledQuantity
        self.averageFillPrice = averageFillPrice
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.brokerStatus = brokerStatus
        self.notional = notional
        self.replaces = replaces
        self.replacedBy = replacedBy
        self.submittedAt = submittedAt
        self.filledAt = filledAt
        self.canceledAt = canceledAt
        self.expiredAt = expiredAt
        self.source = source
    }
}
