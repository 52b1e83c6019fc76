import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
import Synchronization

/// The error checks (bad credentials, an unknown order, injected broker failures) and the egress check.
extension ConformanceRun {
    /// A read the fault and egress checks make.
    typealias Probe = (name: String, call: @Sendable (any BrokerAdapter) async throws -> Void)

    /// The reads the fault and egress checks make, in this order, of those the factory declares. A read an adapter
    /// answers without calling the broker (accounts it keeps from the link) proves nothing, so the checks go on to
    /// the next until one reaches the simulator (a fault rule counts what it receives).
    var probes: [Probe] {
        let instrument = target.instrument
        let reads: [(BrokerOperation, @Sendable (any BrokerAdapter) async throws -> Void)] = [
            (.balances, { _ = try await $0.balances(accountId: nil) }),
            (.positions, { _ = try await $0.positions(accountId: nil) }),
            (.orders, { _ = try await $0.orders(OrderQuery()) }),
            (.quotes, { _ = try await $0.quotes([instrument]) }),
            (.accounts, { _ = try await $0.accounts() }),
            (.clients, { _ = try await $0.clients() }),
        ]
        return reads.filter { declares($0.0) }.map { (name: $0.0.rawValue, call: $0.1) }
    }

    /// Under the fault rule `members` (named `id`), makes each probe until one reaches the simulator: that probe, its
    /// outcome and how long it took; `nil` when none did.
    func probing(
        _ adapter: any BrokerAdapter,
        rule members: String,
        id: String,
        around: (() -> Void, () -> Void) = ({}, {})
    ) async throws -> (probe: Probe, outcome: Result<Void, any Error>, elapsed: Duration)? {
        for probe in probes {
            try await simulator.addFault(members, id: id)
            around.0()
            let started = ContinuousClock.now
            let outcome: Result<Void, any Error>
            do {
                try await call { try await probe.call(adapter) }
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            let elapsed = ContinuousClock.now - started
            around.1()
            let reached = try await simulator.fired(id: id)
            try? await simulator.removeFault(id: id)
            // Answered without calling the broker: this read proves nothing about the fault.
            if case .success = outcome, reached == 0 { continue }
            return (probe, outcome, elapsed)
        }
        return nil
    }

    func errorChecks(_ adapter: any BrokerAdapter) async {
        await check("errors.unauthorized") {
            let refused = try makeAdapter(transport: transport, credentials: target.badCredentials, saves: false)
            do {
                try await call { try await refused.validateCredentials() }
            } catch let error as GatewayError {
                try expect(error.code == .unauthorized, "bad credentials failed \(error.code) (\(error.message)), not unauthorized")
                try expect(!error.retryable, "bad credentials failed unauthorized marked retryable")
                return "bad credentials fail validation with unauthorized"
            }
            throw ConformanceProblem("the target's badCredentials validated: the broker must refuse them with unauthorized")
        }
        guard declares(.order) else { return }
        let unknown = target.unknownOrderId
        await check("errors.notFound") {
            do {
                let order = try await call { try await adapter.order(brokerOrderId: unknown) }
                throw ConformanceProblem("order(brokerOrderId: \(unknown)) answered an order (\(order.status.rawValue)) instead of not_found")
            } catch let error as GatewayError {
                try expect(error.code == .notFound, "an unknown order id failed \(error.code) (\(error.message)), not not_found")
                return "an unknown order id answers not_found"
            }
        }
    }

    func faultChecks(_ adapter: any BrokerAdapter) async {
        // Each rule's members besides its id (SandboxAdmin's rule format); no path or method: every broker call.
        let faults: [(name: String, rule: String, code: GatewayError.Code, what: String)] = [
            ("errors.http500", #""kind":"error","status":500"#, .upstreamUnavailable, "HTTP 500"),
            ("errors.http503", #""kind":"error","status":503"#, .upstreamUnavailable, "HTTP 503"),
            ("errors.http429", #""kind":"tooManyRequests","retryAfterSeconds":1"#, .rateLimited, "HTTP 429"),
            ("errors.timeout", #""kind":"timeout""#, .upstreamTimeout, "no answer"),
        ]
        for fault in faults {
            await check(fault.name) {
                let id = "conformance-\(fault.name)-\(UUID().uuidString.prefix(8).lowercased())"
                let timed = fault.code == .upstreamTimeout
                let deadline = suite.slowAnswerDeadline
                let cap = transport
                let around: (() -> Void, () -> Void) =
                    timed ? ({ cap.cap.withLock { $0 = deadline } }, { cap.cap.withLock { $0 = nil } }) : ({}, {})
                guard let (probe, outcome, elapsed) = try await probing(adapter, rule: fault.rule, id: id, around: around) else {
                    throw ConformanceProblem("none of the declared reads (\(probes.map(\.name))) called the broker")
                }
                switch outcome {
                case .success:
                    throw ConformanceProblem("\(probe.name) answered while the simulator answered every call with \(fault.what)")
                case .failure(let error as GatewayError):
                    try expect(
                        error.code == fault.code,
                        "\(probe.name) failed \(error.code) (\(error.message)) when the broker gave \(fault.what), not \(fault.code)"
                    )
                    try expect(error.retryable, "\(probe.name) failed \(error.code) marked not retryable")
                    if timed {
                        try expect(
                            elapsed < deadline + ConformanceSuite.slowAnswerGrace,
                            "\(probe.name) took \(elapsed) to give up on a broker that did not answer, with a \(deadline) deadline"
                        )
                    }
                    return "\(probe.name) fails \(error.code) when the broker gives \(fault.what)" + (timed ? " (after \(elapsed))" : "")
                case .failure(let error):
                    throw error
                }
            }
        }
    }

    func egressCheck() async {
        await check("egress.refused") {
            // A rule that delays nothing but counts every broker call the simulator receives.
            let id = "conformance-egress-\(UUID().uuidString.prefix(8).lowercased())"
            let refusing = HTTPClientTransport(policy: suite.refusingEgress)
            let adapter = try makeAdapter(transport: refusing, credentials: credentials.current, saves: false)
            for probe in probes {
                try await simulator.addFault(#""kind":"latency","latencyMs":0"#, id: id)
                let outcome: Result<Void, any Error>
                do {
                    try await call { try await probe.call(adapter) }
                    outcome = .success(())
                } catch {
                    outcome = .failure(error)
                }
                let reached = try await simulator.fired(id: id)
                try? await simulator.removeFault(id: id)
                try expect(reached == 0, "the simulator received \(reached) call(s) of \(probe.name) under an egress policy that refuses it")
                switch outcome {
                case .success:
                    continue  // answered from what the adapter holds, without a call
                case .failure(let error as GatewayError):
                    try expect(error.code == .egressRefused, "\(probe.name) failed \(error.code) (\(error.message)), not egress_refused")
                    try expect(!error.retryable, "egress_refused marked retryable")
                    return "\(probe.name) fails egress_refused and the simulator received no call"
                case .failure(let error):
                    throw error
                }
            }
            throw ConformanceProblem(
                "every declared read (\(probes.map(\.name))) answered under an egress policy that refuses the simulator, without calling it"
            )
        }
    }
}
/// The simulator's `/_sandbox/faults` admin API (SandboxKit's `SandboxAdmin`), over the suite's own transport.
struct SimulatorAdmin: Sendable {
    let url: String
    let transport: any BrokerTransport

    /// Adds a rule of `members` (JSON object members, without braces) under `id` (letters, digits, `-`, `.`).
    func addFault(_ members: String, id: String) async throws {
        let body = Data("{\"id\":\"\(id)\",\(members)}".utf8)
        let response = try await send(.post, "/_sandbox/faults", body: body)
        try expect(response.status == 201, "the simulator refused a fault rule at \(url)/_sandbox/faults (HTTP \(response.status))")
    }

    func removeFault(id: String) async throws {
        _ = try await send(.delete, "/_sandbox/faults/\(id)")
    }

    /// How many requests the rule has fired on.
    func fired(id: String) async throws -> Int {
        let response = try await send(.get, "/_sandbox/faults")
        let state = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        let rules = state?["rules"] as? [[String: Any]] ?? []
        guard let rule = rules.first(where: { $0["id"] as? String == id }), let fired = rule["fired"] as? Int else {
            throw ConformanceProblem("the simulator at \(url) no longer lists fault rule \(id)")
        }
        return fired
    }

    func send(_ method: HTTPRequest.Method, _ path: String, body: Data? = nil) async throws -> BrokerResponse {
        var headers = HTTPFields()
        if body != nil { headers[.contentType] = "application/json" }
        do {
            return try await transport.send(BrokerRequest(method: method, url: url + path, headers: headers, body: body))
        } catch {
            throw ConformanceProblem("the simulator's admin API at \(url)/_sandbox cannot be reached: \(ConformanceRun.describe(error))")
        }
    }
}
