import AsyncHTTPClient
import ChildProcess
import Foundation
import GatewayPostgresStore
import GatewaySQLiteStore
import GatewayStore
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
import TestWorlds
#endif

/// Two real `gateway serve` processes on one PostgreSQL database (a schema of its own per test), with the built-in
/// sandboxes as a third process they both reach over loopback. Needs `BROKERGATEWAY_TEST_POSTGRES_URL` (`.ci/run`
/// starts a throwaway server and sets it).
// Each test's time limit is a backstop against a hung cluster, not a deadline: it also covers the wait for a world
// slot (`.heavyWorld`) on a loaded machine.
@Suite("Many gateway processes on one PostgreSQL database", .heavyWorld)
struct MultiInstanceProcessTests {
    static let postgresURL = ProcessInfo.processInfo.environment["BROKERGATEWAY_TEST_POSTGRES_URL"]
        .flatMap { $0.isEmpty ? nil : $0 }

    @Test(
        .enabled(if: postgresURL != nil, "BROKERGATEWAY_TEST_POSTGRES_URL is not set: .ci/run starts a server and sets it"),
        .timeLimit(.minutes(10))
    )
    func fiftyRequestsWithOneIdempotencyKeyOverTwoInstancesPlaceOneOrder() async throws {
        try await Cluster.with(instances: 2) { cluster in
            let key = "one-order-\(UUID().uuidString)"
            let body = try JSONSerialization.data(withJSONObject: cluster.orderBody(limitPrice: "50"))
            struct Answer: Sendable {
                var status: Int
                var orderId: String?
                var clientOrderId: String?
                var body: String
            }
            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for request in 0..<50 {
                    let instance = cluster.instances[request % 2]
                    group.addTask {
                        let (status, object) = try await cluster.send(
                            "POST",
                            instance.url + "/v1/orders",
                            json: body,
                            headers: ["Idempotency-Key": key]
                        )
                        let order = object["data"] as? [String: Any]
                        return Answer(
                            status: status,
                            orderId: order?["id"] as? String,
                            clientOrderId: order?["clientOrderId"] as? String,
                            body: "\(object)"
                        )
                    }
                }
                var answers: [Answer] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
            #expect(answers.count == 50)
            let statuses = Set(answers.map(\.status))
            #expect(statuses == [201], "statuses \(statuses): \(answers.filter { $0.status != 201 }.prefix(3).map(\.body))")
            let ids = Set(answers.compactMap(\.orderId))
            #expect(ids.count == 1, "order ids \(ids)")
            let clientOrderIds = Set(answers.compactMap(\.clientOrderId))
            #expect(clientOrderIds.count == 1, "client order ids \(clientOrderIds)")

            // The broker's truth: exactly one order, the journal's.
            let atBroker = try await cluster.brokerOrders()
            #expect(atBroker.count == 1, "orders at the broker: \(atBroker.map { $0["client_order_id"] ?? "?" })")
            #expect(atBroker.first?["client_order_id"] as? String == clientOrderIds.first)
        }
    }

    @Test(
        .enabled(if: postgresURL != nil, "BROKERGATEWAY_TEST_POSTGRES_URL is not set: .ci/run starts a server and sets it"),
        .timeLimit(.minutes(10))
    )
    func whenTheReconcilersLeaderIsKilledTheOtherInstanceResolvesTheUnknownOrder() async throws {
        try await Cluster.with(instances: 2) { cluster in
            // Which instance leads the reconciler: each says so in its log when it takes the lease.
            let leader = try await cluster.leader()
            let follower = cluster.instances.first { $0 !== leader }!

            // The broker takes the order but its answer never arrives, and until the leader is gone every lookup of
            // an order fails: the placement ends `unknown` and no reconciliation can resolve it yet.
            try await cluster.setFaults([
                ["kind": "dropResponse", "method": "POST", "pathPrefix": "/v2/orders", "count": 1],
                ["kind": "error", "method": "GET", "pathPrefix": "/v2/orders", "status": 503],
            ])
            let (status, placed) = try await cluster.send(
                "POST",
                follower.url + "/v1/orders",
                body: cluster.orderBody(limitPrice: "51"),
                headers: ["Idempotency-Key": "unknown-\(UUID().uuidString)"]
            )
            #expect(status == 202, "\(placed)")
            let order = try #require(placed["data"] as? [String: Any])
            let orderId = try #require(order["id"] as? String)
            #expect(order["status"] as? String == "unknown")

            leader.process.send(SIGKILL)
            #expect(await leader.process.termination() == .signalled(SIGKILL))
            try await cluster.setFaults([])

            // The follower takes the lapsed lease and resolves the order in the background: its log says it leads,
            // then the order leaves `unknown` in the shared journal, read straight from the database (a read through
            // the API would reconcile on demand and prove nothing about the background reconciler).
            _ = try #require(
                await follower.log.first(within: .seconds(120)) { $0.contains("this instance runs the reconciler") },
                "the surviving instance never took the reconciler's lease"
            )
            let resolved = try await cluster.waitForJournalState(orderId: orderId, notIn: ["unknown", "submitting"])
            #expect(resolved == "accepted", "the order is \(resolved) in the journal")
            let atBroker = try await cluster.brokerOrders()
            #expect(atBroker.count == 1)
        }
    }
}

extension MultiInstanceProcessTests {
    @Test(
        .enabled(if: postgresURL != nil, "BROKERGATEWAY_TEST_POSTGRES_URL is not set: .ci/run starts a server and sets it"),
        .timeLimit(.minutes(10))
    )
    func aKeyRevokedThroughOneInstanceIsRefusedByTheOtherOnItsNextRequest() async throws {
        try await Cluster.with(instances: 2) { cluster in
            let (first, second) = (cluster.instances[0], cluster.instances[1])
            // The first instance has the key, its tenant and the user's connections in memory after these.
            for _ in 0..<3 {
                let (status, body) = try await cluster.send("GET", first.url + "/v1/connections")
                #expect(status == 200, "\(body)")
            }
            let (revoked, answer) = try await cluster.send("DELETE", second.url + "/v1/keys/\(cluster.keyId)", actingForUser: false)
            #expect((200..<300).contains(revoked), "\(answer)")
            let (status, body) = try await cluster.send("GET", first.url + "/v1/connections")
            #expect(status == 401, "the revoked key was still accepted by the other instance: \(body)")
        }
    }
}

extension MultiInstanceProcessTests {
    @Test(
        .enabled(if: postgresURL != nil, "BROKERGATEWAY_TEST_POSTGRES_URL is not set: .ci/run starts a server and sets it"),
        .timeLimit(.minutes(10))
    )
    func bothInstancesCountEachOtherAndShareTheBrokersRateLimits() async throws {
        try await Cluster.with(instances: 2) { cluster in
            // Each instance learns from the membership leases that two share every broker connection's budgets (the
            // pacing itself, a half of each budget per instance, is proven in RateLimiterTests).
            for instance in cluster.instances {
                let line = await instance.log.first(within: .seconds(60)) {
                    $0.contains("instances sharing the brokers' rate limits") && $0.contains("instances=2")
                }
                #expect(line != nil, "an instance never counted two instances")
            }
        }
    }
}

/// One gateway instance under test: its process, its URL and its log.
final class Instance: Sendable {
    let process: ChildProcess
    let url: String
    let log: LogWatch

    init(process: ChildProcess, url: String, log: LogWatch) {
        self.process = process
        self.url = url
        self.log = log
    }
}

/// Every line a process writes to the stream it sends to `.lines`, kept, and awaited by predicate.
final class LogWatch: Sendable {
    private let state = Mutex<
        (
            lines: [String], ended: Bool, waiters: [Int: (predicate: @Sendable (String) -> Bool, continuation: CheckedContinuation<String?, Never>)],
            next: Int
        )
    >(([], false, [:], 0))

    init(_ process: ChildProcess) {
        let lines = process.lines
        Task { [self] in
            for await line in lines { append(line) }
            end()
        }
    }

    private func append(_ line: String) {
        let matched = state.withLock { state -> [CheckedContinuation<String?, Never>] in
            state.lines.append(line)
            let matching = state.waiters.filter { $0.value.predicate(line) }
            for key in matching.keys { state.waiters[key] = nil }
            return matching.values.map(\.continuation)
        }
        for continuation in matched { continuation.resume(returning: line) }
    }

    private func end() {
        let waiting = state.withLock { state in
            state.ended = true
            defer { state.waiters = [:] }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: nil) }
    }

    /// The last `count` lines written so far (for a failure's message).
    func recent(_ count: Int) -> [String] {
        state.withLock { Array($0.lines.suffix(count)) }
    }

    /// The first line (already written or still to come) that matches; `nil` if the stream ends or time runs out.
    func first(within limit: Duration, where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask { await self.first(where: predicate) }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let found = await group.next() ?? nil
            group.cancelAll()
            return found
        }
    }

    func first(where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        let id = state.withLock { state -> Int in
            state.next += 1
            return state.next
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let ready = state.withLock { state -> String?? in
                    if let line = state.lines.first(where: predicate) { return .some(line) }
                    if state.ended || Task.isCancelled { return .some(nil) }
                    state.waiters[id] = (predicate, continuation)
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(returning: nil)
        }
    }
}

/// The sandboxes, a database schema, a tenant with an admin key, and N gateway instances serving it, with one user
/// and one Alpaca connection linked through the first.
struct Cluster: Sendable {
    let binary: String
    let databaseURL: String
    let data: String
    /// Each instance's data folder: `data` for all, unless the cluster was given its secrets.
    let instanceData: [String]
    /// The secrets every process had in its environment; empty: the shared data folder's files.
    let secrets: [String: String]
    let alpaca: String
    let instances: [Instance]
    let tenantId: String
    let keyId: String
    let key: String
    var userId = ""
    var connectionId = ""
    var accountId = ""

    /// `serving` is added to every instance's `gateway serve` arguments. With `secrets` (the master, transfer and
    /// session keys as environment variables), every process, the operator's commands included, gets them in its
    /// environment and a data folder of its own: nothing is shared but the environment and the database.
    static func with(
        instances count: Int,
        serving extra: [String] = [],
        secrets: [String: String] = [:],
        _ body: (Cluster) async throws -> Void
    ) async throws {
        let binary = TracingExportTests.gatewayBinary.path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "no gateway binary at \(binary)")
        let base = try #require(MultiInstanceProcessTests.postgresURL)
        let schema = "multi_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
        let databaseURL = base + (base.contains("?") ? "&" : "?") + "schema=\(schema)"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-multi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data").path
        let environment = secrets.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(secrets) { $1 }
        // The data folder of the instance numbered `index` (the operator's commands: `nil`).
        func dataFolder(_ index: Int?) -> String {
            guard !secrets.isEmpty, let index else { return data }
            return directory.appendingPathComponent("data-\(index)").path
        }

        let sandboxes = try ChildProcess(
            executable: binary,
            arguments: ["sandbox", "--base-port", "0"],
            standardOutput: .lines,
            standardError: .file(directory.appendingPathComponent("sandbox.log").path)
        )
        var started: [Instance] = []
        do {
            var alpaca: (url: String, keyId: String, secretKey: String)?
            for await line in sandboxes.lines {
                let fields = line.split(separator: "\t").map(String.init)
                guard fields.count == 3, fields[0] == "alpaca" else { continue }
                var credentials: [String: String] = [:]
                for pair in fields[2].replacingOccurrences(of: "demo: ", with: "").split(separator: " ") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    if parts.count == 2 { credentials[parts[0]] = parts[1] }
                }
                alpaca = (fields[1], credentials["keyId"] ?? "", credentials["secretKey"] ?? "")
                break
            }
            let broker = try #require(alpaca, "`gateway sandbox` never printed the Alpaca sandbox")

            // The operator's commands make the tenant and its key, on the same database and data folder.
            let tenant = try await run(
                binary,
                ["tenants", "create", "--name", "multi", "--data-dir", data, "--database-url", databaseURL],
                environment: environment
            )
            let tenantId = String(try #require(tenant.first).split(separator: "\t")[0])
            let keyLines = try await run(
                binary,
                [
                    "keys", "create", "--tenant", tenantId, "--scopes", "admin,read,trade", "--label", "multi",
                    "--data-dir", data, "--database-url", databaseURL,
                ],
                environment: environment
            )
            let key = try #require(keyLines.count >= 2 ? keyLines[1] : nil, "keys create printed \(keyLines)")

            // One after another: the first creates the data folder's session keys, the others read them.
            for index in 0..<count {
                let process = try ChildProcess(
                    executable: binary,
                    arguments: [
                        "serve", "--port", "0", "--sandbox", "off", "--data-dir", dataFolder(index), "--database-url", databaseURL,
                        "--egress-allow", "127.0.0.0/8", "--log-level", "notice",
                        // The lease lasts five intervals, at least 10 s: a killed leader's lapses 10 s after its last turn.
                        "--orders-reconcile-interval-ms", "300",
                        "--orders-broker-timeout-ms", "2000",
                    ] + extra,
                    environment: environment,
                    standardOutput: .discard,
                    standardError: .lines
                )
                let log = LogWatch(process)
                let serving = await log.first(within: .seconds(120)) { $0.contains("BrokerGateway is serving") }
                guard let serving, let start = serving.range(of: "url=")?.upperBound else {
                    await process.stop()
                    throw ClusterError("an instance never served")
                }
                started.append(
                    Instance(
                        process: process,
                        url: String(serving[start...].prefix { !$0.isWhitespace }),
                        log: log
                    )
                )
            }

            let keyId = String(try #require(keyLines.first).split(separator: "\t")[0])
            var cluster = Cluster(
                binary: binary,
                databaseURL: databaseURL,
                data: data,
                instanceData: (0..<count).map { dataFolder($0) },
                secrets: secrets,
                alpaca: broker.url,
                instances: started,
                tenantId: tenantId,
                keyId: keyId,
                key: key
            )
            let (userStatus, user) = try await cluster.send("POST", started[0].url + "/v1/users", body: ["externalId": "multi"], actingForUser: false)
            #expect(userStatus == 201)
            let userId = try #require((user["data"] as? [String: Any])?["id"] as? String, "\(user)")
            cluster.userId = userId
            let (linkStatus, linked) = try await cluster.send(
                "POST",
                started[0].url + "/v1/connections",
                body: [
                    "broker": "alpaca", "displayName": "Alpaca", "baseURL": broker.url,
                    "credentials": ["keyId": broker.keyId, "secretKey": broker.secretKey],
                ]
            )
            #expect(linkStatus == 201, "\(linked)")
            let connectionId = try #require((linked["data"] as? [String: Any])?["id"] as? String, "\(linked)")
            let (_, accounts) = try await cluster.send("GET", started[1 % count].url + "/v1/accounts?connection=\(connectionId)")
            let accountId = try #require(((accounts["data"] as? [[String: Any]])?.first)?["id"] as? String, "\(accounts)")
            cluster.connectionId = connectionId
            cluster.accountId = accountId

            try await body(cluster)
        } catch {
            for instance in started { await instance.process.stop() }
            await sandboxes.stop()
            throw error
        }
        for instance in started { await instance.process.stop() }
        await sandboxes.stop()
    }

    func orderBody(limitPrice: String) -> [String: Any] {
        [
            "connectionId": connectionId, "accountId": accountId, "symbol": "AAPL", "side": "buy", "type": "limit",
            "timeInForce": "day", "quantity": "1", "limitPrice": limitPrice,
        ]
    }

    /// One request to a gateway with the tenant's key acting for the user; the status and the JSON body.
    func send(
        _ method: String,
        _ url: String,
        body: [String: Any]? = nil,
        headers: [String: String] = [:],
        actingForUser: Bool = true
    ) async throws -> (Int, [String: Any]) {
        try await send(
            method,
            url,
            json: try body.map { try JSONSerialization.data(withJSONObject: $0) },
            headers: headers,
            actingForUser: actingForUser
        )
    }

    func send(
        _ method: String,
        _ url: String,
        json body: Data?,
        headers: [String: String] = [:],
        actingForUser: Bool = true,
        client: HTTPClient = .shared
    ) async throws -> (Int, [String: Any]) {
        var request = HTTPClientRequest(url: url)
        request.method = .RAW(value: method)
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        if actingForUser { request.headers.add(name: "X-User-ID", value: userId) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 8 << 20)
        let object =
            bytes.readableBytes == 0
            ? [:] : (try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]) ?? [:]
        return (Int(response.status.code), object)
    }

    /// Every order the Alpaca sandbox holds for the demo account.
    func brokerOrders() async throws -> [[String: Any]] {
        var request = HTTPClientRequest(url: alpaca + "/v2/orders?status=all&limit=500")
        request.headers.add(name: "APCA-API-KEY-ID", value: "SANDBOX-ALPACA-KEY")
        request.headers.add(name: "APCA-API-SECRET-KEY", value: "SANDBOX-ALPACA-SECRET")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 24)
        return (try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [[String: Any]]) ?? []
    }

    /// Replaces the Alpaca sandbox's fault rules.
    func setFaults(_ rules: [[String: Any]]) async throws {
        var request = HTTPClientRequest(url: alpaca + "/_sandbox/faults")
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: ["rules": rules])))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw ClusterError("PUT /_sandbox/faults: \(response.status)") }
    }

    /// The instance whose log says it took the reconciler's lease.
    func leader() async throws -> Instance {
        try await withThrowingTaskGroup(of: Instance?.self) { group in
            for instance in instances {
                group.addTask {
                    await instance.log.first(within: .seconds(60)) { $0.contains("this instance runs the reconciler") }
                        .map { _ in instance }
                }
            }
            defer { group.cancelAll() }
            while let found = try await group.next() {
                if let found { return found }
            }
            throw ClusterError("no instance took the reconciler's lease")
        }
    }

    /// Reads the order's state from the shared journal in the database until it leaves `states` (another process
    /// writes it: there is no event here to await, so the journal is polled).
    func waitForJournalState(orderId: String, notIn states: Set<String>) async throws -> String {
        let cipher = try CredentialCipher.load(environment: secrets, dataDirectory: URL(fileURLWithPath: data))
        return try await PostgresStore.withStore(settings: try PostgresStoreSettings(url: databaseURL), cipher: cipher) { store in
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(120)
            while clock.now < deadline {
                if let state = try await store.journaledOrder(tenantId: tenantId, id: orderId)?.state.rawValue,
                    !states.contains(state)
                {
                    return state
                }
                try await Task.sleep(for: .milliseconds(250))
            }
            throw ClusterError("order \(orderId) is still in \(states) after 120 s")
        }
    }
}

/// Runs a program to its end; its standard output's lines. A non-zero exit is an error.
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> [String] {
    let process = try ChildProcess(
        executable: executable,
        arguments: arguments,
        environment: environment,
        standardOutput: .lines,
        standardError: .discard
    )
    var lines: [String] = []
    for await line in process.lines { lines.append(line) }
    let termination = await process.termination()
    guard termination == .exited(0) else {
        throw ClusterError("\(arguments.prefix(2).joined(separator: " ")): \(termination.map(\.description) ?? "?"): \(lines.suffix(5))")
    }
    return lines
}

struct ClusterError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
