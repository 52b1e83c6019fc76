import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
import Testing

@Suite("API: authentication and the fan-out envelope")
struct AuthAndEnvelopeTests {
    @Test func healthAndOpenAPINeedNoKey() async throws {
        try await APIHarness.with { _, client in
            let health = try await client.call(.get, "/healthz", headers: [:])
            #expect(health.status == 200)
            #expect(health.body["status"] as? String == "ok")
            let document = try await client.call(.get, "/openapi.json", headers: [:])
            #expect(document.status == 200)
            #expect(document.body["openapi"] as? String == "3.1.0")
        }
    }

    @Test(arguments: [[:], ["Authorization": "Bearer nope"], ["Authorization": "Basic abc"], ["Authorization": "Bearer bgw_x_y"]])
    func everyV1RouteWantsAValidKey(_ headers: [String: String]) async throws {
        try await APIHarness.with { _, client in
            var fields = HTTPFields()
            for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
            for path in ["/v1/brokers", "/v1/positions", "/v1/connections", "/v1/orders/x"] {
                let response = try await client.call(.get, path, headers: fields)
                #expect(response.status == 401, "\(path)")
                #expect(response.body.errorCode == "unauthorized")
                #expect(response.body.error?["requestId"] as? String != nil)
            }
        }
    }

    @Test func brokersListsKindsWithCapabilities() async throws {
        try await APIHarness.with { harness, client in
            let response = try await client.call(.get, "/v1/brokers", headers: harness.auth)
            #expect(response.status == 200)
            #expect(response.body.dataList.compactMap { $0["kind"] as? String } == ["alpaca", "saxo"])
            let capabilities = response.body.dataList.first?["capabilities"] as? [String: Any]
            let operations = capabilities?["operations"] as? [String: String]
            #expect(operations?["placeOrder"] == "supported")
            #expect(operations?["searchInstruments"] == "unsupported")
        }
    }

    @Test func fanOutReadsSayWhatIsMissing() async throws {
        try await APIHarness.with { harness, client in
            let good = try await harness.link(.alpaca, baseURL: "https://good.fake")
            let bad = try await harness.link(.saxo, baseURL: "https://bad.fake")
            harness.state.set("https://bad.fake", FakeBrokerBehaviour(failure: GatewayError(.upstreamUnavailable, "maintenance", broker: .saxo)))
            let response = try await client.call(.get, "/v1/positions", headers: harness.auth)
            #expect(response.status == 200)
            #expect(response.body["partial"] as? Bool == true)
            let sources = response.body["sources"] as? [[String: Any]] ?? []
            #expect(sources.compactMap { $0["connection"] as? String } == [good.id, bad.id])
            #expect(sources.compactMap { $0["status"] as? String } == ["ok", "error"])
            #expect(sources.allSatisfy { $0["latencyMs"] is Int && $0["asOf"] is String })
            let error = sources[1]["error"] as? [String: Any]
            #expect(error?["code"] as? String == "upstream_unavailable")
            #expect(error?["retryable"] as? Bool == true)
            let position = try #require(response.body.dataList.first)
            #expect(response.body.dataList.count == 1)
            #expect(position["quantity"] as? String == "10")
            #expect(position["averagePrice"] as? String == "150.25")
            #expect(position["connectionId"] as? String == good.id)

            let balances = try await client.call(.get, "/v1/balances?broker=alpaca", headers: harness.auth)
            #expect(balances.body["partial"] as? Bool == false)
            #expect(balances.body.dataList.first?["total"] as? String == "1000")
            #expect((balances.body["sources"] as? [Any])?.count == 1)
        }
    }

    @Test func aSlowBrokerDoesNotDelayTheAnswerPastTheDeadline() async throws {
        // The fast broker gets 2 s (a fully loaded 2-core test run can hold a ready task for hundreds of ms); the
        // slow one takes 120 s, so an answer in well under that shows the deadline, not the slow broker, ended it.
        try await APIHarness.with(router: BrokerRouter(perSourceTimeout: .seconds(2), overallTimeout: .seconds(3))) { harness, client in
            try await harness.link(.alpaca, baseURL: "https://fast.fake")
            try await harness.link(.saxo, baseURL: "https://slow.fake")
            harness.state.set("https://slow.fake", FakeBrokerBehaviour(delay: .seconds(120)))
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await client.call(.get, "/v1/accounts", headers: harness.auth)
            // Bounded by the deadline, not by the 120 s broker (with margin for a loaded test machine).
            #expect(clock.now - start < .seconds(40))
            #expect(response.status == 200)
            #expect(response.body.dataList.count == 1)
            let sources = response.body["sources"] as? [[String: Any]] ?? []
            #expect((sources.last?["error"] as? [String: Any])?["code"] as? String == "upstream_timeout")
        }
    }

    @Test func filtersNarrowTheFanOut() async throws {
        try await APIHarness.with { harness, client in
            let first = try await harness.link(.alpaca, baseURL: "https://one.fake")
            try await harness.link(.alpaca, baseURL: "https://two.fake")
            let one = try await client.call(.get, "/v1/clients?connection=\(first.id)", headers: harness.auth)
            #expect((one.body["sources"] as? [Any])?.count == 1)
            let none = try await client.call(.get, "/v1/clients?connection=conn_missing", headers: harness.auth)
            #expect(none.status == 404)
            // A kind this gateway has no adapter for (OpenBrokerKindTests has the rest).
            let badBroker = try await client.call(.get, "/v1/clients?broker=nasdaq", headers: harness.auth)
            #expect(badBroker.status == 422)
            #expect(badBroker.body.detailFields == ["broker"])
            let account = try await client.call(.get, "/v1/balances?account=OTHER", headers: harness.auth)
            #expect(account.body.dataList.isEmpty)
        }
    }

    @Test func quotesNeedSymbols() async throws {
        try await APIHarness.with { harness, client in
            try await harness.link(.alpaca, baseURL: "https://q.fake")
            let missing = try await client.call(.get, "/v1/quotes", headers: harness.auth)
            #expect(missing.status == 400)
            #expect(missing.body.detailFields == ["symbols"])
            let quotes = try await client.call(.get, "/v1/quotes?symbols=AAPL,EUR/USD", headers: harness.auth)
            #expect(quotes.body.dataList.count == 2)
            #expect(quotes.body.dataList.first?["bid"] as? String == "99")
            // A symbol this broker does not trade is simply not quoted here; it is not the broker's failure.
            let mixed = try await client.call(.get, "/v1/quotes?symbols=AAPL,BTC/USD", headers: harness.auth)
            #expect(mixed.body.dataList.count == 1)
            #expect(mixed.body["partial"] as? Bool == false)
            let unsupported = try await client.call(.get, "/v1/instruments?q=AA", headers: harness.auth)
            #expect(unsupported.status == 200)
            #expect((unsupported.body["sources"] as? [Any])?.isEmpty == true)
        }
    }
}

@Suite("API: candles")
struct CandleRouteTests {
    @Test func candlesFanOutWithValidatedParameters() async throws {
        try await APIHarness.with { harness, client in
            let connection = try await harness.link(.saxo, baseURL: "https://c.fake")
            let response = try await client.call(.get, "/v1/candles?symbol=EUR/USD&interval=1d&count=3", headers: harness.auth)
            #expect(response.status == 200)
            let series = try #require(response.body.dataList.first)
            #expect(series["interval"] as? String == "1d")
            #expect(series["connectionId"] as? String == connection.id)
            let candles = series["candles"] as? [[String: Any]] ?? []
            #expect(candles.count == 3)
            #expect(candles.first?["close"] as? String == "101")
            for (query, field) in [("interval=1d", "symbol"), ("symbol=EUR/USD&interval=2h", "interval"), ("symbol=EUR/USD&count=5000", "count")] {
                let bad = try await client.call(.get, "/v1/candles?\(query)", headers: harness.auth)
                #expect(bad.status == 400, "\(query)")
                #expect(bad.body.detailFields == [field])
            }
        }
    }
}

@Suite("API: a broker's numbers cannot break an answer")
struct HostileRetryAfterTests {
    @Test(arguments: [Double.infinity, 1e300, -5, .nan])
    func anyRetryAfterIsAnsweredSanely(_ seconds: Double) async throws {
        try await APIHarness.with { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: "https://limited.fake")
            harness.state.set(
                "https://limited.fake",
                FakeBrokerBehaviour(
                    failure: GatewayError(.rateLimited, "slow down", broker: .alpaca, retryAfter: seconds)
                )
            )
            // In a fan-out the failure is a source line: the read still answers 200, with a finite retryAfter.
            let read = try await client.call(.get, "/v1/positions", headers: harness.auth)
            #expect(read.status == 200)
            let source = try #require((read.body["sources"] as? [[String: Any]])?.first)
            let failure = try #require(source["error"] as? [String: Any])
            #expect(failure["code"] as? String == "rate_limited")
            if let after = failure["retryAfter"] as? Double { #expect(after >= 0 && after <= 86_400) }
            // On a direct operation the error is the answer: 429 with a whole-number Retry-After, or none.
            let watchlist = try await client.call(
                .post,
                "/v1/watchlists",
                headers: harness.auth,
                json: #"{"name":"x","connectionId":"\#(connection.id)"}"#
            )
            #expect(watchlist.status == 429)
            if let header = watchlist.headers[.retryAfter] { #expect(Int(header).map { (0...86_400).contains($0) } == true) }
        }
    }
}
