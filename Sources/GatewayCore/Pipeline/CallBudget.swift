import GatewayModel
import Synchronization

/// How many broker calls one request may make on one connection.
///
/// A read whose work grows with what the client sent (fifty symbols a broker does not know, each retried alone) must
/// not turn one request into fifty upstream calls: the application gives each connection's part of a request its
/// own budget (``with(limit:_:)``), and the pipeline spends one unit per adapter call (retries of that call are
/// bounded by the retry policy, not here). A call past the budget fails before anything is sent, with
/// `rate_limited`; a read that can do with part of its answer (the quotes fallback) stops there and answers with what
/// it has.
public final class CallBudget: Sendable {
    /// The calls allowed.
    public let limit: Int
    private let spent = Atomic<Int>(0)

    /// A budget of `limit` calls (at least 1), none spent; ``with(limit:_:)`` makes and binds one for a scope.
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The budget of the work running now; `nil` (no bound) outside a request, e.g. in background reconciliation.
    @TaskLocal public static var current: CallBudget?

    /// Runs `body` with a fresh budget of `limit` calls (no budget when `limit` is `nil`).
    public static func with<T>(
        limit: Int?,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        guard let limit else { return try await body() }
        return try await $current.withValue(CallBudget(limit: limit), operation: body, isolation: isolation)
    }

    /// Calls made so far (including one refused).
    public var used: Int { spent.load(ordering: .relaxed) }

    /// Whether another call would be refused.
    public var isSpent: Bool { used >= limit }

    /// Takes one call from the budget, or fails when none is left.
    func spend(broker: BrokerKind) throws {
        let (_, now) = spent.add(1, ordering: .relaxed)
        guard now <= limit else {
            throw GatewayError(
                .rateLimited,
                "this request reached its limit of \(limit) calls to \(broker) on this connection; ask for less at once",
                broker: broker,
                retryable: false
            )
        }
    }

    /// Whether an error is this budget's refusal (a read that can answer in part stops on it instead of failing).
    public static func isExhaustion(_ error: any Error) -> Bool {
        guard let error = error as? GatewayError, error.code == .rateLimited, !error.retryable,
            let budget = current
        else { return false }
        return budget.isSpent
    }
}
