public import Foundation

/// One firing of an alert, as the user's stream carries it and as a webhook receives it (the POST's JSON body) and
/// an APNs push summarises it. `eventId` is the same on every channel and every retry of one firing
/// (`BrokerGateway-Event-Id`), so a receiver can drop duplicates.
public struct AlertNotification: Codable, Sendable, Hashable {
    public enum Kind: String, WireEnum {
        case price
        case order
        /// Sent by `POST /v1/alerts/{id}/test`: no rule fired.
        case test
    }

    /// `evt_…`
    public var eventId: String
    public var alertId: String
    public var alertName: String?
    public var kind: Kind
    /// What the rule was, for a reader that does not keep alerts.
    public var rule: AlertRule
    /// One line a person can read ("AAPL at 201.5 is above 200").
    public var message: String
    /// The price that fired a price alert.
    public var price: Decimal?
    /// The quote that fired a price alert.
    public var quote: Quote?
    /// The order change that fired an order alert (for `unknown`, the update that made it unknown).
    public var orderUpdate: OrderUpdate?
    public var firedAt: Date

    public init(
        eventId: String,
        alertId: String,
        alertName: String? = nil,
        kind: Kind,
        rule: AlertRule,
        message: String,
        price: Decimal? = nil,
        quote: Quote? = nil,
        orderUpdate: OrderUpdate? = nil,
        firedAt: Date
    ) {
        self.eventId = eventId
        self.alertId = alertId
        self.alertName = alertName
        self.kind = kind
        self.rule = rule
        self.message = message
        self.price = price
        self.quote = quote
        self.orderUpdate = orderUpdate
        self.firedAt = firedAt
    }

    enum CodingKeys: String, CodingKey { case eventId, alertId, alertName, kind, rule, message, price, quote, orderUpdate, firedAt }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        eventId = try c.decode(String.self, forKey: .eventId)
        alertId = try c.decode(String.self, forKey: .alertId)
        alertName = try c.decodeIfPresent(String.self, forKey: .alertName)
        kind = try c.decode(Kind.self, forKey: .kind)
        rule = try c.decode(AlertRule.self, forKey: .rule)
        message = try c.decode(String.self, forKey: .message)
        price = try c.decodeDecimalIfPresent(forKey: .price)
        quote = try c.decodeIfPresent(Quote.self, forKey: .quote)
        orderUpdate = try c.decodeIfPresent(OrderUpdate.self, forKey: .orderUpdate)
        firedAt = try c.decode(Date.self, forKey: .firedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(eventId, forKey: .eventId)
        try c.encode(alertId, forKey: .alertId)
        try c.encodeIfPresent(alertName, forKey: .alertName)
        try c.encode(kind, forKey: .kind)
        try c.encode(rule, forKey: .rule)
        try c.encode(message, forKey: .message)
        try c.encodeDecimalIfPresent(price, forKey: .price)
        try c.encodeIfPresent(quote, forKey: .quote)
        try c.encodeIfPresent(orderUpdate, forKey: .orderUpdate)
        try c.encode(firedAt, forKey: .firedAt)
    }
}
