import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Many clients reading one tenant's portfolio at once, against the real gateway binary and its built-in sandboxes
/// with their real rate limits (Alpaca 200 requests per minute, Saxo 120 per minute per session and service group).
///
/// Starts `gateway serve` on a fresh data folder (the demo tenant, one connection per sandbox), runs `--clients`
/// concurrent clients reading `--path` for `--warmup` seconds and then `--seconds` measured ones, reads the gateway's
/// `/metrics` at both ends of the measured span, and prints: answers,
/// partial answers, sources that were rate-limited, latency medians and p99s, and each broker's upstream calls per
/// minute beside its limit.
///
///     swift build --package-path Benchmarks -c release --product gateway --product LoadBenchmark
///     Benchmarks/.build/release/LoadBenchmark [--clients 200] [--warmup 60] [--seconds 60] [--coalesce on|off] [--path /v1/positions]
@main
struct LoadBenchmark {
    /// The benchmark measures the brokers' rate limits against two hundred clients of one key, so the gateway's own
    /// limits per tenant and key (which would answer most of them 429 first) are lifted for it.
    static let unlimitedTenant = [
        "--limits-tenant-requests-per-second", "1000000", "--limits-tenant-burst", "1000000",
        "--limits-key-requests-per-second", "1000000", "--limits-key-burst", "1000000",
        "--limits-fan-outs-in-flight", "100000",
    ]

    static func main() async throws {
        let arguments = Arguments(CommandLine.arguments)
        let clients = try arguments.int("--clients", 200)
        let seconds = try arguments.int("--seconds", 60)
        let warmup = try arguments.int("--warmup", 60)
        let coalesce = try arguments.string("--coalesce", "on")
        let path = try arguments.string("--path", "/v1/positions")
        let binary = try arguments.string("--gateway", siblingGateway())

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try await freePort()
        let gateway = try launch(
            binary,
            [
                "serve", "--port", String(port), "--data-dir", directory.appendingPathComponent("data").path,
                "--reads-coalesce", coalesce, "--log-level", "warning",
            ] + Self.unlimitedTenant,
            log: directory.appendingPathComponent("gateway.log")
        )
        defer {
            gateway.terminate()
            gateway.waitUntilExit()
        }
        let base = "http://127.0.0.1:\(port)"
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                timeout: .init(connect: .seconds(2), read: .seconds(30)),
                connectionPool: .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: clients + 8)
            )
        )

        try await waitUntilReady(http, base: base, gateway: gateway)
        let key = try String(contentsOf: directory.appendingPathComponent("data/demo-api-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        print(
            "BrokerGateway load benchmark: \(clients) clients reading \(path) for \(warmup) s of warm-up, then \(seconds) s measured; coalescing \(coalesce)"
        )
        // The warm-up lets the gateway learn each broker's rate-limit windows from its headers (a fresh process
        // starts mid-window with the documented budget), so the measured minute shows the steady state.
        let started = ContinuousClock.now
        let measureFrom = started + .seconds(warmup)
        let end = measureFrom + .seconds(seconds)
        enum Outcome: Sendable {
            case client(warm: ClientTally, measured: ClientTally)
            case scrape([String: Double])
        }
        var warm = ClientTally()
        var results = ClientTally()
        var before: [String: Double] = [:]
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                try await Task.sleep(until: measureFrom, clock: .continuous)
                return .scrape(try await scrape(http, base: base))
            }
            for _ in 0..<clients {
                group.addTask {
                    var warm = ClientTally()
                    var tally = ClientTally()
                    while ContinuousClock.now < end {
                        var request = HTTPClientRequest(url: base + path)
                        request.headers.add(name: "Authorization", value: "Bearer \(key)")
                        let began = ContinuousClock.now
                        var outcome = ClientTally()
                        do {
                            let response = try await http.execute(request, timeout: .seconds(30))
                            let body = try await response.body.collect(upTo: 8 << 20)
                            outcome.record(
                                status: Int(response.status.code),
                                body: Data(body.readableBytesView),
                                latency: ContinuousClock.now - began
                            )
                        } catch {
                            outcome.transportErrors += 1
                        }
                        if began >= measureFrom { tally.merge(outcome) } else { warm.merge(outcome) }
                    }
                    return .client(warm: warm, measured: tally)
                }
            }
            for try await outcome in group {
                switch outcome {
                case .client(let w, let m):
                    warm.merge(w)
                    results.merge(m)
                case .scrape(let values):
                    before = values
                }
            }
        }
        let elapsed = ContinuousClock.now - measureFrom
        let after = try await scrape(http, base: base)
        try await http.shutdown()
        if warmup > 0 {
            print(
                "warm-up: answers \(warm.latencies.count), partial \(warm.partial), rate-limited sources \(warm.rateLimited), non-200 \(warm.failures), transport errors \(warm.transportErrors)"
            )
            print("measured:")
        }
        report(results, elapsed: elapsed, before: before, after: after)
    }

    // MARK: Report

    static let limits: [String: (perMinute: Int, what: String)] = [
        "alpaca": (200, "200/min per account"),
        "saxo": (120, "120/min per session and service group"),
    ]

    static func report(_ tally: ClientTally, elapsed: Duration, before: [String: Double], after: [String: Double]) {
        let minutes = Double(elapsed.components.seconds) / 60 + Double(elapsed.components.attoseconds) / 6e19
        let answers = tally.latencies.count
        func pct(_ part: Int, _ whole: Int) -> String { whole == 0 ? "-" : String(format: "%.2f%%", Double(part) * 100 / Double(whole)) }
        let sorted = tally.latencies.sorted()
        func quantile(_ q: Double) -> String {
            guard !sorted.isEmpty else { return "-" }
            let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))
            return String(format: "%.1f", sorted[index])
        }
        print(
            "answers                \(answers) (\(String(format: "%.0f", Double(answers) / max(minutes * 60, 0.001)))/s), non-200 \(tally.failures), transport errors \(tally.transportErrors)"
        )
        print("partial answers        \(tally.partial) (\(pct(tally.partial, answers)))")
        print("rate-limited sources   \(tally.rateLimited)")
        print("other source errors    \(tally.sourceErrors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        print("served                 \(tally.served.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        print("latency ms             median \(quantile(0.5)), p90 \(quantile(0.9)), p99 \(quantile(0.99)), max \(quantile(1))")
        print("upstream calls per minute (from /metrics, brokergateway_upstream_calls_total):")
        for broker in ["alpaca", "saxo", "tradeit", "tradeogre"] {
            let key = "brokergateway_upstream_calls_total{broker=\"\(broker)\"}"
            let calls = (after[key] ?? 0) - (before[key] ?? 0)
            let limit = limits[broker].map { " (limit \($0.what))" } ?? ""
            print("  \(broker.padding(toLength: 10, withPad: " ", startingAt: 0)) \(String(format: "%.1f", calls / max(minutes, 0.001)))/min\(limit)")
        }
        let coalesced = after.filter { $0.key.hasPrefix("brokergateway_source_reads_total") }
        let shared = coalesced.filter { $0.key.contains("served=\"shared\"") || $0.key.contains("served=\"cached\"") }.values.reduce(0, +)
        let fresh = coalesced.filter { $0.key.contains("served=\"fresh\"") }.values.reduce(0, +)
        print("source reads (from /metrics): fresh \(Int(fresh)), shared or cached \(Int(shared))")
    }

    // MARK: Process and HTTP

    static func launch(_ binary: String, _ arguments: [String], log: URL) throws -> Process {
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = try FileHandle(forWritingTo: log)
        process.standardError = output
        process.standardOutput = output
        try process.run()
        return process
    }

    /// A port nobody listens on now (the gateway binds it a moment later).
    static func freePort() async throws -> Int {
        let socket = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = socket.localAddress?.port
        try await socket.close()
        guard let port else { throw BenchmarkError("no free port") }
        return port
    }

    /// Polls `/readyz`: the gateway is another process, with nothing to await but its answers.
    static func waitUntilReady(_ http: HTTPClient, base: String, gateway: Process) async throws {
        for _ in 0..<600 {
            guard gateway.isRunning else { throw BenchmarkError("the gateway exited (status \(gateway.terminationStatus))") }
            if let response = try? await http.execute(HTTPClientRequest(url: base + "/readyz"), timeout: .seconds(2)),
                response.status == .ok
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchmarkError("the gateway was not ready within 60 s")
    }

    /// `/metrics` as `series{labels} → value` (counters and gauges; histogram buckets too).
    static func scrape(_ http: HTTPClient, base: String) async throws -> [String: Double] {
        let response = try await http.execute(HTTPClientRequest(url: base + "/metrics"), timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 16 << 20))
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = value
        }
        return values
    }
}

/// What one client saw.
struct ClientTally: Sendable {
    var latencies: [Double] = []
    var failures = 0
    var transportErrors = 0
    var partial = 0
    var rateLimited = 0
    var sourceErrors: [String: Int] = [:]
    var served: [String: Int] = [:]

    mutating func record(status: Int, body: Data, latency: Duration) {
        latencies.append(Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15)
        guard status == 200 else {
            failures += 1
            return
        }
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return }
        if object["partial"] as? Bool == true { partial += 1 }
        for source in object["sources"] as? [[String: Any]] ?? [] {
            if let served = source["served"] as? String { self.served[served, default: 0] += 1 }
            if let code = (source["error"] as? [String: Any])?["code"] as? String {
                if code == "rate_limited" { rateLimited += 1 } else { sourceErrors[code, default: 0] += 1 }
            }
        }
    }

    mutating func merge(_ other: ClientTally) {
        latencies += other.latencies
        failures += other.failures
        transportErrors += other.transportErrors
        partial += other.partial
        rateLimited += other.rateLimited
        sourceErrors.merge(other.sourceErrors, uniquingKeysWith: +)
        served.merge(other.served, uniquingKeysWith: +)
    }
}
