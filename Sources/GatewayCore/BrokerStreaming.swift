public import GatewayModel

/// A broker with push streams of its own (Alpaca's market-data and trade-update WebSockets). Adapters that have
/// them conform; the gateway uses them where it can and polls where it cannot.
public protocol BrokerStreaming: Sendable {
    /// Whether this connection can stream: the broker has a stream for these credentials and the transport can open
    /// sockets. `false`: poll.
    var canStream: Bool { get }

    /// Calls `onQuote` with each quote the broker pushes for `instruments` (bid and ask from its quotes, last from its
    /// trades) until the task is cancelled, and `onSubscribed` once the broker has confirmed the subscription (what
    /// moved before then is not pushed: the caller reads a snapshot then). Returns when the broker closes the stream;
    /// throws when it cannot be opened or the broker ends it with an error.
    func streamQuotes(
        _ instruments: [InstrumentReference],
        onSubscribed: @escaping @Sendable () async -> Void,
        _ onQuote: @escaping @Sendable (Quote) async -> Void
    ) async throws

    /// Calls `onChange` with the broker order id of each order the broker says changed (filled, cancelled, replaced,
    /// …) until the task is cancelled. Returns or throws as `streamQuotes`.
    func streamOrderChanges(_ onChange: @escaping @Sendable (String) async -> Void) async throws
}
