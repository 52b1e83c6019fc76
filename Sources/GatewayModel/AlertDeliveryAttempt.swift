public import Foundation

/// One attempt to deliver one notification of an alert on one channel: the alert's delivery log.
public struct AlertDeliveryAttempt: Codable, Sendable, Hashable {
    /// `dlv_…`
    public var id: String
    /// The alert whose notification this was.
    public var alertId: String
    /// The notification's event id (`BrokerGateway-Event-Id`): the same for every attempt of one notification.
    public var eventId: String
    /// The channel tried: the webhook or APNs.
    public var channel: AlertChannel
    /// 1 for the first attempt of the notification on this channel.
    public var attempt: Int
    /// When the attempt was made.
    public var at: Date
    /// How the attempt ended.
    public var outcome: AlertDeliveryOutcome
    /// The receiver's HTTP status, when it answered.
    public var httpStatus: Int?
    /// What went wrong, in the gateway's words (never a secret nor the receiver's body).
    public var error: String?
    /// Whether the notification was a test (`POST /v1/alerts/{id}/test`).
    public var test: Bool
    /// The device an APNs push went to, when the alert targets the user's devices (`{"devices": "all"}`): each
    /// device's pushes are attempts of their own.
    public var deviceId: String?

    /// A log entry of one attempt.
    public init(
        id: String,
        alertId: String,
        eventId: String,
        channel: AlertChannel,
        attempt: Int,
        at: Date,
        outcome: AlertDeliveryOutcome,
        httpStatus: Int? = nil,
        error: String? = nil,
        test: Bool = false,
        deviceId: String? = nil
    ) {
        self.id = id
        self.alertId = alertId
        self.eventId = eventId
        self.channel = channel
        self.attempt = attempt
        self.at = at
        self.outcome = outcome
        self.httpStatus = httpStatus
        self.error = error
        self.test = test
        self.deviceId = deviceId
    }
}
