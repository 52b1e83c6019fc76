public import GatewayModel

extension GatewayError {
    /// A broker's 3xx: the gateway follows no redirect (one could lead to another origin, or an internal address, with
    /// the call's credentials), so the answer is an error: `malformed_response`, not retryable; for a placement, an
    /// outcome for reconciliation to settle.
    public static func redirect(status: Int, broker: BrokerKind) -> GatewayError {
        GatewayError(
            .malformedResponse,
            "\(broker) answered with a redirect (HTTP \(status)), which the gateway does not follow",
            broker: broker,
            retryable: false
        )
    }
}
