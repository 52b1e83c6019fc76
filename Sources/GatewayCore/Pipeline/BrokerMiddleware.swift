public import GatewayModel

/// One link of the chain every broker call passes through, in the manner of swift-openapi-runtime's
/// `ClientMiddleware`: it may change the request, call `next` zero or more times, and change or replace the answer.
///
/// Middlewares are values shared by every call of one connection; per-connection state lives in objects they hold.
public protocol BrokerMiddleware: Sendable {
    /// Handles one call: pass it on with `next` (possibly changed, possibly more than once), or answer or throw
    /// without calling it. Called concurrently for many calls of the connection; must honour cancellation.
    func intercept(
        _ request: BrokerRequest,
        context: BrokerCallContext,
        next: @Sendable (BrokerRequest, BrokerCallContext) async throws -> BrokerResponse
    ) async throws -> BrokerResponse
}

/// What a middleware knows of a call besides its request: whose call it is and how long it may take.
public struct BrokerCallContext: Sendable {
    /// The connection's broker: the label metrics are grouped by.
    public var broker: BrokerKind
    /// The connection's id; a throwaway key for an adapter made to validate credentials before a connection exists.
    public var connectionId: String
    /// A bounded label of what the application was doing (`positions`, `place_order`): see `BrokerOperationScope`.
    public var operation: String
    /// When the call must be over, rate-limit waits and retries included: the earlier of the request's `timeout`
    /// from when the call entered the pipeline and ``DeadlineScope/current``.
    public var deadline: ContinuousClock.Instant

    /// The context of one call, made by the pipeline as the call enters it.
    public init(broker: BrokerKind, connectionId: String, operation: String, deadline: ContinuousClock.Instant) {
        self.broker = broker
        self.connectionId = connectionId
        self.operation = operation
        self.deadline = deadline
    }

    /// Time left before the deadline (zero when it has passed).
    public var remaining: Duration {
        max(.zero, ContinuousClock.now.duration(to: deadline))
    }
}

/// The operation label of the broker calls made in a scope: the application sets it around adapter calls
/// (`positions`, `balances`, `placeOrder`), so metrics can say which canonical operation was slow without the
/// adapters knowing about metrics. Labels must come from a closed set (`BrokerOperation` raw values), never from input.
public enum BrokerOperationScope {
    /// The label of the scope running now; `nil` outside one, counted as ``fallback``. Set it with ``with(_:isolation:_:)``.
    @TaskLocal public static var current: String?

    /// The label when none is set.
    public static let fallback = "other"

    /// Runs `body` with broker calls labelled `operation`.
    public static func with<T>(
        _ operation: BrokerOperation,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        try await $current.withValue(operation.rawValue, operation: body, isolation: isolation)
    }
}
