import Foundation
public import GatewayCore
public import GatewayModel
public import Logging
import Synchronization

/// The conformance suite an adapter author runs from their own tests against their factory and a live simulator of
/// their broker (one built with SandboxKit), as swift-configuration's `ProviderCompatTest` does for providers:
///
/// ```swift
/// @Test func conformance() async throws {
///     try await withSandbox(MyBrokerSandbox()) { url in
///         let target = ConformanceTarget(baseURL: url.absoluteString, credentials: BrokerCredentials(["key": "demo"]),
///                                        instrument: InstrumentReference(symbol: "XBT/USD"), restingOrder: ...)
///         try await ConformanceSuite(factory: MyBrokerFactory(), target: target).run().requireAllPassed()
///     }
/// }
/// ```
///
/// The checks, each a ``ConformanceCheck`` of the ``ConformanceReport`` by these names:
///
/// - `adapter`, `validateCredentials`: the factory makes an adapter of its kind, and the credentials validate.
/// - One check per ``BrokerOperation`` the factory declares (supported or emulated), by the operation's name
///   (`accounts`, `balances`, `placeOrder`, `orderBook`, ...): the operation is called once and its answer is
///   canonical (ids non-empty, records stamped with the connection, accounts the link's own, decimals sane, orders
///   as placed, books in canonical order, a placed order found by `order`, `orders` and, where declared, by its
///   client order id, changed by `modifyOrder` and cancelled by `cancelOrder`). `notionalOrders` is declared only:
///   a notional order would trade.
/// - `unsupported.<operation>` per operation the factory does not declare: the adapter answers `not_supported`
///   (`orderByClientOrderId` may answer nothing instead; `closedOrders` and `notionalOrders` may answer
///   `unprocessable`), never an answer.
/// - `errors.unauthorized`: the target's bad credentials fail validation with `unauthorized`.
/// - `errors.notFound` (when `order` is declared): an unknown broker order id answers `not_found`.
/// - `errors.http500`, `errors.http503`, `errors.http429`, `errors.timeout`: with the simulator's fault injection
///   (`/_sandbox/faults`) answering every broker call with HTTP 500, 503, 429 or not at all, a read answers
///   `upstream_unavailable`, `upstream_unavailable`, `rate_limited` (all retryable), or `upstream_timeout` within
///   ``slowAnswerDeadline`` plus ``slowAnswerGrace`` (an adapter that ignores the deadline or its cancellation hangs
///   until ``callTimeout``).
/// - `egress.refused`: under ``refusingEgress`` the same read fails `egress_refused`, and the simulator saw no request.
///
/// The adapter's calls go straight to an `HTTPClientTransport` under ``egress`` (no pipeline: no retries, breakers or
/// pacing), so what is checked is the adapter's own mapping. Checks run one after another; a run takes a few seconds.
public struct ConformanceSuite: Sendable {
    /// The factory under test.
    public let factory: any BrokerAdapterFactory
    /// The simulator, link and trading parameters.
    public var target: ConformanceTarget
    /// The egress policy under which the simulator is reachable: loopback allowed, by default.
    public var egress: EgressPolicy
    /// A policy that refuses the simulator's host, for `egress.refused`: the gateway's default (public addresses
    /// only), which refuses a loopback simulator.
    public var refusingEgress: EgressPolicy
    /// The longest one operation may take before its check fails (a hung adapter fails rather than blocks the run).
    public var callTimeout: Duration
    /// The per-call deadline of the `errors.timeout` check, while the simulator holds every answer back.
    public var slowAnswerDeadline: Duration
    /// What `errors.timeout` allows past ``slowAnswerDeadline``: room for a loaded machine's scheduling, far short of
    /// ``callTimeout``.
    public static let slowAnswerGrace: Duration = .seconds(5)
    /// Where the adapters under test log (nowhere by default).
    public var logger: Logger

    /// A suite of `factory` against `target`.
    public init(
        factory: any BrokerAdapterFactory,
        target: ConformanceTarget,
        egress: EgressPolicy = .loopbackForTests,
        refusingEgress: EgressPolicy = EgressPolicy(),
        callTimeout: Duration = .seconds(30),
        slowAnswerDeadline: Duration = .milliseconds(500),
        logger: Logger = Logger(label: "conformance", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.factory = factory
        self.target = target
        self.egress = egress
        self.refusingEgress = refusingEgress
        self.callTimeout = callTimeout
        self.slowAnswerDeadline = slowAnswerDeadline
        self.logger = logger
    }

    /// Runs every check against the simulator and returns the report; never throws (a failure is a check's verdict).
    /// The simulator's fault rules are left as they were found, less any rule named `conformance-…`.
    public func run() async -> ConformanceReport {
        let run = ConformanceRun(suite: self)
        await run.all()
        return ConformanceReport(broker: factory.kind, checks: run.checks)
    }
}

/// A check's failure, with what was wrong.
struct ConformanceProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A transport that caps every call's timeout while `cap` is set (the slow-answer check), so the deadline is the
/// transport's own and the adapter's mapping of its `upstream_timeout` is what is checked.
final class CappedTransport: BrokerTransport {
    let wrapped: any BrokerTransport
    let cap: Mutex<Duration?>

    init(wrapping wrapped: any BrokerTransport) {
        self.wrapped = wrapped
        self.cap = Mutex(nil)
    }

    func send(_ request: BrokerRequest) async throws -> BrokerResponse {
        var request = request
        if let cap = cap.withLock({ $0 }) { request.timeout = min(request.timeout, cap) }
        return try await wrapped.send(request)
    }
}
