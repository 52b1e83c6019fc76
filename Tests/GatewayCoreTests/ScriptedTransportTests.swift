import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import HTTPTypes
import Synchronization
import Testing

/// The shared broker double: the tests of every adapter and of the API lean on how it routes, queues and refuses.
@Suite("ScriptedTransport: routes, queues, what it saw, what it refuses")
struct ScriptedTransportTests {
    static func get(_ url: String) -> BrokerRequest { BrokerRequest(method: .get, url: url) }
    static func post(_ url: String) -> BrokerRequest { BrokerRequest(method: .post, url: url) }
    static func body(_ response: BrokerResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test("a route matches method and path after the base, the query ignored unless the route names one")
    func routing() async throws {
        let broker = ScriptedTransport(base: "https://venue.example/api/v1")
            .on("GET /markets", answers: [ScriptedTransport.text(200, "markets")])
            .on("POST /markets", answers: [ScriptedTransport.text(201, "posted")])
            .on("GET /ticker?market=XMR-BTC", answers: [ScriptedTransport.text(200, "xmr")])
            .on("/any", answers: [ScriptedTransport.text(200, "any method")])
        #expect(Self.body(try await broker.send(Self.get("https://venue.example/api/v1/markets?page=2"))) == "markets")
        #expect(try await broker.send(Self.post("https://venue.example/api/v1/markets")).status == 201)
        #expect(Self.body(try await broker.send(Self.get("https://venue.example/api/v1/ticker?market=XMR-BTC"))) == "xmr")
        #expect(Self.body(try await broker.send(Self.post("https://venue.example/api/v1/any"))) == "any method")
        let other = await #expect(throws: GatewayError.self) {
            try await broker.send(Self.get("https://venue.example/api/v1/ticker?market=ETH-BTC"))
        }
        #expect(other?.code == .internalError)
        #expect(other?.message.contains("GET https://venue.example/api/v1/ticker?market=ETH-BTC is not scripted") == true)
        #expect(broker.count == 5)
        #expect(broker.requests(path: "/markets").count == 2)
        #expect(broker.count(pathSuffix: "kets") == 2)
        #expect(broker.unscriptedRequests.map(\.url) == ["https://venue.example/api/v1/ticker?market=ETH-BTC"])
    }

    @Test("a queue answers in order, then repeats its last, gives a fixed answer, or refuses")
    func queues() async throws {
        let request = Self.get("https://broker.example/v2/account")
        let repeating = ScriptedTransport(answers: [ScriptedTransport.text(503), ScriptedTransport.text(200)], afterLast: .repeatLast)
        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(try await repeating.send(request).status) }
        #expect(statuses == [503, 200, 200])

        let recovering = ScriptedTransport(answers: [ScriptedTransport.text(503)], afterLast: .answer(ScriptedTransport.text(204)))
        statuses = []
        for _ in 0..<3 { statuses.append(try await recovering.send(request).status) }
        #expect(statuses == [503, 204, 204])

        let refused = Mutex<[String]>([])
        let once = ScriptedTransport(answers: [ScriptedTransport.text(200)], unscripted: .upstreamUnavailable)
            .onUnscripted { request in refused.withLock { $0.append(request.url) } }
        #expect(try await once.send(request).status == 200)
        let error = await #expect(throws: GatewayError.self) { try await once.send(request) }
        #expect(error?.code == .upstreamUnavailable)
        #expect(error?.message.contains("its scripted answers are used up") == true)
        #expect(refused.withLock { $0 } == [request.url])
    }

    @Test("a handler answers what no route does, numbered from 1; what it throws is the request's failure")
    func handlers() async throws {
        let broker = ScriptedTransport(numbered: { number, _ in
            guard number > 1 else { throw GatewayError(.upstreamTimeout, "slow") }
            return ScriptedTransport.text(200, "attempt \(number)")
        })
        .on("GET /v2/clock", answers: [ScriptedTransport.text(200, "clock")])
        let timeout = await #expect(throws: GatewayError.self) { try await broker.send(Self.get("https://b.example/v2/orders")) }
        #expect(timeout?.code == .upstreamTimeout)
        #expect(Self.body(try await broker.send(Self.get("https://b.example/v2/clock"))) == "clock")
        #expect(Self.body(try await broker.send(Self.get("https://b.example/v2/orders"))) == "attempt 3")
        #expect(broker.unscriptedRequests.isEmpty)
    }

    /// Lets its callers through once `parties` of them wait.
    final class Barrier: Sendable {
        private let state: Mutex<(waiting: Int, continuations: [CheckedContinuation<Void, Never>])>
        private let parties: Int
        init(_ parties: Int) {
            self.parties = parties
            state = Mutex((0, []))
        }
        func arrive() async {
            await withCheckedContinuation { continuation in
                let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    state.waiting += 1
                    state.continuations.append(continuation)
                    guard state.waiting >= parties else { return [] }
                    defer { state.continuations = [] }
                    return state.continuations
                }
                for waiter in released { waiter.resume() }
            }
        }
    }

    @Test("concurrent requests are all kept, and the most in flight at once is counted")
    func concurrency() async throws {
        let barrier = Barrier(3)
        let broker = ScriptedTransport { _ in
            await barrier.arrive()  // all three are in flight before any answers
            return ScriptedTransport.text(200)
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 { group.addTask { try await broker.send(Self.get("https://b.example/x")).status } }
            for try await status in group { #expect(status == 200) }
        }
        #expect(broker.count == 3)
        #expect(broker.maxInFlight == 3)
    }
}
