import Foundation
import GatewayCore
import GatewayModel
import Logging
import Synchronization

/// One run of a ``ConformanceSuite``: the adapter under test, what the checks learnt (the account, the placed order),
/// and the verdicts so far. Used by one task only.
final class ConformanceRun {
    let suite: ConformanceSuite
    let connection: ConnectionDescriptor
    let transport: CappedTransport
    /// The link's credentials as the adapter last saved them (a rotated refresh token replaces the target's).
    let credentials: CredentialStore
    let simulator: SimulatorAdmin
    private(set) var checks: [ConformanceCheck] = []

    var adapter: (any BrokerAdapter)?
    var accountIds: [String] = []
    var accountId: String?
    /// The resting order while it lives (placed, then as changed), for the later order checks and the cleanup.
    var live: Order?
    var placedClientOrderId: String?

    var kind: BrokerKind { suite.factory.kind }
    var capabilities: Capabilities { adapter?.capabilities ?? suite.factory.capabilities }
    var target: ConformanceTarget { suite.target }

    init(suite: ConformanceSuite) {
        self.suite = suite
        let now = Date()
        connection = ConnectionDescriptor(
            id: "conn_conformance",
            tenantId: "conformance",
            broker: suite.factory.kind,
            displayName: "conformance",
            baseURL: suite.target.baseURL,
            settings: suite.target.settings,
            createdAt: now,
            updatedAt: now
        )
        transport = CappedTransport(wrapping: HTTPClientTransport(policy: suite.egress))
        credentials = CredentialStore(suite.target.credentials)
        simulator = SimulatorAdmin(url: suite.target.simulatorURL, transport: HTTPClientTransport(policy: suite.egress))
    }

    // MARK: The run

    func all() async {
        await check("adapter") {
            let adapter = try self.makeAdapter(transport: self.transport, credentials: self.credentials.current)
            self.adapter = adapter
            try expect(adapter.kind == self.kind, "the adapter's kind is \(adapter.kind), its factory's \(self.kind)")
            return "made for \(self.kind)"
        }
        guard let adapter else { return }
        await check("validateCredentials") {
            try await self.call { try await adapter.validateCredentials() }
            return "the target's credentials validate"
        }
        await accountChecks(adapter)
        await marketDataChecks(adapter)
        await watchlistChecks(adapter)
        await orderChecks(adapter)
        await errorChecks(adapter)
        await faultChecks(adapter)
        await egressCheck()
    }

    /// Records the verdict of `body`: a pass with the reason it returns, or a failure with what it threw.
    func check(_ name: String, _ body: () async throws -> String) async {
        let started = ContinuousClock.now
        do {
            let reason = try await body()
            checks.append(ConformanceCheck(name: name, passed: true, reason: reason, duration: ContinuousClock.now - started))
        } catch {
            checks.append(ConformanceCheck(name: name, passed: false, reason: Self.describe(error), duration: ContinuousClock.now - started))
        }
    }

    /// A declared operation's check, or its `unsupported.` check when the factory does not declare it.
    func operation(
        _ operation: BrokerOperation,
        declared: () async throws -> String,
        undeclared: () async throws -> String
    ) async {
        if capabilities.support(for: operation) == .unsupported {
            await check("unsupported.\(operation.rawValue)", undeclared)
        } else {
            await check(operation.rawValue, declared)
        }
    }

    /// Whether the factory declares `operation` (supported or emulated).
    func declares(_ operation: BrokerOperation) -> Bool { capabilities.support(for: operation) != .unsupported }

    /// Runs one adapter call under ``ConformanceSuite/callTimeout``.
    func call<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withDeadline(suite.callTimeout, body)
    }

    /// Expects `body` to fail with `not_supported` (or one of `also`); an answer is a wrong answer.
    func expectRefusal<T: Sendable>(
        _ what: String,
        codes: [GatewayError.Code] = [.notSupported],
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> String {
        let answer: T
        do {
            answer = try await call(body)
        } catch let error as GatewayError {
            try expect(
                codes.contains(error.code),
                "\(what) is not declared, and failed \(error.code) (\(error.message)), not \(Self.names(codes))"
            )
            return "\(what) answers \(error.code)"
        }
        throw ConformanceProblem("\(what) is not declared, yet it answered (\(Self.brief(answer))) instead of \(Self.names(codes))")
    }

    func makeAdapter(
        transport: any BrokerTransport,
        credentials: BrokerCredentials,
        saves: Bool = true
    ) throws -> any BrokerAdapter {
        let store = self.credentials
        let context = AdapterContext(
            connection: connection,
            baseURL: target.baseURL,
            credentials: credentials,
            transport: transport,
            logger: suite.logger,
            saveCredentials: { rotated in if saves { store.replace(with: rotated) } }
        )
        return try suite.factory.makeAdapter(context)
    }

    // MARK: Describing

    static func describe(_ error: any Error) -> String {
        if let problem = error as? ConformanceProblem { return problem.description }
        if let error = error as? GatewayError { return "failed \(error.code): \(error.message)" }
        return "threw \(String(describing: type(of: error))), not a GatewayError: \(String(String(describing: error).prefix(300)))"
    }

    static func names(_ codes: [GatewayError.Code]) -> String { codes.map(\.rawValue).joined(separator: " or ") }

    static func brief(_ value: some Any) -> String { String(String(describing: value).prefix(200)) }
}

/// The link's credentials, replaced when the adapter rotates them (`saveCredentials`), as the gateway's store does.
final class CredentialStore: Sendable {
    private let value: Mutex<BrokerCredentials>
    init(_ credentials: BrokerCredentials) { value = Mutex(credentials) }
    var current: BrokerCredentials { value.withLock { $0 } }
    func replace(with credentials: BrokerCredentials) { value.withLock { $0 = credentials } }
}

/// Fails the check with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ConformanceProblem(message()) }
}

extension Decimal {
    /// Not NaN (Foundation's `Decimal` has no infinities).
    var isSane: Bool { !isNaN }
}
