import Synchronization

/// The process-wide budget of broker answer bytes held in flight: one accountant shared by every call of the
/// transport that carries it (the gateway has one, for every connection of every tenant).
///
/// Each call's limit (``BrokerRequest/maxResponseBytes``) bounds one answer, but not how many are buffered at once: a
/// tenant with forty connections to a broker that answers with endless bodies would otherwise hold forty times that
/// limit. So the transport reserves bytes here as each body arrives (``Reservation/take(_:)``) and gives them back
/// when the call ends; a call whose next chunk would pass the budget fails at once with a retryable
/// `upstream_unavailable` (``refusal(limit:host:)``), its connection is closed and its bytes are freed, while calls
/// already holding their share finish. A refusal says nothing about the broker, so the pipeline neither retries it
/// nor counts it against the connection's circuit breaker (``isRefusal(_:)``).
public final class ResponseBudget: Sendable {
    /// The bytes all calls may hold at once.
    public let limit: Int
    private let state = Mutex<(inFlight: Int, highWater: Int)>((0, 0))

    /// 256 MiB: thirty-two answers at the transport's default per-call limit, far more than real answers need at
    /// once (most are kilobytes), and a bound a hostile broker cannot push the process past.
    public static let defaultLimit = 256 * 1024 * 1024

    /// A budget of `limit` bytes (at least 1); share one instance between every call that should count together.
    public init(limit: Int = ResponseBudget.defaultLimit) {
        self.limit = max(1, limit)
    }

    /// Bytes held by calls now.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    /// The most bytes ever held at once: what tests and metrics compare with ``limit``.
    public var highWater: Int { state.withLock { $0.highWater } }

    /// Takes `bytes` when they fit under the limit; `false` (nothing taken) when they do not.
    func reserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        return state.withLock { state in
            guard bytes <= limit - state.inFlight else { return false }
            state.inFlight += bytes
            state.highWater = max(state.highWater, state.inFlight)
            return true
        }
    }

    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        state.withLock { $0.inFlight = max(0, $0.inFlight - bytes) }
    }

    /// One call's share: what it took so far, all given back by ``end()`` (the transport calls it when the call
    /// ends, however it ends).
    final class Reservation: Sendable {
        let budget: ResponseBudget
        private let held = Mutex(0)

        init(_ budget: ResponseBudget) {
            self.budget = budget
        }

        /// Takes `bytes` more for this call, or throws the budget's refusal.
        func take(_ bytes: Int, host: String) throws {
            guard budget.reserve(bytes) else { throw ResponseBudget.refusal(limit: budget.limit, host: host) }
            held.withLock { $0 += bytes }
        }

        func end() {
            let bytes = held.withLock { held in
                defer { held = 0 }
                return held
            }
            budget.release(bytes)
        }
    }

    func reservation() -> Reservation { Reservation(self) }

    static let refusalLead = "the gateway is holding its limit of broker answers in flight"

    /// The error of a call refused for the budget: 503, retryable after a second (the answers ahead of it will have
    /// been read by then, or failed).
    static func refusal(limit: Int, host: String) -> GatewayError {
        GatewayError(
            .upstreamUnavailable,
            "\(refusalLead) (\(limit) bytes); \(host)'s answer was not read in full, try again shortly",
            retryable: true,
            retryAfter: 1
        )
    }

    /// Whether an error is the budget's refusal, which is the gateway's load and not the broker's failure.
    public static func isRefusal(_ error: any Error) -> Bool {
        guard let error = error as? GatewayError else { return false }
        return error.code == .upstreamUnavailable && error.message.hasPrefix(refusalLead)
    }
}
