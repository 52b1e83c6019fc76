import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Measures what an aggregated read costs: the real gateway server and router over four sources that each
/// answer after a fixed latency, with 1, 10 and 100 concurrent clients, against a sequential walk of the
/// same sources. Prints medians, p99s, ratios and the process's peak memory.
///
///     swift run --package-path Benchmarks -c release RouterBenchmark [--latency-ms 25] [--sources 4] [--requests 400] [--tenant-limits] \
///         [--executor event-loops|global]
///
/// `--executor event-loops` runs its tasks on NIO's event loops, as `gateway serve --executor event-loops` does;
/// the default is Swift's own pool, as `gateway serve`'s.
///
/// All clients are one tenant with one key. The gateway's own limits per tenant and key (100 requests a second per key,
/// 32 fan-outs in flight per tenant) would answer most of 100 clients 429 or queue them behind 32 slots, which measures
/// those limits, not the router; so they are lifted unless `--tenant-limits` asks for the defaults.
@main
struct RouterBenchmark {
    static func main() async throws {
        let arguments = Arguments(CommandLine.arguments)
        let executor = try arguments.string("--executor", "global")
        if executor == "event-loops" {
            NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        }
        let latency = try Duration.milliseconds(arguments.int("--latency-ms", 25))
        let sourceCount = try arguments.int("--sources", 4)
        let requestsPerLevel = try arguments.int("--requests", 400)
        let limits = arguments.flag("--tenant-limits") ? TenantLimits() : Self.unlimited
        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("gateway.sqlite").path, cipher: .random(), logger: logger)
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 128)
            )
        )
        // The latency sources listen on loopback: allowed explicitly (the default egress policy refuses loopback).
        let loopback = EgressPolicy(allowing: ["127.0.0.0/8", "::1"].compactMap(IPRange.init))
        let registry = AdapterRegistry(
            factories: [LatencyAdapterFactory()],
            transport: HTTPClientTransport(policy: loopback),
            logger: logger,
            egress: loopback
        )
        let gateway = Gateway(
            store: store,
            registry: registry,
            router: BrokerRouter(perSourceTimeout: .seconds(5), overallTimeout: .seconds(8)),
            logger: logger,
            limits: limits
        )
        let tenant = try await store.createTenant(name: "bench")
        let issued = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "bench")
        let key = issued.plaintext

        do {
            try await withServers(count: sourceCount, latency: latency, logger: logger) { sourceURLs in
                for url in sourceURLs {
                    _ = try await store.createConnection(
                        tenantId: tenant.id,
                        userId: issued.info.userId,
                        NewConnection(
                            broker: BrokerKind("latency"),
                            displayName: "source",
                            baseURL: url,
                            credentials: BrokerCredentials()
                        )
                    )
                }
                let app = try GatewayServer.application(gateway: gateway, host: "127.0.0.1", port: 0, logger: logger)
                try await withApplication(app) { gatewayURL in
                    print(
                        "BrokerGateway router benchmark: \(sourceCount) sources at \(latency.milliseconds) ms each, \(requestsPerLevel) requests per level, tenant limits \(limits == Self.unlimited ? "lifted" : "default"), tasks on \(executor)"
                    )
                    print("level          median ms   p99 ms   median/slowest   p99-slowest ms")
                    // The same sources walked one after another, as a gateway without fan-out would.
                    let sequential = try await measure(requests: 50, concurrency: 1) {
                        for url in sourceURLs {
                            let response = try await client.execute(HTTPClientRequest(url: url + "/accounts"), timeout: .seconds(5))
                            _ = try await response.body.collect(upTo: 1 << 20)
                        }
                    }
                    let slowest = latency.milliseconds
                    report("sequential", sequential, slowest: slowest)
                    let url = gatewayURL + "/v1/accounts"
                    _ = try await measure(requests: 50, concurrency: 10) { try await get(client, url, key: key) }
                    for concurrency in [1, 10, 100] {
                        let samples = try await measure(requests: max(requestsPerLevel, concurrency * 4), concurrency: concurrency) {
                            try await get(client, url, key: key)
                        }
                        report("fan-out c=\(concurrency)", samples, slowest: slowest)
                    }
                    print("peak memory (VmHWM): \(ProcStatus.peakMemory())")
                }
            }
        } catch {
            // The client must be shut down before it goes away, whatever failed.
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// Limits no benchmark client reaches.
    static let unlimited = TenantLimits(
        tenantRequestsPerSecond: 1_000_000,
        tenantBurst: 1_000_000,
        keyRequestsPerSecond: 1_000_000,
        keyBurst: 1_000_000,
        fanOutsInFlight: 100_000
    )

    static func get(_ client: HTTPClient, _ url: String, key: String) async throws {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok, body.readableBytes > 0,
            String(buffer: body).contains(#""partial":false"#)
        else { throw BenchmarkError("unexpected answer \(response.status): \(String(buffer: body))") }
    }

    /// Runs `requests` calls of `body` with `concurrency` workers; returns each call's latency in milliseconds.
    static func measure(requests: Int, concurrency: Int, _ body: @escaping @Sendable () async throws -> Void) async throws -> [Double] {
        let perWorker = (requests + concurrency - 1) / concurrency
        return try await withThrowingTaskGroup(of: [Double].self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var samples: [Double] = []
                    let clock = ContinuousClock()
                    for _ in 0..<perWorker {
                        let start = clock.now
                        try await body()
                        samples.append((clock.now - start).milliseconds)
                    }
                    return samples
                }
            }
            var all: [Double] = []
            for try await samples in group { all += samples }
            return all
        }
    }

    static func report(_ label: String, _ samples: [Double], slowest: Double) {
        let sorted = samples.sorted()
        let median = sorted[sorted.count / 2]
        let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        func f(_ value: Double) -> String { String(format: "%8.2f", value) }
        print(
            "\(label.padding(toLength: 14, withPad: " ", startingAt: 0)) \(f(median))  \(f(p99))   \(String(format: "%10.2f", median / slowest))x      \(f(p99 - slowest))"
        )
    }

    /// Runs `count` fixed-latency sources for the duration of `body`.
    static func withServers(count: Int, latency: Duration, logger: Logger, _ body: @escaping @Sendable ([String]) async throws -> Void) async throws {
        @Sendable func start(_ remaining: Int, _ urls: [String]) async throws {
            if remaining == 0 { return try await body(urls) }
            let app = Application(
                router: LatencySource.router(latency: latency),
                configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                logger: logger
            )
            try await withApplication(app) { url in try await start(remaining - 1, urls + [url]) }
        }
        try await start(count, [])
    }

    /// Runs an application on an ephemeral port for the duration of `body`, passing its base URL.
    static func withApplication<App: ApplicationProtocol>(_ app: App, _ body: @escaping @Sendable (String) async throws -> Void) async throws {
        try await app.test(.live) { client in
            guard let port = client.port else { throw BenchmarkError("no port") }
            try await body("http://127.0.0.1:\(port)")
        }
    }
}
