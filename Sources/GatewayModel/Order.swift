public import Foundation

public enum OrderSide: String, WireEnum {
    case buy, sell
    case sellShort = "sell_short"
    case buyToCover = "buy_to_cover"

    /// Whether the order adds to (buy, buy to cover) or takes from (sell, sell short) the position.
    public var isBuy: Bool { self == .buy || self == .buyToCover }
}

public enum OrderType: String, WireEnum {
    case market, limit, stop
    case stopLimit = "stop_limit"

    public var needsLimitPrice: Bool { self == .limit || self == .stopLimit }
    public var needsStopPrice: Bool { self == .stop || self == .stopLimit }
}

public enum TimeInForce: String, WireEnum {
    case day, gtc, ioc, fok, gtd
}

/// The gateway's order states. Closed: every broker state maps to exactly one of these.
public enum OrderStatus: String, WireEnum {
    case pendingNew = "pending_new"
    case open
    case partiallyFilled = "partially_filled"
    case filled
    case canceled
    case rejected
    case expired
    case pendingCancel = "pending_cancel"
    case replaced
    /// The gateway sent the order but could not learn whether the broker took it (a timeout, a dropped
    /// connection, a 5xx after possibly acting). Not a broker state: reconciliation replaces it with the
    /// broker's truth. Do not retry blindly; read the order again.
    case unknown

    /// Whether the order can still trade or change.
    public var isActive: Bool {
        switch self {
        case .pendingNew, .open, .partiallyFilled, .pendingCancel, .unknown: true
        case .filled, .canceled, .rejected, .expired, .replaced: false
        }
    }
}

/// Where an order's view comes from, when it is not the broker's answer of the moment.
public enum OrderSource: String, WireEnum {
    /// The broker's own report of the order.
    case broker
    /// The broker no longer reports this order (it left the broker's lists, or the broker now uses its id for another
    /// order): this is the journal's last confirmed state, as of `updatedAt`.
    case journal
}

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
    public var brokerOrderId: String?
    public var clientOrderId: String
    public var connectionId: String
    public var broker: BrokerKind
    public var accountId: String
    public var instrument: Instrument
    public var side: OrderSide
    public var type: OrderType
    public var timeInForce: TimeInForce
    public var quantity: Decimal
    public var limitPrice: Decimal?
    public var stopPrice: Decimal?
    public var status: OrderStatus
    public var filledQuantity: Decimal
    public var averageFillPrice: Decimal?
    public var createdAt: Date?
    public var updatedAt: Date?
    /// For `gtd` orders: when the order expires.
    public var expiresAt: Date?
    /// The broker's status text, kept for diagnosis; `status` is what to act on.
    public var brokerStatus: String?
    /// The amount of money ordered (in the instrument's quote currency) when the order is sized by money rather than
    /// units; `nil` for an order sized in units.
    public var notional: Decimal?
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

    enum CodingKeys: String, CodingKey {
        case id, brokerOrderId, clientOrderId, connectionId, broker, accountId, instrument, side, type, timeInForce
        case quantity, limitPrice, stopPrice, status, filledQuantity, averageFillPrice, createdAt, updatedAt
        case expiresAt, brokerStatus, notional, replaces, replacedBy, submittedAt, filledAt, canceledAt, expiredAt, source
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        brokerOrderId = try c.decodeIfPresent(String.self, forKey: .brokerOrderId)
        clientOrderId = try c.decode(String.self, forKey: .clientOrderId)
        connectionId = try c.decode(String.self, forKey: .connectionId)
        broker = try c.decode(BrokerKind.self, forKey: .broker)
        accountId = try c.decode(String.self, forKey: .accountId)
        instrument = try c.decode(Instrument.self, forKey: .instrument)
        side = try c.decode(OrderSide.self, forKey: .side)
        type = try c.decode(OrderType.self, forKey: .type)
        timeInForce = try c.decode(TimeInForce.self, forKey: .timeInForce)
        quantity = try c.decodeDecimal(forKey: .quantity)
        limitPrice = try c.decodeDecimalIfPresent(forKey: .limitPrice)
        stopPrice = try c.decodeDecimalIfPresent(forKey: .stopPrice)
        status = try c.decode(OrderStatus.self, forKey: .status)
        filledQuantity = try c.decodeDecimal(forKey: .filledQuantity)
        averageFillPrice = try c.decodeDecimalIfPresent(forKey: .averageFillPrice)
        createdAt = try c.decodeIfPresent(Date.self, forKey: .createdAt)
        updatedAt = try c.decodeIfPresent(Date.self, forKey: .updatedAt)
        expiresAt = try c.decodeIfPresent(Date.self, forKey: .expiresAt)
        brokerStatus = try c.decodeIfPresent(String.self, forKey: .brokerStatus)
        notional = try c.decodeDecimalIfPresent(forKey: .notional)
        replaces = try c.decodeIfPresent(String.self, forKey: .replaces)
        replacedBy = try c.decodeIfPresent(String.self, forKey: .replacedBy)
        submittedAt = try c.decodeIfPresent(Date.self, forKey: .submittedAt)
        filledAt = try c.decodeIfPresent(Date.self, forKey: .filledAt)
        canceledAt = try c.decodeIfPresent(Date.self, forKey: .canceledAt)
        expiredAt = try c.decodeIfPresent(Date.self, forKey: .expiredAt)
        source = try c.decodeIfPresent(OrderSource.self, forKey: .source)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(brokerOrderId, forKey: .brokerOrderId)
        try c.encode(clientOrderId, forKey: .clientOrderId)
        try c.encode(connectionId, forKey: .connectionId)
        try c.encode(broker, forKey: .broker)
        try c.encode(accountId, forKey: .accountId)
        try c.encode(instrument, forKey: .instrument)
        try c.encode(side, forKey: .side)
        try c.encode(type, forKey: .type)
        try c.encode(timeInForce, forKey: .timeInForce)
        try c.encodeDecimal(quantity, forKey: .quantity)
        try c.encodeDecimalIfPresent(limitPrice, forKey: .limitPrice)
        try c.encodeDecimalIfPresent(stopPrice, forKey: .stopPrice)
        try c.encode(status, forKey: .status)
        try c.encodeDecimal(filledQuantity, forKey: .filledQuantity)
        try c.encodeDecimalIfPresent(averageFillPrice, forKey: .averageFillPrice)
        try c.encodeIfPresent(createdAt, forKey: .createdAt)
        try c.encodeIfPresent(updatedAt, forKey: .updatedAt)
        try c.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try c.encodeIfPresent(brokerStatus, forKey: .brokerStatus)
        try c.encodeDecimalIfPresent(notional, forKey: .notional)
        try c.encodeIfPresent(replaces, forKey: .replaces)
        try c.encodeIfPresent(replacedBy, forKey: .replacedBy)
        try c.encodeIfPresent(submittedAt, forKey: .submittedAt)
        try c.encodeIfPresent(filledAt, forKey: .filledAt)
        try c.encodeIfPresent(canceledAt, forKey: .canceledAt)
        try c.encodeIfPresent(expiredAt, forKey: .expiredAt)
        try c.encodeIfPresent(source, forKey: .source)
    }
}
