import Synchronization

/// What one piece of work sent to brokers: how many calls entered the broker-call pipeline and how many writes it
/// handed to the transport. The order pipeline sets one around a placement (`BrokerSendLedger.$current`), so that a
/// placement the pipeline refused before sending (an open breaker, a rate-limit slot past the deadline, no time left)
/// is known to have reached no broker, and its idempotency key can be released instead of the order being left
/// `unknown`.
///
/// Counting is conservative: a write counts as sent the moment it is handed to the transport, before a byte goes
/// out, so a write the transport then fails to send (a refused connection) still counts; only what never got that
/// far is "nothing sent".
public final class BrokerSendLedger: Sendable {
    /// The ledger of the work running, if it keeps one.
    @TaskLocal public static var current: BrokerSendLedger?

    private let counts = Mutex<(calls: Int, writesSent: Int)>((calls: 0, writesSent: 0))

    /// An empty ledger: no calls yet, so ``nothingWritten`` is `nil` until a call enters the pipeline.
    public init() {}

    /// A call entered a connection's pipeline.
    func callEntered() {
        counts.withLock { $0.calls += 1 }
    }

    /// A write (a request that is not idempotent) is being handed to the transport.
    func writeSent() {
        counts.withLock { $0.writesSent += 1 }
    }

    /// `true` when calls went through the pipeline and none was a write handed to the transport: nothing a broker
    /// could act on left the gateway. `false` when a write did. `nil` when no call went through the pipeline at all,
    /// so nothing is known (an adapter that failed before calling, or one that does not use the pipeline).
    public var nothingWritten: Bool? {
        counts.withLock { counts in counts.calls == 0 ? nil : counts.writesSent == 0 }
    }
}
