/// An alert just created, with the secret its webhooks are signed with: shown once, here, and never again.
public struct CreatedAlert: Codable, Sendable, Hashable {
    /// The alert as stored.
    public var alert: Alert
    /// `whsec_…`: the HMAC-SHA256 key of the `BrokerGateway-Signature` header (its UTF-8 bytes).
    public var webhookSecret: String

    /// The answer to a creation.
    public init(alert: Alert, webhookSecret: String) {
        self.alert = alert
        self.webhookSecret = webhookSecret
    }
}
