import AlpacaAdapter
import AlpacaSandbox
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
import SandboxKit

/// Measures one large read end to end: `GET /v1/positions` for one account holding 10,000 positions, over real HTTP
/// (client → gateway → Alpaca sandbox → gateway → client), all in this process. Alpaca's `/v2/positions` answers an
/// account's positions in one array, so the read is one broker call and what is measured is the gateway's own work
/// on a large answer (decoding, mapping, the envelope) plus the sandbox's rendering of it.
///
///     swift run --package-path Benchmarks -c release PositionsBenchmark [--positions 10000] [--rounds 30] [--warmup 3] [--source-timeout-s 5]
///
/// The sandbox's catalogue is the standard one plus `--positions` synthetic equities, and its one account holds each
/// of them (the seeding is this benchmark's: the sandbox takes instruments and holdings as configuration). The tenant's
/// request limits are the defaults (one client, one request at a time) and reads are fresh (`maxAgeMs=0`): every
/// round calls the sandbox. Prints the median, p90 and max latency, the response size, the count of positions in the
/// answer (anything but `--positions`, or a partial answer, is a failure) and the process's peak RSS; then the same
/// answer asked of the sandbox directly, for the broker's own share of the time.
@main
struct PositionsBenchmark {
    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("PositionsBenchmark failed: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        let arguments = Arguments(CommandLine.arguments)
        let count = try arguments.int("--positions", 10_000)
        let rounds = try max(1, arguments.int("--rounds", 30))
        let warmup = try max(0, arguments.int("--warmup", 3))
        // The router's production deadlines by default; a debug build (for profiles) needs longer.
        let sourceTimeout = try Duration.seconds(arguments.int("--source-timeout-s", 5))
        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

        let seed = SyntheticBook(count: count)
        let market = MarketEngine(configuration: MarketConfiguration(instruments: InstrumentCatalogue.standard + seed.instruments))
        let sandbox = AlpacaSandbox(
            configuration: AlpacaSandboxConfiguration(accounts: [seed.account], requestsPerMinute: 1_000_000),
            market: market
        )

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-pos-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("gateway.sqlite").path, cipher: .random(), logger: logger)
        // The sandbox listens on loopback: allowed explicitly (the default egress policy refuses loopback).
        let loopback = EgressPolicy(allowing: ["127.0.0.0/8", "::1"].compactMap(IPRange.init))
        let registry = AdapterRegistry(
            factories: [AlpacaAdapterFactory()],
            transport: HTTPClientTransport(policy: loopback),
            logger: logger,
            egress: loopback
        )
        let gateway = Gateway(
            store: store,
            registry: registry,
            router: BrokerRouter(perSourceTimeout: sourceTimeout, overallTimeout: sourceTimeout + .seconds(3)),
            logger: logger
        )
        let tenant = try await store.createTenant(name: "bench")
        let issued = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "bench")
        let client = HTTPClient(eventLoopGroupProvider: .singleton)

        do {
            try await withSandbox(sandbox) { sandboxURL in
                _ = try await store.createConnection(
                    tenantId: tenant.id,
                    userId: issued.info.userId,
                    NewConnection(
                        broker: .alpaca,
                        displayName: "positions",
                        baseURL: sandboxURL.absoluteString,
                        credentials: BrokerCredentials(["keyId": seed.account.keyID, "secretKey": seed.account.secretKey])
                    )
                )
                let app = try GatewayServer.application(gateway: gateway, host: "127.0.0.1", port: 0, logger: logger)
                try await app.test(.live) { testClient in
                    guard let port = testClient.port else { throw BenchmarkError("the gateway has no port") }
                    let url = "http://127.0.0.1:\(port)/v1/positions?maxAgeMs=0"
                    say(
                        "BrokerGateway positions benchmark: \(count) positions in one Alpaca sandbox account, \(warmup) warm-up and \(rounds) measured rounds"
                    )
                    let clock = ContinuousClock()
                    for _ in 0..<warmup { _ = try await read(client, url, key: issued.plaintext, expected: count) }
                    var samples: [Double] = []
                    var bytes = 0
                    for _ in 0..<rounds {
                        let start = clock.now
                        bytes = try await read(client, url, key: issued.plaintext, expected: count)
                        samples.append((clock.now - start).milliseconds)
                    }
                    // The broker's own share: the same answer asked of the sandbox directly (the physical limit).
                    var direct: [Double] = []
                    for _ in 0..<rounds {
                        let start = clock.now
                        try await readSandbox(client, sandboxURL.absoluteString + "/v2/positions", account: seed.account)
                        direct.append((clock.now - start).milliseconds)
                    }
                    let sorted = samples.sorted()
                    let sortedDirect = direct.sorted()
                    func f(_ value: Double) -> String { String(format: "%.1f", value) }
                    say("latency ms: median \(f(sorted[sorted.count / 2]))  p90 \(f(percentile(sorted, 0.9)))  max \(f(sorted.last!))")
                    say(
                        "the sandbox alone (GET /v2/positions), ms: median \(f(sortedDirect[sortedDirect.count / 2]))  p90 \(f(percentile(sortedDirect, 0.9)))"
                    )
                    say("response: \(bytes) bytes, \(count) positions, partial false")
                    say("peak RSS (VmHWM): \(ProcStatus.peakMemory())")
                }
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// One read; checks the answer is complete (every position, nothing partial) and returns its size in bytes.
    static func read(_ client: HTTPClient, _ url: String, key: String, expected: Int) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 256 * 1024 * 1024)
        guard response.status == .ok else {
            throw BenchmarkError("GET /v1/positions answered \(response.status): \(String(buffer: body).prefix(500))")
        }
        let envelope = try JSONDecoder().decode(Envelope.self, from: Data(body.readableBytesView))
        guard !envelope.partial, envelope.sources.allSatisfy({ $0.status == "ok" }) else {
            throw BenchmarkError("a partial answer: \(envelope.sources.map { "\($0.status) \($0.error?.code ?? "")" })")
        }
        guard envelope.data.count == expected else {
            throw BenchmarkError("\(envelope.data.count) positions in the answer, \(expected) expected")
        }
        return body.readableBytes
    }

    /// One read of the sandbox itself, with the account's keys.
    static func readSandbox(_ client: HTTPClient, _ url: String, account: AlpacaSandboxAccount) async throws {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "APCA-API-KEY-ID", value: account.keyID)
        request.headers.add(name: "APCA-API-SECRET-KEY", value: account.secretKey)
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 256 * 1024 * 1024)
        guard response.status == .ok else { throw BenchmarkError("the sandbox answered \(response.status)") }
    }

    /// What the benchmark checks of an answer: every line is counted, sources and `partial` are read.
    struct Envelope: Decodable {
        struct Line: Decodable { var quantity: String }
        struct Source: Decodable {
            struct Failure: Decodable { var code: String }
            var status: String
            var error: Failure?
        }
        var data: [Line]
        var sources: [Source]
        var partial: Bool
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * fraction).rounded(.up)) - 1))]
    }
}

/// `count` synthetic US equities (`SYN00001`, …) and one account holding every one of them.
struct SyntheticBook {
    let instruments: [MarketInstrument]
    let account: AlpacaSandboxAccount

    init(count: Int) {
        var instruments: [MarketInstrument] = []
        var holdings: [AlpacaSandboxAccount.Holding] = []
        instruments.reserveCapacity(count)
        holdings.reserveCapacity(count)
        for index in 1...max(1, count) {
            let symbol = "SYN" + String(repeating: "0", count: max(0, 5 - String(index).count)) + String(index)
            // Prices 10.00 to 509.99 in cents, quantities 1 to 97 shares, entries a little under the reference.
            let reference = Decimal(10 + index % 500) + Decimal(index % 100) / 100
            instruments.append(
                MarketInstrument(
                    symbol: symbol,
                    assetClass: .equity,
                    name: "Synthetic \(index)",
                    exchange: index % 2 == 0 ? "NASDAQ" : "NYSE",
                    currency: "USD",
                    tickSize: Decimal(string: "0.01")!,
                    lotSize: 1,
                    minQuantity: 1,
                    fractionable: false,
                    referencePrice: reference,
                    volatility: Decimal(string: "0.0001")!,
                    spread: Decimal(string: "0.0002")!,
                    sizeUnit: 100
                )
            )
            holdings.append(
                AlpacaSandboxAccount.Holding(
                    symbol: symbol,
                    quantity: Decimal(1 + index % 97),
                    averageEntryPrice: reference - Decimal(index % 7) / 100
                )
            )
        }
        self.instruments = instruments
        self.account = AlpacaSandboxAccount(
            accountNumber: "PA3BENCH0001",
            keyID: "BENCH-POSITIONS-KEY",
            secretKey: "BENCH-POSITIONS-SECRET",
            startingCash: 1_000_000,
            positions: holdings
        )
    }
}

/// A line on standard output at once (`print` to a pipe or a file is block-buffered).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
