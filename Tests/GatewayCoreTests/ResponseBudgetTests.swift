import Foundation
import GatewayModel
import HTTPTypes
import HostileBroker
import Testing

@testable import GatewayCore

/// The process-wide budget of broker answer bytes in flight, against the real transport and a broker that sends
/// more than anyone asked for: many calls at once never hold more than the budget, a call past it fails at once with
/// the budget's retryable refusal, and every byte is given back when the calls end.
@Suite("Egress: the response budget")
struct ResponseBudgetTests {
    static let loopback = EgressPolicy(allowing: ["127.0.0.0/8", "::1"].compactMap(IPRange.init))
    static let mebibyte = 1024 * 1024
    static let chunk = [UInt8](repeating: 0x20, count: 64 * 1024)

    static func get(_ url: String, maxResponseBytes: Int = BrokerRequest.defaultMaxResponseBytes, timeout: Duration = .seconds(20)) -> BrokerRequest {
        BrokerRequest(method: .get, url: url, timeout: timeout, maxResponseBytes: maxResponseBytes, loggedPath: "GET /v2/positions")
    }

    /// Each call's outcome: the body's size, or the error.
    static func sendAll(_ count: Int, _ transport: HTTPClientTransport, _ request: BrokerRequest) async -> [Result<Int, GatewayError>] {
        await withTaskGroup(of: Result<Int, GatewayError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        return .success(try await transport.send(request).body.count)
                    } catch let error as GatewayError {
                        return .failure(error)
                    } catch {
                        return .failure(GatewayError(.internalError, "not a GatewayError: \(error)"))
                    }
                }
            }
            var outcomes: [Result<Int, GatewayError>] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }

    static func refusals(_ outcomes: [Result<Int, GatewayError>]) -> [GatewayError] {
        outcomes.compactMap { outcome -> GatewayError? in
            guard case .failure(let error) = outcome, ResponseBudget.isRefusal(error) else { return nil }
            return error
        }
    }

    @Test("the accountant: bytes fit under the limit or are refused whole, are given back once, and the high-water mark stays")
    func accounting() throws {
        let budget = ResponseBudget(limit: 100)
        let first = budget.reservation()
        try first.take(60, host: "h")
        let second = budget.reservation()
        #expect(throws: GatewayError.self) { try second.take(41, host: "h") }
        try second.take(40, host: "h")
        #expect(budget.inFlight == 100 && budget.highWater == 100)
        first.end()
        first.end()
        #expect(budget.inFlight == 40)
        second.end()
        #expect(budget.inFlight == 0 && budget.highWater == 100)

        let refusal = ResponseBudget.refusal(limit: 100, host: "broker.example")
        #expect(refusal.code == .upstreamUnavailable && refusal.retryable && refusal.retryAfter == 1)
        #expect(ResponseBudget.isRefusal(refusal))
        #expect(!ResponseBudget.isRefusal(GatewayError(.upstreamUnavailable, "broker.example could not be reached")))
    }

    @Test(
        "twenty calls of 2 MiB answers under a 4 MiB budget: never more than 4 MiB held; each call gets its whole answer or the refusal; 0 held after"
    )
    func finiteAnswers() async throws {
        let budget = ResponseBudget(limit: 4 * Self.mebibyte)
        try await HostileBroker.withBroker({ _ in
            .streamed(status: 200, headers: [("Content-Type", "application/json")], chunk: Self.chunk, count: 32)
        }) { broker in
            let transport = HTTPClientTransport(policy: Self.loopback, responseBudget: budget)
            let outcomes = await Self.sendAll(20, transport, Self.get(broker.url + "/v2/positions"))
            #expect(outcomes.count == 20)
            for outcome in outcomes {
                switch outcome {
                case .success(let size): #expect(size == 2 * Self.mebibyte)
                case .failure(let error): #expect(ResponseBudget.isRefusal(error), "\(error)")
                }
            }
        }
        #expect(budget.highWater <= 4 * Self.mebibyte)
        #expect(budget.highWater > 0)
        #expect(budget.inFlight == 0)
    }

    @Test("answers that stall after 1.5 MiB: at most two can hold their share, so at least eighteen of twenty are refused at once")
    func stalledAnswers() async throws {
        let budget = ResponseBudget(limit: 4 * Self.mebibyte)
        let body = [UInt8](repeating: 0x20, count: 2 * Self.mebibyte)
        try await HostileBroker.withBroker({ _ in
            .stalledBody(status: 200, headers: [("Content-Type", "application/json")], body: body, sent: 3 * Self.mebibyte / 2)
        }) { broker in
            let transport = HTTPClientTransport(policy: Self.loopback, responseBudget: budget)
            // The two calls holding their share end at their deadline: long enough that on a busy machine every other
            // call has met the budget (and been refused) before then.
            let outcomes = await Self.sendAll(20, transport, Self.get(broker.url + "/v2/positions", timeout: .seconds(30)))
            let refused = Self.refusals(outcomes)
            #expect(refused.count >= 18, "\(outcomes)")
            for outcome in outcomes {
                guard case .failure(let error) = outcome else {
                    Issue.record("a stalled answer cannot succeed")
                    continue
                }
                #expect(ResponseBudget.isRefusal(error) || error.code == .upstreamTimeout, "\(error)")
            }
            #expect(refused.allSatisfy { $0.retryable && $0.retryAfter == 1 && $0.message.contains("4194304 bytes") })
        }
        #expect(budget.highWater <= 4 * Self.mebibyte)
        #expect(budget.inFlight == 0)
    }

    @Test("endless answers: every call ends, refused by the budget or at its own cap (malformed_response), and 0 is held after")
    func endlessAnswers() async throws {
        let budget = ResponseBudget(limit: 4 * Self.mebibyte)
        try await HostileBroker.withBroker({ _ in .streamed(status: 200, headers: [], chunk: Self.chunk, count: nil) }) { broker in
            let transport = HTTPClientTransport(policy: Self.loopback, responseBudget: budget)
            let outcomes = await Self.sendAll(
                20,
                transport,
                Self.get(broker.url + "/v2/positions", maxResponseBytes: 3 * Self.mebibyte)
            )
            #expect(outcomes.count == 20)
            for outcome in outcomes {
                guard case .failure(let error) = outcome else {
                    Issue.record("an endless answer cannot succeed")
                    continue
                }
                #expect(ResponseBudget.isRefusal(error) || error.code == .malformedResponse, "\(error)")
            }
            #expect(!Self.refusals(outcomes).isEmpty)
        }
        #expect(budget.highWater <= 4 * Self.mebibyte)
        #expect(budget.inFlight == 0)
    }

    @Test("a call's own cap refuses a larger answer as malformed_response, chunked or declared, and gives its bytes back")
    func perCallCap() async throws {
        let budget = ResponseBudget(limit: 4 * Self.mebibyte)
        try await HostileBroker.withBroker({ request in
            request.path == "/chunked"
                ? .streamed(status: 200, headers: [], chunk: Self.chunk, count: 4)
                : .respond(status: 200, headers: [], body: [UInt8](repeating: 0x20, count: 256 * 1024))
        }) { broker in
            let transport = HTTPClientTransport(policy: Self.loopback, responseBudget: budget)
            for path in ["/chunked", "/declared"] {
                do {
                    _ = try await transport.send(Self.get(broker.url + path, maxResponseBytes: 128 * 1024))
                    Issue.record("\(path): a 256 KiB answer passed a 128 KiB cap")
                } catch let error as GatewayError {
                    #expect(error.code == .malformedResponse, "\(path): \(error)")
                }
            }
            let fits = try await transport.send(Self.get(broker.url + "/chunked", maxResponseBytes: 256 * 1024))
            #expect(fits.body.count == 256 * 1024)
        }
        #expect(budget.inFlight == 0)
    }
}
