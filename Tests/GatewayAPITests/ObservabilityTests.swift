import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Prometheus
import Testing

@Suite("Observability: /metrics, /readyz, request ids")
struct ObservabilityTests {
    func metrics(_ client: any TestClientProtocol) async throws -> (PrometheusText, HTTPFields) {
        try await client.execute(uri: "/metrics", method: .get) { response in
            #expect(response.status == .ok)
            return (try PrometheusText(String(buffer: response.body)), response.headers)
        }
    }

    @Test func metricsAreAPrometheusExpositionOfReadsOrdersAndTheServer() async throws {
        let pipeline = BrokerPipeline(metrics: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
        try await APIHarness.with(pipeline: pipeline) { harness, client in
            let ok = try await harness.link(.alpaca, baseURL: "https://ok.fake")
            try await harness.link(.saxo, baseURL: "https://down.fake")
            harness.state.set("https://down.fake", FakeBrokerBehaviour(failure: GatewayError(.upstreamUnavailable, "down")))
            let read = try await client.call(.get, "/v1/positions", headers: harness.auth)
            #expect(read.status == 200)
            #expect(read.body["partial"] as? Bool == true)
            let order =
                #"{"connectionId":"\#(ok.id)","accountId":"ACC-1","symbol":"AAPL","side":"buy","type":"limit","quantity":"1","limitPrice":"10"}"#
            let placed = try await client.call(.post, "/v1/orders", headers: harness.auth, json: order)
            #expect(placed.status == 201)
            let missing = try await client.call(.get, "/v1/orders/ord_doesnotexist", headers: harness.auth)
            #expect(missing.status == 404)

            let (text, headers) = try await metrics(client)
            #expect(headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(text.types["brokergateway_fanout_reads_total"] == "counter")
            #expect(text.sum("brokergateway_fanout_reads_total", ["operation": "positions", "partial": "true"]) == 1)
            #expect(text.sum("brokergateway_source_reads_total", ["broker": "alpaca", "served": "fresh", "outcome": "ok"]) == 1)
            #expect(text.sum("brokergateway_source_reads_total", ["broker": "saxo", "outcome": "upstream_unavailable"]) == 1)
            #expect(text.types["brokergateway_fanouts_in_flight"] == "gauge")
            #expect(text.sum("brokergateway_fanouts_in_flight") == 0)
            #expect(text.sum("brokergateway_orders_total", ["outcome": "accepted"]) == 1)
            #expect(text.types["brokergateway_reconciliation_lag_seconds"] == "gauge")
            #expect(text.types["brokergateway_orders_awaiting_reconciliation"] == "gauge")
            // The HTTP server, by route pattern: the order id of the 404 is not a label value.
            #expect(text.sum("brokergateway_http_requests_total", ["route": "/v1/positions", "method": "GET", "status": "200"]) == 1)
            #expect(text.sum("brokergateway_http_requests_total", ["route": "/v1/orders/{id}", "status": "404"]) == 1)
            #expect(text.samples.allSatisfy { !($0.labels.values.contains { $0.contains("ord_doesnotexist") }) })
            #expect(text.types["brokergateway_http_request_duration_seconds"] == "histogram")
            #expect(!text.series("brokergateway_http_request_duration_seconds_bucket", ["route": "/v1/positions"]).isEmpty)
            // No label names a tenant or a connection.
            let labelNames = Set(text.samples.flatMap(\.labels.keys))
            #expect(labelNames.isDisjoint(with: ["tenant", "connection", "account"]))
        }
    }

    @Test func aGatewayWithoutMetricsSaysSo() async throws {
        try await APIHarness.with { _, client in
            let answer = try await client.call(.get, "/metrics", headers: [:])
            #expect(answer.status == 404)
            #expect(answer.body.errorCode == "not_found")
        }
    }

    @Test func readinessWaitsForTheReconciler() async throws {
        try await APIHarness.with { harness, client in
            let before = try await client.call(.get, "/readyz", headers: [:])
            #expect(before.status == 503)
            #expect(before.body["status"] as? String == "not_ready")
            let checks = before.body["checks"] as? [[String: Any]] ?? []
            #expect(checks.first { $0["name"] as? String == "store" }?["ok"] as? Bool == true)
            #expect(checks.first { $0["name"] as? String == "migrations" }?["ok"] as? Bool == true)
            #expect(checks.first { $0["name"] as? String == "reconciler" }?["ok"] as? Bool == false)
            await harness.gateway.orders.reconcilePending()
            let after = try await client.call(.get, "/readyz", headers: [:])
            #expect(after.status == 200)
            #expect(after.body["status"] as? String == "ready")
        }
    }

    @Test func everyAnswerCarriesARequestId() async throws {
        try await APIHarness.with { harness, client in
            var headers = harness.auth
            headers[HTTPField.Name("X-Request-ID")!] = "trace-42.a_b"
            let echoed = try await client.call(.get, "/v1/positions", headers: headers)
            #expect(echoed.headers[HTTPField.Name("X-Request-ID")!] == "trace-42.a_b")
            headers[HTTPField.Name("X-Request-ID")!] = "<script>"
            let replaced = try await client.call(.get, "/v1/positions", headers: headers)
            let made = replaced.headers[HTTPField.Name("X-Request-ID")!] ?? ""
            #expect(made.hasPrefix("req_") && made != "<script>")
            let unauthenticated = try await client.call(.get, "/v1/positions", headers: [:])
            #expect(unauthenticated.status == 401)
            #expect(unauthenticated.headers[HTTPField.Name("X-Request-ID")!]?.hasPrefix("req_") == true)
        }
    }
}

@Suite("Reads: shared in flight, fresh unless allowed otherwise")
struct ReadFreshnessTests {
    @Test func identicalReadsInFlightShareOneBrokerCall() async throws {
        // The sharing is the subject, not the deadline: 60 s a source (the harness's default is 2 s) lets ten
        // concurrent reads of a 300 ms broker finish on a loaded machine instead of timing out as `partial`.
        try await APIHarness.with(router: BrokerRouter(perSourceTimeout: .seconds(60), overallTimeout: .seconds(90))) { harness, client in
            try await harness.link(.alpaca, baseURL: "https://slow.fake")
            harness.state.set("https://slow.fake", FakeBrokerBehaviour(delay: .milliseconds(300)))
            let served = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        let answer = try await client.call(.get, "/v1/positions", headers: harness.auth)
                        #expect(answer.status == 200)
                        #expect(answer.body["partial"] as? Bool == false)
                        return (answer.body["sources"] as? [[String: Any]] ?? []).compactMap { $0["served"] as? String }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(served.count == 10)
            #expect(Set(served).isSubset(of: ["fresh", "shared"]))
            // Ten reads within the broker's 300 ms: far fewer broker calls than reads.
            #expect(harness.state.positionReadCount("https://slow.fake") < 10)
            #expect(served.filter { $0 == "fresh" }.count == harness.state.positionReadCount("https://slow.fake"))
        }
    }

    @Test func maxAgeAllowsARecentAnswerAndAPlacementInvalidatesIt() async throws {
        try await APIHarness.with { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: "https://fresh.fake")
            let first = try await client.call(.get, "/v1/positions", headers: harness.auth)
            let firstSource = (first.body["sources"] as? [[String: Any]])?.first ?? [:]
            #expect(firstSource["served"] as? String == "fresh")
            let strict = try await client.call(.get, "/v1/positions", headers: harness.auth)
            #expect(((strict.body["sources"] as? [[String: Any]])?.first?["served"] as? String) == "fresh")
            #expect(harness.state.positionReadCount("https://fresh.fake") == 2)

            let relaxed = try await client.call(.get, "/v1/positions?maxAgeMs=60000", headers: harness.auth)
            let relaxedSource = (relaxed.body["sources"] as? [[String: Any]])?.first ?? [:]
            #expect(relaxedSource["served"] as? String == "cached")
            #expect(relaxedSource["asOf"] as? String != nil)
            #expect(harness.state.positionReadCount("https://fresh.fake") == 2)

            let order =
                #"{"connectionId":"\#(connection.id)","accountId":"ACC-1","symbol":"AAPL","side":"buy","type":"limit","quantity":"1","limitPrice":"10"}"#
            #expect(try await client.call(.post, "/v1/orders", headers: harness.auth, json: order).status == 201)
            let afterPlacement = try await client.call(.get, "/v1/positions?maxAgeMs=60000", headers: harness.auth)
            #expect(((afterPlacement.body["sources"] as? [[String: Any]])?.first?["served"] as? String) == "fresh")
            #expect(harness.state.positionReadCount("https://fresh.fake") == 3)
        }
    }

    @Test(arguments: ["-1", "60001", "abc", "1.5"])
    func aBadMaxAgeIsA400NamingIt(_ value: String) async throws {
        try await APIHarness.with { harness, client in
            let answer = try await client.call(.get, "/v1/positions?maxAgeMs=\(value)", headers: harness.auth)
            #expect(answer.status == 400)
            #expect(answer.body.errorCode == "invalid_request")
            #expect(answer.body.detailFields == ["maxAgeMs"])
        }
    }

    @Test func aTenantSetsItsDefaultFreshness() async throws {
        try await APIHarness.with { harness, client in
            try await harness.link(.alpaca, baseURL: "https://tenant.fake")
            let tenant = try await client.call(.get, "/v1/tenant", headers: harness.auth)
            #expect(tenant.status == 200)
            #expect(tenant.body.dataObject["id"] as? String == harness.tenant.id)
            #expect((tenant.body.dataObject["settings"] as? [String: Any])?["readMaxAgeMs"] == nil)

            let set = try await client.call(.put, "/v1/tenant/settings", headers: harness.auth, json: #"{"readMaxAgeMs": 60000}"#)
            #expect(set.status == 200)
            #expect((set.body.dataObject["settings"] as? [String: Any])?["readMaxAgeMs"] as? Int == 60000)
            _ = try await client.call(.get, "/v1/positions", headers: harness.auth)
            let second = try await client.call(.get, "/v1/positions", headers: harness.auth)
            #expect(((second.body["sources"] as? [[String: Any]])?.first?["served"] as? String) == "cached")
            // A read's own maxAgeMs wins over the tenant's.
            let strict = try await client.call(.get, "/v1/positions?maxAgeMs=0", headers: harness.auth)
            #expect(((strict.body["sources"] as? [[String: Any]])?.first?["served"] as? String) == "fresh")

            for bad in [#"{"readMaxAgeMs": -5}"#, #"{"readMaxAgeMs": 60001}"#, #"{"readMaxAgeMs": "1"}"#, #"{"maxAge": 5}"#] {
                let answer = try await client.call(.put, "/v1/tenant/settings", headers: harness.auth, json: bad)
                #expect(answer.status == 400, "\(bad)")
                #expect(answer.body.errorCode == "invalid_request", "\(bad)")
            }
            let cleared = try await client.call(.put, "/v1/tenant/settings", headers: harness.auth, json: "{}")
            #expect(cleared.status == 200)
            #expect((cleared.body.dataObject["settings"] as? [String: Any])?["readMaxAgeMs"] == nil)
        }
    }
}
