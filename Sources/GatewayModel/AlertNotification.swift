public import Foundation

/// One firing of an alert, as the user's stream carries it and as a webhook receives it (the POST's JSON body) and
/// an APNs push summarises it. `eventId` is the same on every channel and every retry of one firing
/// (`BrokerGateway-Event-Id`), so a receiver can drop duplicates.
public struct AlertNotification: Codable, Sendable, Hashable {
    /// What made the notification: a price rule, an order rule, or a test.
    public enum Kind: String, WireEnum {
        case price
        case order
        /// Sent by `POST /v1/alerts/{id}/test`: no rule fired.
        case test
    }

    /// `evt_…`
    public var eventId: String
    /// The alert that fired.
    public var alertId: String
    /// The alert's name when it fired, where it has one (an APNs push's title).
    public var alertName: String?
    /// What made the notification.
    public var kind: Kind
    /// What the rule was, for a reader that does not keep alerts.
    public var rule: AlertRule
    /// One line a person can read ("AAPL at 201.5 is above 200").
    public var message: String
    /// The price that fired a price alert.
    @OptionalDecimalString public var price: Decimal?
    /// The quote that fired a price alert.
    public var quote: Quote?
    /// The order change that fired an order alert (for `unknown`, the update that made it unknown).
    public var orderUpdate: OrderUpdate?
    /// When the alert fired.
    public var firedAt: Date

    /// A notification of one firing; `eventId` is made once and kept for every channel and retry.
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
}
