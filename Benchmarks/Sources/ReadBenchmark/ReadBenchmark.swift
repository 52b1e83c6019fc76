import AsyncHTTPClient
import BenchmarkSupport
import ChildProcess
import Foundation
import NIOCore
import NIOHTTP1

/// The gateway against the floor (the same read on the same stack, without the gateway) and against the client-side
/// aggregator its users would write instead, on the same broker, in one run, so every figure is a ratio to both.
///
/// Starts the built-in sandboxes as a process of their own (`gateway sandbox`) with a fixed latency injected into
/// every TradeOgre answer (TradeOgre's sandbox has no rate limit), then the real `gateway serve` on a fresh data folder
/// with `--accounts` TradeOgre connections to that sandbox, reads coalescing off (every read reaches the broker, as
/// the aggregator's do) and the gateway's per-tenant limits lifted, and `FloorServer` (built beside this benchmark)
/// calling the same sandbox once per account per read. For each client count, alternating in rounds, it drives
/// `/v1/quotes?symbols=XMR/BTC` through the gateway, then the same path through the floor (the same `drive`), then
/// runs `ccxt_reads.py` (ccxt's async TradeOgre client, one exchange per account, `asyncio.gather` per read) for the
/// same time, and prints reads/s, latency medians and p99s against the injected latency (the physical limit), and CPU
/// per read: the gateway's and the floor's processes' (from /proc) against the aggregator's own. `--floor off` leaves
/// the floor out.
///
/// With `--database-url postgres://…` and `--instances 2`, the gateways are that many `gateway serve` processes on one
/// PostgreSQL database (one data folder: one master key), and each round also drives the clients spread over every
/// instance (client `i` reads from instance `i mod n`), against the same clients on the first instance alone; CPU is
/// the sum over the instances.
///
///     swift build --package-path Benchmarks -c release --product gateway --product FloorServer --product ReadBenchmark
///     Benchmarks/.build/release/ReadBenchmark --python .venv-fidelity-tradeogre/bin/python \
///         [--clients 1,10,100,1000] [--seconds 10] [--warmup 2] [--rounds 3] [--latency-ms 25] [--accounts 2] \
///         [--floor on|off] [--floor-server PATH] [--database-url postgres://… --instances 2]
@main
struct ReadBenchmark {
    static let unlimitedTenant = [
        "--limits-tenant-requests-per-second", "1000000", "--limits-tenant-burst", "1000000",
        "--limits-key-requests-per-second", "1000000", "--limits-key-burst", "1000000",
        "--limits-fan-outs-in-flight", "100000",
    ]

    static func main() async {
        do {
            try await benchmark()
        } catch {
            FileHandle.standardError.write(Data("ReadBenchmark: \(error)\n".utf8))
            exit(1)
        }
    }

    static func benchmark() async throws {
        let arguments = Arguments(CommandLine.arguments)
        let levels = try arguments.ints("--clients", [1, 10, 100, 1000])
        let seconds = try arguments.int("--seconds", 10)
        let warmup = try arguments.int("--warmup", 2)
        let rounds = try arguments.int("--rounds", 3)
        let latency = try arguments.int("--latency-ms", 25)
        let accounts = try arguments.int("--accounts", 2)
        let databaseURL = try arguments.string("--database-url", "")
        let instances = try max(1, arguments.int("--instances", 1))
        guard instances == 1 || !databaseURL.isEmpty else {
            throw BenchmarkError("--instances above 1 needs --database-url postgres://… (instances share one database)")
        }
        let database = databaseURL.isEmpty ? [] : ["--database-url", databaseURL]
        let binary = try arguments.string("--gateway", siblingGateway())
        let python = try arguments.string("--python", "")
        let floorSwitch = try arguments.string("--floor", "on")
        guard floorSwitch == "on" || floorSwitch == "off" else {
            throw BenchmarkError("--floor expects on or off, not \"\(floorSwitch)\"")
        }
        let floorBinary = try arguments.string("--floor-server", siblingExecutable("FloorServer"))
        let script = try arguments.string(
            "--ccxt-script",
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ccxt_reads.py").path
        )
        let path = "/v1/quotes?symbols=XMR/BTC"

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-reads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data").path

        // The broker: the built-in sandboxes in a process of their own, TradeOgre's answers delayed by `latency`.
        let sandboxes = try ChildProcess(
            executable: binary,
            arguments: ["sandbox", "--base-port", "0"],
            standardOutput: .lines,
            standardError: .file(directory.appendingPathComponent("sandbox.log").path)
        )
        let broker = try await tradeOgre(from: sandboxes)
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                timeout: .init(connect: .seconds(5), read: .seconds(60)),
                connectionPool: .init(
                    idleTimeout: .seconds(120),
                    concurrentHTTP1ConnectionsPerHostSoftLimit: (levels.max() ?? 1) + 8
                )
            )
        )
        var gatewayProcesses: [ChildProcess] = []
        var floorProcess: ChildProcess?
        do {
            try await send(
                http,
                "PUT",
                broker.origin + "/_sandbox/faults",
                body: [
                    "rules": [["kind": "latency", "latencyMs": latency]]
                ]
            )

            // The gateway: a tenant and an admin key made by the operator commands, then a user and its connections.
            let tenant = try await run(binary, ["tenants", "create", "--name", "benchmark", "--data-dir", data] + database)
            let tenantId = String(try first(tenant).split(separator: "\t")[0])
            let keyLines = try await run(
                binary,
                [
                    "keys", "create", "--tenant", tenantId, "--scopes", "admin,read,trade", "--label", "benchmark",
                    "--data-dir", data,
                ] + database
            )
            guard keyLines.count >= 2 else { throw BenchmarkError("keys create printed \(keyLines)") }
            let key = keyLines[1]
            var bases: [String] = []
            for _ in 0..<instances {
                let process = try ChildProcess(
                    executable: binary,
                    arguments: [
                        "serve", "--port", "0", "--sandbox", "off", "--data-dir", data, "--egress-allow", "127.0.0.0/8",
                        "--reads-coalesce", "off", "--log-level", "notice",
                    ] + unlimitedTenant + database,
                    standardOutput: .discard,
                    standardError: .lines
                )
                gatewayProcesses.append(process)
                bases.append(try await servingURL(process))
            }
            let gateway = gatewayProcesses[0]
            let base = bases[0]
            var headers = ["Authorization": "Bearer \(key)"]
            let user = try await send(http, "POST", base + "/v1/users", body: ["externalId": "benchmark"], headers: headers)
            guard let userId = (user["data"] as? [String: Any])?["id"] as? String else {
                throw BenchmarkError("no user id in \(user)")
            }
            headers["X-User-ID"] = userId
            for index in 0..<accounts {
                _ = try await send(
                    http,
                    "POST",
                    base + "/v1/connections",
                    body: [
                        "broker": "tradeogre", "displayName": "TradeOgre \(index + 1)", "baseURL": broker.url,
                        "credentials": ["apiKey": broker.apiKey, "apiSecret": broker.apiSecret],
                    ],
                    headers: headers
                )
            }
            let probe = try await send(http, "GET", base + path, headers: headers)
            let sources = probe["sources"] as? [[String: Any]] ?? []
            guard sources.count == accounts, sources.allSatisfy({ $0["status"] as? String == "ok" }) else {
                throw BenchmarkError("the first read did not reach every account: \(probe)")
            }
            let idle = ProcStatus(pid: gateway.pid)

            // The floor: the same read on the same stack, one process with its own token, reading the same sandbox.
            var floor: (process: ChildProcess, url: String, headers: [String: String])?
            if floorSwitch == "on" {
                let token = UUID().uuidString
                let process = try ChildProcess(
                    executable: floorBinary,
                    arguments: [
                        "--port", "0", "--upstream", broker.url, "--token", token, "--accounts", String(accounts),
                    ],
                    standardOutput: .lines,
                    standardError: .file(directory.appendingPathComponent("floor.log").path)
                )
                floorProcess = process
                let floorHeaders = ["Authorization": "Bearer \(token)"]
                let url = try await servingURL(process, marker: "FloorServer is serving") + path
                let floorProbe = try await send(http, "GET", url, headers: floorHeaders)
                let floorSources = floorProbe["sources"] as? [[String: Any]] ?? []
                guard floorSources.count == accounts, floorSources.allSatisfy({ $0["status"] as? String == "ok" }) else {
                    throw BenchmarkError("the floor's first read did not reach every account: \(floorProbe)")
                }
                floor = (process, url, floorHeaders)
            }
            let floorIdle = floor.flatMap { ProcStatus(pid: $0.process.pid) }

            print(
                "BrokerGateway read benchmark: \(path) over \(accounts) TradeOgre connections, \(latency) ms injected "
                    + "latency, \(seconds) s measured per run after \(warmup) s of warm-up, \(rounds) rounds alternating"
            )
            print(
                "idle RSS after setup: gateway \(idle.map { "\($0.rssKB / 1024) MB" } ?? "-")"
                    + (floor == nil ? "" : ", floor \(floorIdle.map { "\($0.rssKB / 1024) MB" } ?? "-")")
            )
            if instances > 1 {
                print("\(instances) instances on PostgreSQL; each round also spreads the clients over all of them")
            }
            var rows: [Row] = []
            for clients in levels {
                var gatewayRuns: [RunResult] = []
                var floorRuns: [RunResult] = []
                var ccxtRuns: [RunResult] = []
                var clusterRuns: [RunResult] = []
                for _ in 0..<rounds {
                    gatewayRuns.append(
                        try await drive(
                            http,
                            urls: [base + path],
                            headers: headers,
                            clients: clients,
                            seconds: seconds,
                            warmup: warmup,
                            pids: [gateway.pid]
                        )
                    )
                    if instances > 1 {
                        clusterRuns.append(
                            try await drive(
                                http,
                                urls: bases.map { $0 + path },
                                headers: headers,
                                clients: clients,
                                seconds: seconds,
                                warmup: warmup,
                                pids: gatewayProcesses.map(\.pid)
                            )
                        )
                    }
                    if let floor {
                        floorRuns.append(
                            try await drive(
                                http,
                                urls: [floor.url],
                                headers: floor.headers,
                                clients: clients,
                                seconds: seconds,
                                warmup: warmup,
                                pids: [floor.process.pid]
                            )
                        )
                    }
                    if !python.isEmpty {
                        ccxtRuns.append(
                            try await ccxt(
                                python: python,
                                script: script,
                                broker: broker,
                                clients: clients,
                                seconds: seconds,
                                warmup: warmup,
                                accounts: accounts
                            )
                        )
                    }
                }
                let row = Row(clients: clients, gateway: gatewayRuns, floor: floorRuns, ccxt: ccxtRuns, cluster: clusterRuns)
                print(row.line(latency: latency))
                rows.append(row)
            }
            let peak = ProcStatus(pid: gateway.pid)
            let floorPeak = floor.flatMap { ProcStatus(pid: $0.process.pid) }
            print("")
            print(Row.header)
            for row in rows { print(row.markdown(latency: latency)) }
            if instances > 1 {
                print("")
                print(Row.clusterHeader(instances))
                for row in rows { print(row.clusterMarkdown()) }
            }
            print("")
            print("gateway RSS: idle \(idle.map { "\($0.rssKB / 1024) MB" } ?? "-"), peak \(peak.map { "\($0.peakKB / 1024) MB" } ?? "-")")
            if floor != nil {
                print(
                    "floor RSS: idle \(floorIdle.map { "\($0.rssKB / 1024) MB" } ?? "-"), "
                        + "peak \(floorPeak.map { "\($0.peakKB / 1024) MB" } ?? "-")"
                )
            }
        } catch {
            try? await http.shutdown()
            for process in gatewayProcesses { await process.stop() }
            await floorProcess?.stop()
            await sandboxes.stop()
            throw error
        }
        try await http.shutdown()
        for process in gatewayProcesses { await process.stop() }
        await floorProcess?.stop()
        await sandboxes.stop()
    }

    // MARK: One run

    /// `clients` concurrent clients reading until the time is up, client `i` from `urls[i mod n]`; CPU from the
    /// gateways' /proc entries, summed.
    static func drive(
        _ http: HTTPClient,
        urls: [String],
        headers: [String: String],
        clients: Int,
        seconds: Int,
        warmup: Int,
        pids: [Int32]
    ) async throws -> RunResult {
        let start = ContinuousClock.now
        let measureFrom = start + .seconds(warmup)
        let end = measureFrom + .seconds(seconds)
        let cpuAtStart = Task {
            try await Task.sleep(until: measureFrom, clock: .continuous)
            return ProcStatus.cpuSeconds(pids: pids)
        }
        var result = RunResult()
        try await withThrowingTaskGroup(of: RunResult.self) { group in
            for client in 0..<clients {
                let url = urls[client % urls.count]
                group.addTask {
                    var mine = RunResult()
                    while true {
                        let began = ContinuousClock.now
                        if began >= end { break }
                        var request = HTTPClientRequest(url: url)
                        for (name, value) in headers { request.headers.add(name: name, value: value) }
                        var ok = false
                        do {
                            let response = try await http.execute(request, timeout: .seconds(60))
                            let body = try await response.body.collect(upTo: 8 << 20)
                            ok = response.status == .ok && String(buffer: body).contains("\"partial\":false")
                        } catch {
                            ok = false
                        }
                        if began >= measureFrom {
                            if ok { mine.latenciesMs.append((ContinuousClock.now - began).milliseconds) } else { mine.errors += 1 }
                        }
                    }
                    return mine
                }
            }
            for try await one in group { result.merge(one) }
        }
        let cpuAtEnd = ProcStatus.cpuSeconds(pids: pids)
        result.seconds = (ContinuousClock.now - measureFrom).milliseconds / 1000
        if let before = try await cpuAtStart.value, let cpuAtEnd { result.cpuSeconds = cpuAtEnd - before }
        return result
    }

    /// The same reads by ccxt in Python, for the same time.
    static func ccxt(
        python: String,
        script: String,
        broker: Broker,
        clients: Int,
        seconds: Int,
        warmup: Int,
        accounts: Int
    ) async throws -> RunResult {
        let output = try await run(
            python,
            [
                script, broker.url, broker.apiKey, broker.apiSecret, "XMR/BTC", String(clients), String(seconds),
                String(warmup), String(accounts),
            ]
        )
        guard let line = output.last, let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { throw BenchmarkError("ccxt_reads.py printed \(output.suffix(5))") }
        var result = RunResult()
        result.latenciesMs = (object["latencies_ms"] as? [Double]) ?? []
        result.errors = object["errors"] as? Int ?? 0
        result.seconds = object["seconds"] as? Double ?? 0
        result.cpuSeconds = object["cpu_seconds"] as? Double ?? 0
        return result
    }

    // MARK: Processes and HTTP

    struct Broker {
        var url: String
        var origin: String
        var apiKey: String
        var apiSecret: String
    }

    /// The TradeOgre line of `gateway sandbox`: `tradeogre<TAB>url<TAB>demo: apiKey=… apiSecret=…`.
    static func tradeOgre(from sandboxes: ChildProcess) async throws -> Broker {
        for await line in sandboxes.lines {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 3, fields[0] == "tradeogre", let url = URL(string: fields[1]),
                let scheme = url.scheme, let host = url.host, let port = url.port
            else { continue }
            var credentials: [String: String] = [:]
            for pair in fields[2].replacingOccurrences(of: "demo: ", with: "").split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { credentials[parts[0]] = parts[1] }
            }
            guard let apiKey = credentials["apiKey"], let apiSecret = credentials["apiSecret"] else { continue }
            // `gateway sandbox` prints the origin; TradeOgre's API root is `/api/v1` under it.
            let origin = "\(scheme)://\(host):\(port)"
            return Broker(url: origin + "/api/v1", origin: origin, apiKey: apiKey, apiSecret: apiSecret)
        }
        throw BenchmarkError("`gateway sandbox` ended without printing the TradeOgre sandbox")
    }

    /// The `url=` of a server's line that says it is serving: the gateway's "BrokerGateway is serving" log line,
    /// the floor's "FloorServer is serving".
    static func servingURL(_ server: ChildProcess, marker: String = "BrokerGateway is serving") async throws -> String {
        for await line in server.lines where line.contains(marker) {
            guard let start = line.range(of: "url=")?.upperBound else { continue }
            return String(line[start...].prefix { !$0.isWhitespace })
        }
        throw BenchmarkError("\(marker.split(separator: " ").first ?? "the server") ended before serving")
    }

    /// Runs a program to its end and returns its standard output's lines; a non-zero exit is an error.
    static func run(_ executable: String, _ arguments: [String]) async throws -> [String] {
        let process = try ChildProcess(
            executable: executable,
            arguments: arguments,
            standardOutput: .lines,
            standardError: .discard
        )
        var lines: [String] = []
        for await line in process.lines { lines.append(line) }
        let termination = await process.termination()
        guard termination == .exited(0) else {
            throw BenchmarkError("\(executable) \(arguments.prefix(2).joined(separator: " ")) \(termination.map(\.description) ?? "")")
        }
        return lines
    }

    static func first(_ lines: [String]) throws -> String {
        guard let line = lines.first else { throw BenchmarkError("no output") }
        return line
    }

    @discardableResult
    static func send(
        _ http: HTTPClient,
        _ method: String,
        _ url: String,
        body: [String: Any]? = nil,
        headers: [String: String] = [:]
    ) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url)
        request.method = .RAW(value: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 8 << 20)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw BenchmarkError("\(method) \(url): \(response.status.code) \(String(buffer: bytes))")
        }
        guard bytes.readableBytes > 0 else { return [:] }
        return (try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]) ?? [:]
    }
}

/// What one run measured.
struct RunResult: Sendable {
    var latenciesMs: [Double] = []
    var errors = 0
    var seconds: Double = 0
    var cpuSeconds: Double = 0

    var readsPerSecond: Double { seconds > 0 ? Double(latenciesMs.count) / seconds : 0 }
    var cpuMsPerRead: Double { latenciesMs.isEmpty ? 0 : cpuSeconds * 1000 / Double(latenciesMs.count) }

    mutating func merge(_ other: RunResult) {
        latenciesMs += other.latenciesMs
        errors += other.errors
    }
}

/// One client count: every round of every side, summarised as medians over rounds (rates, CPU) and over every read
/// of every round (latency).
struct Row {
    var clients: Int
    var gateway: [RunResult]
    /// The floor's runs (empty with `--floor off`).
    var floor: [RunResult]
    /// The aggregator's runs (empty without `--python`).
    var ccxt: [RunResult]
    /// The same clients spread over every instance (empty with one instance).
    var cluster: [RunResult] = []

    static func clusterHeader(_ instances: Int) -> String {
        """
        | clients | 1 instance reads/s | \(instances) instances reads/s | \(instances) / 1 | 1 instance median / p99 \
        | \(instances) instances median / p99 | CPU per read, 1 / \(instances) |
        |---|---|---|---|---|---|---|
        """
    }

    func clusterMarkdown() -> String {
        let one = median(gateway.map(\.readsPerSecond))
        let many = median(cluster.map(\.readsPerSecond))
        let oneLatencies = gateway.flatMap(\.latenciesMs).sorted()
        let manyLatencies = cluster.flatMap(\.latenciesMs).sorted()
        let errors = cluster.map(\.errors).reduce(0, +)
        return "| \(clients) | \(f(one, 0)) | \(f(many, 0)) | \(ratio(many, one)) "
            + "| \(f(quantile(oneLatencies, 0.5), 1)) / \(f(quantile(oneLatencies, 0.99), 1)) ms "
            + "| \(f(quantile(manyLatencies, 0.5), 1)) / \(f(quantile(manyLatencies, 0.99), 1)) ms "
            + "| \(f(median(gateway.map(\.cpuMsPerRead)), 2)) / \(f(median(cluster.map(\.cpuMsPerRead)), 2)) ms |"
            + (errors > 0 ? " errors: \(errors)" : "")
    }

    /// The columns, in groups: reads/s of each side, then latency, then CPU per read, then the ratios issue 29's
    /// targets are stated in (gateway CPU per read against the floor's and ccxt's, gateway reads/s against ccxt's).
    /// A side that did not run (`--floor off`, no `--python`) shows `-`.
    static let header = """
        | clients | gateway reads/s | floor reads/s | ccxt reads/s | gateway median / p99 | floor median / p99 \
        | ccxt median / p99 | gateway median / latency | gateway CPU per read | floor CPU per read | ccxt CPU per read \
        | gateway / floor CPU | gateway / ccxt CPU | gateway / ccxt reads/s |
        |---|---|---|---|---|---|---|---|---|---|---|---|---|---|
        """

    func line(latency: Int) -> String {
        "clients \(clients): " + markdown(latency: latency)
    }

    func markdown(latency: Int) -> String {
        let gatewayRate = median(gateway.map(\.readsPerSecond))
        let floorRate = median(floor.map(\.readsPerSecond))
        let ccxtRate = median(ccxt.map(\.readsPerSecond))
        let gatewayCPU = median(gateway.map(\.cpuMsPerRead))
        let floorCPU = median(floor.map(\.cpuMsPerRead))
        let ccxtCPU = median(ccxt.map(\.cpuMsPerRead))
        let gatewayLatencies = gateway.flatMap(\.latenciesMs).sorted()
        let errors = [("gateway", gateway), ("floor", floor), ("ccxt", ccxt)].compactMap { side, runs in
            let count = runs.map(\.errors).reduce(0, +)
            return count > 0 ? "\(side) \(count)" : nil
        }
        return "| \(clients) | \(f(gatewayRate, 0)) | \(f(floorRate, 0)) | \(f(ccxtRate, 0)) "
            + "| \(medianAndP99(gateway)) | \(medianAndP99(floor)) | \(medianAndP99(ccxt)) "
            + "| \(ratio(quantile(gatewayLatencies, 0.5), Double(latency))) "
            + "| \(f(gatewayCPU, 2)) ms | \(f(floorCPU, 2)) ms | \(f(ccxtCPU, 2)) ms "
            + "| \(ratio(gatewayCPU, floorCPU)) | \(ratio(gatewayCPU, ccxtCPU)) | \(ratio(gatewayRate, ccxtRate)) |"
            + (errors.isEmpty ? "" : " errors: \(errors.joined(separator: ", "))")
    }

    /// The median and p99 latency over every read of every run of one side.
    func medianAndP99(_ runs: [RunResult]) -> String {
        let latencies = runs.flatMap(\.latenciesMs).sorted()
        return "\(f(quantile(latencies, 0.5), 1)) / \(f(quantile(latencies, 0.99), 1)) ms"
    }

    func median(_ values: [Double]) -> Double { quantile(values.sorted(), 0.5) }

    func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
    }

    func f(_ value: Double, _ digits: Int) -> String { value.isNaN ? "-" : String(format: "%.\(digits)f", value) }
    func ratio(_ a: Double, _ b: Double) -> String { a.isNaN || b.isNaN || b == 0 ? "-" : String(format: "%.2f×", a / b) }
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}
