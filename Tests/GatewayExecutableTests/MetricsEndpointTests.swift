import AsyncHTTPClient
import Foundation
import GatewayTesting
import NIOCore
import NIOHTTP1
import TestWorlds
import Testing

/// `/metrics` as an operator's Prometheus sees it: the real `gateway serve` (in-process sandboxes, demo tenant)
/// after a few reads, its exposition parsed by a strict text-format parser, holding the broker pipeline's, the
/// application's and the HTTP server's series.
@Suite("gateway serve: /metrics", .heavyWorld)
struct MetricsEndpointTests {
    @Test func theExpositionHoldsThePipelinesTheApplicationsAndTheServersSeries() async throws {
        let binary = TracingExportTests.gatewayBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "no gateway binary at \(binary.path)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")

        let gateway = try GatewayProcessUnderTest(
            binary: binary,
            arguments: [
                "serve", "--port", "0", "--data-dir", data.path, "--log-level", "notice",
            ]
        )
        defer { gateway.stop() }
        let base = try #require(await gateway.url(), "the gateway never said where it serves")
        // The demo tenant's key is written before the server starts listening.
        let key = try String(contentsOf: data.appendingPathComponent("demo-api-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)

        var answered: Set<String> = []
        for _ in 0..<3 {
            var request = HTTPClientRequest(url: base + "/v1/positions")
            request.headers.add(name: "Authorization", value: "Bearer \(key)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            #expect(response.status == .ok)
            let body = try await response.body.collect(upTo: 1 << 20)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
            for source in object["sources"] as? [[String: Any]] ?? [] where source["status"] as? String == "ok" {
                if let broker = source["broker"] as? String { answered.insert(broker) }
            }
        }
        try #require(answered.contains("alpaca"), "the demo Alpaca connection answered no read")

        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/metrics"), timeout: .seconds(10))
        #expect(response.status == .ok)
        #expect(response.headers.first(name: "Content-Type")?.hasPrefix("text/plain") == true)
        let text = try PrometheusText(String(buffer: try await response.body.collect(upTo: 8 << 20)))

        // The pipeline: per broker and operation, outcomes by canonical code and latency histograms; calls that
        // left for the broker; breaker state and rate-limit headroom per broker.
        #expect(text.types["brokergateway_broker_requests_total"] == "counter")
        #expect(text.types["brokergateway_broker_request_duration_seconds"] == "histogram")
        #expect(text.types["brokergateway_upstream_calls_total"] == "counter")
        #expect(text.types["brokergateway_breaker_open_connections"] == "gauge")
        #expect(text.types["brokergateway_rate_limit_headroom_ratio"] == "gauge")
        for broker in answered {
            #expect(text.sum("brokergateway_broker_requests_total", ["broker": broker, "outcome": "ok"]) >= 1, "\(broker)")
            #expect(text.sum("brokergateway_upstream_calls_total", ["broker": broker]) >= 1, "\(broker)")
            #expect(!text.series("brokergateway_broker_request_duration_seconds_bucket", ["broker": broker]).isEmpty, "\(broker)")
            #expect(text.sum("brokergateway_breaker_open_connections", ["broker": broker]) == 0, "\(broker)")
        }
        #expect(text.sum("brokergateway_broker_requests_total", ["broker": "alpaca", "operation": "positions", "outcome": "ok"]) >= 1)
        let headroom = try #require(text.series("brokergateway_rate_limit_headroom_ratio", ["broker": "alpaca"]).first)
        #expect(headroom.value > 0 && headroom.value <= 1)

        // The application: reads fresh, shared or cached; partial answers; fan-outs in flight; the order pipeline.
        #expect(text.sum("brokergateway_source_reads_total", ["broker": "alpaca", "outcome": "ok"]) == 3)
        #expect(text.sum("brokergateway_fanout_reads_total", ["operation": "positions"]) == 3)
        #expect(text.types["brokergateway_fanouts_in_flight"] == "gauge")
        #expect(text.types["brokergateway_orders_awaiting_reconciliation"] == "gauge")
        #expect(text.types["brokergateway_reconciliation_lag_seconds"] == "gauge")
        // The HTTP server.
        #expect(text.sum("brokergateway_http_requests_total", ["method": "GET", "route": "/v1/positions", "status": "200"]) == 3)
        #expect(text.types["brokergateway_http_request_duration_seconds"] == "histogram")
    }
}
