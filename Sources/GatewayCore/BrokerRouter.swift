public import Foundation
public import GatewayModel
import Synchronization

/// How a source's answer was obtained.
public enum ReadService: String, WireEnum {
    /// This read called the broker.
    case fresh
    /// An identical read on the same connection was already in flight; this read shared its answer.
    case shared
    /// A recent enough answer (within the read's `maxAgeMs`) was reused without calling the broker.
    case cached
}

/// One connection's answer to a fan-out read, with how old it is and how it was obtained.
public struct SourceAnswer<Item: Sendable>: Sendable {
    /// The canonical records this connection answered, in the adapter's order.
    public var items: [Item]
    /// When the broker gave this answer.
    public var asOf: Date
    /// Whether this read called the broker, shared a call in flight, or reused a recent answer.
    public var served: ReadService
    /// What the answer lacks: an auxiliary call of the read failed and the adapter answered without it.
    public var gaps: [SourceReport.Failure]

    /// An answer; `gaps` lists what an auxiliary call of the read failed to get (see ``ReadGaps``).
    public init(items: [Item], asOf: Date, served: ReadService, gaps: [SourceReport.Failure] = []) {
        self.items = items
        self.asOf = asOf
        self.served = served
        self.gaps = gaps
    }
}

/// Where an adapter says what its answer lacks. A read whose auxiliary call fails (TradeOgre's open orders behind the
/// amounts its balances hold, one order's detail in a list) answers what it has and records the failure here,
/// instead of failing the whole source: the fan-out reports the source `ok` with its `gaps`, and the read `partial`.
/// Set as a task-local around one connection's part of a read; outside one, recording does nothing.
public final class ReadGaps: Sendable {
    /// The collector of the connection's read now running, bound by ``collecting(_:)``; `nil` outside a read.
    @TaskLocal public static var current: ReadGaps?
    private let recorded = Mutex<[SourceReport.Failure]>([])

    /// An empty collector; ``collecting(_:)`` makes and binds one, so callers rarely need this.
    public init() {}

    /// Records what the answer lacks, and why.
    public static func record(_ error: GatewayError) {
        current?.recorded.withLock { $0.append(SourceReport.Failure(error)) }
    }

    /// Every failure recorded so far, in order; safe to read from any task.
    public var all: [SourceReport.Failure] { recorded.withLock { $0 } }

    /// Runs `body` with a fresh collector; returns its result and what was recorded.
    public static func collecting<T: Sendable>(_ body: () async throws -> T) async rethrows -> (T, [SourceReport.Failure]) {
        let gaps = ReadGaps()
        let value = try await $current.withValue(gaps) { try await body() }
        return (value, gaps.all)
    }
}

/// What became of one connection's part in a fan-out read.
public struct SourceReport: Codable, Sendable, Hashable {
    /// Whether the connection answered (`ok`, possibly with gaps) or failed (`error`), as the wire's `status`.
    public enum State: String, WireEnum { case ok, error }

    /// The client-safe part of a `GatewayError`, as a source line's `error` (or one of its `gaps`) carries it: no
    /// broker code, no field details.
    public struct Failure: Codable, Sendable, Hashable {
        /// The error's code, such as `upstream_timeout`.
        public var code: GatewayError.Code
        /// The error's message, safe to show a user.
        public var message: String
        /// Whether reading again may succeed.
        public var retryable: Bool
        /// Seconds to wait before reading again, where the broker or breaker said.
        public var retryAfter: Double?

        /// The failure as reported for `error`.
        public init(_ error: GatewayError) {
            code = error.code
            message = error.message
            retryable = error.retryable
            retryAfter = error.retryAfter
        }
    }

    /// The connection's id (`conn_…`).
    public var connection: String
    /// The connection's broker, so a client sees which broker was slow or failing without a lookup.
    public var broker: BrokerKind
    /// `ok` when the connection answered, `error` when it failed or ran out of time.
    public var status: State
    /// How long this connection's part took, in milliseconds (about its deadline for one that timed out).
    public var latencyMs: Int
    /// When the data was the broker's answer: now for a fresh read, earlier for a shared or cached one.
    public var asOf: Date
    /// How an `ok` answer was obtained; absent for an error.
    public var served: ReadService?
    /// Why the connection failed; `nil` when `status` is `ok`.
    public var error: Failure?
    /// For an `ok` answer that lacks a part (an auxiliary call failed): what is missing and why. Absent when whole.
    public var gaps: [Failure]?

    /// A source line; an empty `gaps` is stored as `nil`, so a whole answer encodes no `gaps` member.
    public init(
        connection: String,
        broker: BrokerKind,
        status: State,
        latencyMs: Int,
        asOf: Date,
        served: ReadService? = nil,
        error: Failure? = nil,
        gaps: [Failure]? = nil
    ) {
        self.connection = connection
        self.broker = broker
        self.status = status
        self.latencyMs = latencyMs
        self.asOf = asOf
        self.served = served
        self.error = error
        self.gaps = gaps?.isEmpty == true ? nil : gaps
    }
}

/// The answer to a fan-out read: everything that arrived in time, and a line per source.
public struct FanOut<Item: Sendable>: Sendable {
    /// Every item that arrived in time, grouped by connection in the order the connections were given.
    public var data: [Item]
    /// One line per connection asked, in the same order, failed ones included.
    public var sources: [SourceReport]
    /// True when any source failed or timed out, or answered without a part of its read (`gaps`).
    public var partial: Bool { sources.contains { $0.status == .error || $0.gaps != nil } }

    /// A fan-out's answer; `partial` is derived from `sources`, never set.
    public init(data: [Item], sources: [SourceReport]) {
        self.data = data
        self.sources = sources
    }
}

/// Fans a read out to many connections at once and answers with what it has.
///
/// One child task per connection, each returning a `Result` (children never throw); results come back in the order
/// the connections were given, whatever order they finished in. Cancelling the calling task (the client went away)
/// cancels every child.
///
/// Every source has one deadline and one timer: the child's ``withDeadline(_:clock:_:)``, the earlier of the
/// per-source bound and what is left of the overall one, counted from when the child starts running. It is bound as
/// ``DeadlineScope/current`` and marked watched, so the pipeline paces and retries within it and the transport hands
/// it to AsyncHTTPClient, neither with a timer of its own; work that is not an HTTP exchange (a rate-limit wait, a
/// token refresh) ends on time by the timer's cancellation.
///
/// The deadline counts from the child's start, not the read's, on purpose: on a machine so busy that a child is not
/// scheduled for a while, the wait for a thread is the gateway's, not the broker's, and is not reported as the
/// broker's timeout.
public struct BrokerRouter: Sendable {
    /// How long one connection may take.
    public var perSourceTimeout: Duration
    /// How long the whole read may take; no source is waited for past it.
    public var overallTimeout: Duration

    /// A router with the given bounds (5 s per connection, 8 s overall by default); a connection that starts late
    /// gets only what is left of the overall bound.
    public init(perSourceTimeout: Duration = .seconds(5), overallTimeout: Duration = .seconds(8)) {
        self.perSourceTimeout = perSourceTimeout
        self.overallTimeout = overallTimeout
    }

    /// Fans out a read whose every answer is fresh (asked of the broker by this read).
    public func fanOut<Source: Sendable, Item: Sendable>(
        _ sources: [Source],
        describe: @escaping @Sendable (Source) -> (connection: String, broker: BrokerKind),
        _ read: @escaping @Sendable (Source) async throws -> [Item]
    ) async -> FanOut<Item> {
        await fanOutAnswers(sources, describe: describe) { source in
            let (items, gaps) = try await ReadGaps.collecting { try await read(source) }
            return SourceAnswer(items: items, asOf: Date(), served: .fresh, gaps: gaps)
        }
    }

    /// Fans out a read whose answers may be shared or cached: each says when it was the broker's answer.
    public func fanOutAnswers<Source: Sendable, Item: Sendable>(
        _ sources: [Source],
        describe: @escaping @Sendable (Source) -> (connection: String, broker: BrokerKind),
        _ read: @escaping @Sendable (Source) async throws -> SourceAnswer<Item>
    ) async -> FanOut<Item> {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + overallTimeout
        let results = await withTaskGroup(of: (Int, Result<SourceAnswer<Item>, GatewayError>, Duration).self) { group in
            for (index, source) in sources.enumerated() {
                let budget = min(perSourceTimeout, deadline - clock.now)
                group.addTask {
                    let began = clock.now
                    do {
                        let answer = try await withDeadline(max(budget, .zero)) { try await read(source) }
                        return (index, .success(answer), clock.now - began)
                    } catch {
                        return (index, .failure(Self.gatewayError(error, budget: budget)), clock.now - began)
                    }
                }
            }
            var collected = [(Result<SourceAnswer<Item>, GatewayError>, Duration)?](repeating: nil, count: sources.count)
            for await (index, result, latency) in group { collected[index] = (result, latency) }
            return collected
        }
        var data: [Item] = []
        var reports: [SourceReport] = []
        let now = Date()
        for (index, source) in sources.enumerated() {
            let (connection, broker) = describe(source)
            let (result, latency) = results[index] ?? (.failure(GatewayError(.upstreamTimeout, "no answer")), .zero)
            let latencyMs = Int(latency.milliseconds.rounded())
            switch result {
            case .success(let answer):
                data.append(contentsOf: answer.items)
                reports.append(
                    SourceReport(
                        connection: connection,
                        broker: broker,
                        status: .ok,
                        latencyMs: latencyMs,
                        asOf: answer.asOf,
                        served: answer.served,
                        gaps: answer.gaps
                    )
                )
            case .failure(let error):
                reports.append(
                    SourceReport(
                        connection: connection,
                        broker: broker,
                        status: .error,
                        latencyMs: latencyMs,
                        asOf: now,
                        error: SourceReport.Failure(error)
                    )
                )
            }
        }
        return FanOut(data: data, sources: reports)
    }

    /// Any error as the `GatewayError` a status line reports.
    public static func gatewayErrorForReport(_ error: any Error) -> GatewayError {
        gatewayError(error, budget: .zero)
    }

    static func gatewayError(_ error: any Error, budget: Duration) -> GatewayError {
        switch error {
        case let error as GatewayError: error
        case is CancellationError: GatewayError(.upstreamTimeout, "cancelled before an answer came")
        case is DecodingError: GatewayError(.malformedResponse, "the broker's answer could not be read")
        default: GatewayError(.internalError, "unexpected failure: \(type(of: error))")
        }
    }
}
