import AsyncHTTPClient
import Foundation
import Sandbox
import Testing

@testable import SandboxKit

@Suite("Fault injection")
struct FaultInjectionTests {
    static let marketBuy = #"{"symbol":"AAPL","qty":1,"side":"buy","type":"market","time_in_force":"day","client_order_id":"faulted"}"#

    @Test("an error rule answers its status with the broker's body for the next N matching requests")
    func errorRule() async throws {
        let faults = FaultInjector(rules: [FaultRule(.error(status: 503), method: "GET", pathPrefix: "/v2/account", count: 2)])
        try await withAlpaca(faults: faults) { client, _, _ async throws in
            for _ in 0..<2 {
                let reply = try await client.get("/v2/account")
                #expect(reply.status == 503)
                #expect(reply.text == #"{"code":50310000,"message":"service unavailable"}"#)
            }
            #expect(try await client.get("/v2/account").status == 200)
            #expect(faults.rules.isEmpty, "an exhausted rule disappears")
        }
    }

    @Test("rules are scoped by method and path prefix")
    func scoping() async throws {
        let faults = FaultInjector(rules: [FaultRule(.error(status: 500, body: "boom"), method: "POST", pathPrefix: "/v2/orders")])
        try await withAlpaca(faults: faults) { client, _, _ async throws in
            #expect(try await client.get("/v2/orders").status == 200)
            #expect(try await client.get("/v2/account").status == 200)
            let reply = try await client.post("/v2/orders", Self.marketBuy)
            #expect(reply.status == 500)
            #expect(reply.text == "boom")
            #expect(try await client.get("/v2/orders?status=all").array.isEmpty, "the handler did not run")
        }
    }

    @Test("a 429 burst: the next N requests are rate limited, then service resumes")
    func tooManyRequestsBurst() async throws {
        let faults = FaultInjector(rules: [FaultRule(.tooManyRequests(retryAfterSeconds: 1), count: 3)])
        try await withAlpaca(faults: faults) { client, _, _ async throws in
            for _ in 0..<3 {
                let reply = try await client.get("/v2/clock")
                #expect(reply.status == 429)
                #expect(reply.text == #"{"code":42910000,"message":"rate limit exceeded"}"#)
                #expect(reply.header("Retry-After") == "1")
                #expect(reply.header("X-RateLimit-Remaining") == "0")
            }
            #expect(try await client.get("/v2/clock").status == 200)
        }
    }

    @Test("latency delays the answer but not the outcome")
    func latency() async throws {
        let faults = FaultInjector(rules: [FaultRule(.latency(milliseconds: 150), pathPrefix: "/v2/clock", count: 1)])
        try await withAlpaca(faults: faults) { client, _, _ async throws in
            let clock = ContinuousClock()
            let start = clock.now
            #expect(try await client.get("/v2/clock").status == 200)
            #expect(clock.now - start >= .milliseconds(150))
            #expect(faults.rules.isEmpty)
        }
    }

    @Test("a dropped response: the client sees a failure, but the order exists afterwards")
    func droppedResponse() async throws {
        let faults = FaultInjector(rules: [FaultRule(.dropResponse, method: "POST", pathPrefix: "/v2/orders", count: 1)])
        try await withAlpaca(faults: faults) { client, _, _ async throws in
            await #expect(throws: (any Error).self) { try await client.post("/v2/orders", Self.marketBuy) }
            let order = try await client.get("/v2/orders:by_client_order_id?client_order_id=faulted")
            #expect(order.status == 200)
            #expect(order.object["status"] as? String == "filled")
            // The safe retry with the same client_order_id is refused as a duplicate.
            #expect(try await client.post("/v2/orders", Self.marketBuy).status == 422)
        }
    }

    @Test("a timeout holds the request until the client gives up; with afterEffect the action still happens")
    func timeouts() async throws {
        let faults = FaultInjector(rules: [
            FaultRule(.timeout(), method: "POST", pathPrefix: "/v2/orders", count: 1),
            FaultRule(.timeout(afterEffect: true), method: "POST", pathPrefix: "/v2/orders", count: 1),
        ])
        try await withAlpaca(faults: faults) { client, _, _ async throws in
            let clock = ContinuousClock()
            let start = clock.now
            await #expect(throws: HTTPClientError.self) {
                try await client.send("POST", "/v2/orders", body: Self.marketBuy, timeout: .milliseconds(300))
            }
            #expect(clock.now - start >= .milliseconds(300))
            #expect(try await client.get("/v2/orders?status=all").array.isEmpty, "a plain timeout never ran the handler")

            await #expect(throws: HTTPClientError.self) {
                try await client.send("POST", "/v2/orders", body: Self.marketBuy, timeout: .milliseconds(300))
            }
            #expect(try await client.get("/v2/orders?status=all").array.count == 1, "afterEffect ran the handler")
        }
    }

    @Test("a held request ends when the server shuts down, without waiting for the client to give up")
    func holdEndsOnShutdown() async throws {
        let faults = FaultInjector(rules: [FaultRule(.timeout(), pathPrefix: "/v2/clock")], timeoutHoldLimit: .seconds(600))
        let market = MarketEngine(clock: ManualClock())
        let (urls, found) = AsyncStream.makeStream(of: URL.self)
        let firings = faults.firings()
        let clock = ContinuousClock()
        let elapsed = try await withThrowingTaskGroup(of: Duration?.self) { group in
            group.addTask {
                try await withSandbox(AlpacaSandbox(market: market, faults: faults)) { url in
                    found.yield(url)
                    found.finish()
                    // Leave the scope (shutting the server down) once the request is being held.
                    for await _ in firings { break }
                }
                return nil
            }
            group.addTask {
                var iterator = urls.makeAsyncIterator()
                guard let url = await iterator.next() else { return nil }
                let start = clock.now
                _ = try? await TestClient(base: url).send("GET", "/v2/clock", timeout: .seconds(60))
                return clock.now - start
            }
            var result: Duration?
            for try await value in group { result = result ?? value }
            return result
        }
        let held = try #require(elapsed)
        #expect(held < .seconds(30), "the client waited \(held)")
    }

    @Test("malformed and truncated bodies keep the status but break the JSON")
    func corruptedBodies() async throws {
        let faults = FaultInjector(rules: [
            FaultRule(.malformedBody, pathPrefix: "/v2/account", count: 1),
            FaultRule(.truncatedBody, pathPrefix: "/v2/account", count: 1),
        ])
        try await withAlpaca(faults: faults) { client, _, _ async throws in
            let malformed = try await client.get("/v2/account")
            #expect(malformed.status == 200)
            #expect(malformed.json == nil)
            let truncated = try await client.get("/v2/account")
            #expect(truncated.status == 200)
            #expect(truncated.json == nil)
            let whole = try await client.get("/v2/account")
            #expect(whole.text.hasPrefix(truncated.text))
            #expect(truncated.text.count < whole.text.count)
        }
    }

    @Test("probabilistic rules fire the same way for the same seed")
    func seededProbability() {
        func pattern(seed: UInt64) -> [Bool] {
            let injector = FaultInjector(seed: seed, rules: [FaultRule(.error(status: 500), probability: 0.3)])
            return (0..<200).map { _ in injector.decide(method: "GET", path: "/v2/account").fault != nil }
        }
        let first = pattern(seed: 11)
        #expect(first == pattern(seed: 11))
        #expect(first != pattern(seed: 12))
        let rate = Double(first.filter { $0 }.count) / Double(first.count)
        #expect(rate > 0.15 && rate < 0.45)
    }

    @Test("admin endpoints configure faults, prices and the manual clock at runtime")
    func adminEndpoints() async throws {
        try await withAlpaca { client, sandbox, clock async throws in
            let put = try await client.put(
                "/_sandbox/faults",
                #"{"seed":5,"rules":[{"kind":"error","status":502,"method":"get","pathPrefix":"/v2/positions","count":1},{"kind":"latency","latencyMs":1}]}"#
            )
            #expect(put.status == 200)
            #expect((put.object["rules"] as? [[String: Any]])?.count == 2)
            #expect(put.object["seed"] as? Int == 5)
            #expect(try await client.get("/v2/positions").status == 502)
            #expect(try await client.get("/v2/positions").status == 200)
            let added = try await client.post("/_sandbox/faults", #"{"kind":"dropResponse","pathPrefix":"/v2/orders","probability":0}"#)
            #expect(added.status == 201)
            let id = try #require(added.object["id"] as? String)
            #expect(try await client.get("/_sandbox/faults").object["rules"].map { ($0 as? [Any])?.count } == 2)
            #expect(try await client.delete("/_sandbox/faults/\(id)").status == 204)
            #expect(try await client.delete("/_sandbox/faults").status == 204)
            #expect(sandbox.faults.rules.isEmpty)
            for bad in [
                #"{"kind":"teleport"}"#, #"{"kind":"error","status":200}"#, #"{"kind":"latency"}"#, #"{"kind":"error","probability":2}"#, "nope",
            ] {
                let reply = try await client.post("/_sandbox/faults", bad)
                #expect(reply.status == 400, "\(bad)")
                #expect((reply.object["error"] as? [String: Any])?["code"] as? String == "invalid_request")
            }

            let pinned = try await client.put("/_sandbox/prices/BTC-USD", #"{"price":"50000"}"#)
            #expect(pinned.status == 200)
            #expect(pinned.object["last"] as? String == "50000")
            #expect(try await client.get("/_sandbox/prices/BTC/USD").object["overridden"] as? Bool == true)
            #expect(sandbox.market.quote(symbol: "BTC/USD")?.last == 50_000)
            #expect(try await client.delete("/_sandbox/prices/BTC%2FUSD").status == 204)
            #expect(sandbox.market.priceOverride(for: "BTC/USD") == nil)
            #expect(try await client.put("/_sandbox/prices/AAPL", #"{"price":"-1"}"#).status == 400)
            #expect(try await client.get("/_sandbox/prices/NOPE").status == 404)
            #expect(try await client.get("/_sandbox/prices").array.count == InstrumentCatalogue.standard.count)

            // Depth at the touch: unlimited until set; fills take from it; bad quantities and symbols are refused.
            #expect(try await client.get("/_sandbox/depth/AAPL").object["quantity"] is NSNull)
            let limited = try await client.put("/_sandbox/depth/AAPL", #"{"quantity":"3"}"#)
            #expect(limited.status == 200)
            #expect(limited.object["quantity"] as? String == "3")
            #expect(sandbox.market.take(upTo: 2, of: "AAPL") == 2)
            #expect(sandbox.market.take(upTo: 2, of: "AAPL") == 1)
            #expect(sandbox.market.take(upTo: 2, of: "AAPL") == 0)
            #expect(try await client.get("/_sandbox/depth/AAPL").object["quantity"] as? String == "0")
            #expect(sandbox.market.take(upTo: 5, of: "MSFT") == 5)
            #expect(try await client.put("/_sandbox/depth/AAPL", #"{"quantity":"-1"}"#).status == 400)
            #expect(try await client.put("/_sandbox/depth/AAPL", #"{"qty":"1"}"#).status == 400)
            #expect(try await client.put("/_sandbox/depth/NOPE", #"{"quantity":"1"}"#).status == 404)
            #expect(try await client.delete("/_sandbox/depth/AAPL").status == 204)
            #expect(sandbox.market.depth(for: "AAPL") == nil)
            #expect(sandbox.market.take(upTo: 7, of: "AAPL") == 7)

            let before = clock.now()
            let advanced = try await client.post("/_sandbox/clock/advance", #"{"seconds":90}"#)
            #expect(advanced.status == 200)
            #expect(clock.now() == before.addingTimeInterval(90))
            #expect(advanced.object["now"] as? String == Timestamp.format(clock.now()))
        }
        try await withSandbox(AlpacaSandbox()) { url in
            let reply = try await TestClient(base: url).post("/_sandbox/clock/advance", #"{"seconds":1}"#)
            #expect(reply.status == 409)
        }
    }
}
