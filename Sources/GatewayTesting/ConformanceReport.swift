public import GatewayModel

/// One check of a ``ConformanceSuite`` run: what was checked, whether the adapter passed, and why.
public struct ConformanceCheck: Sendable, Hashable, CustomStringConvertible {
    /// The check's stable name, such as `accounts`, `unsupported: candles`, `errors: HTTP 503 → upstream_unavailable`
    /// or `egress: refused` (``ConformanceSuite`` lists them all).
    public var name: String
    /// Whether the adapter did what the gateway's contract asks.
    public var passed: Bool
    /// What was seen: on a failure what was wrong, on a pass what was checked (or why nothing could be, starting
    /// `not exercised:`).
    public var reason: String
    /// How long the check took, the adapter's calls and the simulator's administration together.
    public var duration: Duration

    /// A verdict on one check.
    public init(name: String, passed: Bool, reason: String, duration: Duration = .zero) {
        self.name = name
        self.passed = passed
        self.reason = reason
        self.duration = duration
    }

    /// `PASS name (12 ms): reason` or `FAIL name (12 ms): reason`, one line.
    public var description: String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return "\(passed ? "PASS" : "FAIL") \(name) (\(milliseconds) ms): \(reason)"
    }
}

/// What a ``ConformanceSuite`` run found: every check in the order it ran. An author asserts on it
/// (`#expect(report.passed, "\(report)")`) or calls ``requireAllPassed()``.
public struct ConformanceReport: Sendable, CustomStringConvertible {
    /// The kind of the factory the suite ran against.
    public var broker: BrokerKind
    /// Every check, in the order it ran.
    public var checks: [ConformanceCheck]

    /// A report of `checks` for `broker`.
    public init(broker: BrokerKind, checks: [ConformanceCheck]) {
        self.broker = broker
        self.checks = checks
    }

    /// The checks that failed, in order.
    public var failures: [ConformanceCheck] { checks.filter { !$0.passed } }
    /// Whether every check passed (and there was at least one).
    public var passed: Bool { !checks.isEmpty && failures.isEmpty }

    /// The check of that name, if it ran.
    public func check(named name: String) -> ConformanceCheck? { checks.first { $0.name == name } }

    /// Throws ``ConformanceFailure`` listing every failing check unless all passed: one line in a test,
    /// `try await ConformanceSuite(...).run().requireAllPassed()`, and the test's failure names each check.
    public func requireAllPassed() throws(ConformanceFailure) {
        guard passed else { throw ConformanceFailure(report: self) }
    }

    /// A summary line, then one line per check.
    public var description: String {
        let summary = "\(broker) conformance: \(checks.count - failures.count) of \(checks.count) checks passed"
        return ([summary] + checks.map { "  \($0)" }).joined(separator: "\n")
    }
}

/// A conformance run with failing checks (or none at all), as ``ConformanceReport/requireAllPassed()`` throws it.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// The whole report, passing checks included.
    public var report: ConformanceReport

    /// A failure of `report`.
    public init(report: ConformanceReport) { self.report = report }

    /// Every failing check, one a line, under a line naming the broker and the count.
    public var description: String {
        let failures = report.failures
        if report.checks.isEmpty { return "\(report.broker) conformance: no check ran" }
        let head = "\(report.broker) conformance: \(failures.count) of \(report.checks.count) checks failed"
        return ([head] + failures.map { "  \($0)" }).joined(separator: "\n")
    }
}
