import AlpacaAdapter
import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import HTTPTypes
import HostileBroker
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Sandbox
import Synchronization
import TestWorlds
import Testing

/// The unified API, the real Alpaca adapter and the real transport, with a tenant pointing a connection at a broker
/// that attacks (Tests/HostileBroker) and the Alpaca sandbox beside it.
@Suite("End to end: hostile brokers and egress", .heavyWorld)
struct HostileBrokerEndToEndTests {
    struct World: Sendable {
        let gateway: Gateway
        let store: SQLiteStore
        let sandboxURL: String
        let tenantA: Tenant
        let keyA: String
        let keyB: String

        func auth(_ key: String) -> HTTPFields {
            [.authorization: "Bearer \(key)", .contentType: "application/json", HTTPField.Name("Idempotency-Key")!: UUID().uuidString]
        }
    }

    static let demoKeys = #"{"keyId":"\#(AlpacaSandboxAccount.demoKeyID)","secretKey":"\#(AlpacaSandboxAccount.demoSecretKey)"}"#

    /// A gateway whose registry runs the Alpaca sandbox as `sandbox://alpaca` (loopback, reached through the
    /// registry's sandbox grant) under `egress`, with two tenants.
    static func withWorld(
        egress: EgressPolicy,
        pipeline: PipelineSettings = PipelineSettings(),
        responseBudget: ResponseBudget = ResponseBudget(),
        _ body: @escaping @Sendable (World, any TestClientProtocol) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSandbox(AlpacaSandbox()) { url in
            let logger = Logger(label: "hostile", factory: { _ in SwiftLogNoOpLogHandler() })
            let store = try await SQLiteStore.opening(
                path: directory.appendingPathComponent("gateway.sqlite").path,
                cipher: .random(),
                logger: logger
            )
            let registry = AdapterRegistry(
                factories: [AlpacaAdapterFactory()],
                transport: HTTPClientTransport(policy: egress, responseBudget: responseBudget),
                logger: logger,
                pipeline: BrokerPipeline(settings: pipeline),
                egress: egress
            )
            registry.registerSandbox("alpaca", broker: .alpaca, url: url.absoluteString)
            let gateway = Gateway(
                store: store,
                registry: registry,
                // The silent and stalled modes end only at this deadline, so it is what they test; 8 s leaves the
                // sandbox's and the healthy link's answers room on a loaded machine, and keeps the test within a minute.
                router: BrokerRouter(perSourceTimeout: .seconds(8), overallTimeout: .seconds(10)),
                logger: logger,
                orderSettings: OrderSettings(brokerTimeout: .seconds(1))
            )
            let tenantA = try await store.createTenant(name: "A")
            let tenantB = try await store.createTenant(name: "B")
            let keyA = try await store.issueDefaultUserKey(tenantId: tenantA.id, label: "a").plaintext
            let keyB = try await store.issueDefaultUserKey(tenantId: tenantB.id, label: "b").plaintext
            let app = Application(router: try GatewayServer.router(gateway: gateway), logger: logger)
            let world = World(
                gateway: gateway,
                store: store,
                sandboxURL: url.absoluteString,
                tenantA: tenantA,
                keyA: keyA,
                keyB: keyB
            )
            try await app.test(.router) { client in try await body(world, client) }
        }
    }

    static func call(
        _ client: any TestClientProtocol,
        _ method: HTTPRequest.Method,
        _ uri: String,
        key: String,
        json: String? = nil,
        headers: HTTPFields? = nil
    ) async throws -> (status: Int, body: [String: Any], raw: Data) {
        var fields: HTTPFields = [.authorization: "Bearer \(key)", .contentType: "application/json"]
        fields[HTTPField.Name("Idempotency-Key")!] = UUID().uuidString
        return try await client.execute(uri: uri, method: method, headers: headers ?? fields, body: json.map { ByteBuffer(string: $0) }) { response in
            let data = Data(response.body.readableBytesView)
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            return (Int(response.status.code), object, data)
        }
    }

    static func link(
        _ client: any TestClientProtocol,
        key: String,
        baseURL: String,
        settings: String = "{}"
    ) async throws
        -> (status: Int, body: [String: Any])
    {
        let answer = try await call(
            client,
            .post,
            "/v1/connections",
            key: key,
            json: """
                {"broker":"alpaca","displayName":"x","baseURL":"\(baseURL)","settings":\(settings),"credentials":\(demoKeys)}
                """
        )
        return (answer.status, answer.body)
    }

    static func id(_ body: [String: Any]) -> String? { (body["data"] as? [String: Any])?["id"] as? String }
    static func fields(_ body: [String: Any]) -> [String] {
        ((body["error"] as? [String: Any])?["details"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
    }
    static func source(_ body: [String: Any], _ connection: String) -> [String: Any]? {
        (body["sources"] as? [[String: Any]])?.first { $0["connection"] as? String == connection }
    }

    /// Codes a broker's failure may become; `internal` (a 500) is never one.
    static let brokerFailureCodes: Set<String> = [
        "rate_limited", "upstream_timeout", "upstream_unavailable", "malformed_response", "egress_refused",
        "unprocessable", "rejected", "not_found", "forbidden", "unauthorized", "conflict", "invalid_request",
        "insufficient_funds", "market_closed",
    ]

    // MARK: The default policy

    @Test("under the default policy a tenant's loopback URLs are refused, at link and at call time; sandbox://alpaca works")
    func defaultPolicy() async throws {
        try await HostileBroker.withBroker({ _ in .json(200, #"{"id":"x","account_number":"x","status":"ACTIVE"}"#) }) { hostile in
            try await Self.withWorld(egress: EgressPolicy()) { world, client in
                // Linking: 422 naming the field, nothing sent.
                let loopback = try await Self.link(client, key: world.keyA, baseURL: hostile.url)
                #expect(loopback.status == 422)
                #expect(Self.fields(loopback.body) == ["baseURL"])
                let sandboxByPort = try await Self.link(client, key: world.keyA, baseURL: world.sandboxURL)
                #expect(sandboxByPort.status == 422)
                let admin = try await Self.link(client, key: world.keyA, baseURL: "sandbox://alpaca/_sandbox/prices?x=")
                #expect(admin.status == 422)
                #expect(Self.fields(admin.body) == ["baseURL"])
                let socket = try await Self.link(
                    client,
                    key: world.keyA,
                    baseURL: "sandbox://alpaca",
                    settings: #"{"dataBaseURL":"http+unix://%2Ftmp%2Fdocker.sock"}"#
                )
                #expect(socket.status == 422)
                #expect(Self.fields(socket.body) == ["settings.dataBaseURL"])
                let metadata = try await Self.link(
                    client,
                    key: world.keyA,
                    baseURL: "sandbox://alpaca",
                    settings: #"{"dataBaseURL":"http://169.254.169.254"}"#
                )
                #expect(Self.fields(metadata.body) == ["settings.dataBaseURL"])

                // The built-in sandbox, through sandbox://, under the same default policy.
                let sandbox = try await Self.link(client, key: world.keyA, baseURL: "sandbox://alpaca")
                #expect(sandbox.status == 201)
                let sandboxId = try #require(Self.id(sandbox.body))
                let positions = try await Self.call(client, .get, "/v1/positions", key: world.keyA)
                #expect(positions.status == 200)
                #expect(Self.source(positions.body, sandboxId)?["status"] as? String == "ok")

                // Rows that never passed a link check (older releases, an import) are refused when called.
                let credentials = BrokerCredentials(["keyId": AlpacaSandboxAccount.demoKeyID, "secretKey": AlpacaSandboxAccount.demoSecretKey])
                let direct = try await world.store.createConnection(
                    tenantId: world.tenantA.id,
                    userId: try await world.store.defaultUser(tenantId: world.tenantA.id).id,
                    NewConnection(broker: .alpaca, displayName: "direct", baseURL: hostile.url, credentials: credentials)
                )
                let adminRow = try await world.store.createConnection(
                    tenantId: world.tenantA.id,
                    userId: try await world.store.defaultUser(tenantId: world.tenantA.id).id,
                    NewConnection(broker: .alpaca, displayName: "admin", baseURL: "sandbox://alpaca/_sandbox/prices?x=", credentials: credentials)
                )
                let dataRow = try await world.store.createConnection(
                    tenantId: world.tenantA.id,
                    userId: try await world.store.defaultUser(tenantId: world.tenantA.id).id,
                    NewConnection(
                        broker: .alpaca,
                        displayName: "data",
                        baseURL: "sandbox://alpaca",
                        settings: ["dataBaseURL": hostile.url],
                        credentials: credentials
                    )
                )
                let reads = try await Self.call(client, .get, "/v1/positions", key: world.keyA)
                #expect(reads.status == 200)
                #expect((Self.source(reads.body, direct.id)?["error"] as? [String: Any])?["code"] as? String == "egress_refused")
                #expect((Self.source(reads.body, adminRow.id)?["error"] as? [String: Any])?["code"] as? String == "invalid_request")
                let quotes = try await Self.call(client, .get, "/v1/quotes?symbols=AAPL", key: world.keyA)
                #expect(quotes.status == 200)
                #expect((Self.source(quotes.body, dataRow.id)?["error"] as? [String: Any])?["code"] as? String == "egress_refused")
                #expect(hostile.requests.isEmpty, "\(hostile.requests.map(\.uri))")
            }
        }
    }

    // MARK: A hostile broker a tenant is allowed to link

    enum Mode: Sendable {
        case healthy
        /// Everything hostile.
        case hostile(HostileBroker.Answer)
        /// `/v2/account` healthy (so a placement passes validation and reaches the broker), the rest hostile.
        case writes(HostileBroker.Answer)
    }

    static let account =
        #"{"id":"acct-1","account_number":"PA1","status":"ACTIVE","currency":"USD","cash":"1000","buying_power":"1000","equity":"1000"}"#

    static func hostileAnswers(redirectTo other: String) -> [(String, HostileBroker.Answer)] {
        let json = [("Content-Type", "application/json")]
        let rateLimitBody = Array(#"{"code":42910000,"message":"rate limit exceeded"}"#.utf8)
        var invalidUTF8 = Array(#"[{"asset_id":"x","symbol":""#.utf8)
        invalidUTF8 += [0xC3, 0x28, 0xFF, 0xFE]
        invalidUTF8 += Array(#"","asset_class":"us_equity","qty":"1","side":"long"}]"#.utf8)
        let control = "\u{1B}[2J\u{1B}]0;pwned\u{7}" + String(repeating: "A", count: 5000) + "\r\n internal-secret"
        return [
            (
                "429 Retry-After inf",
                .respond(
                    status: 429,
                    headers: json + [
                        ("Retry-After", "inf"), ("X-RateLimit-Limit", "1e300"), ("X-RateLimit-Remaining", "-5"), ("X-RateLimit-Reset", "1e300"),
                    ],
                    body: rateLimitBody
                )
            ),
            ("429 Retry-After 1e300", .respond(status: 429, headers: json + [("Retry-After", "1e300")], body: rateLimitBody)),
            (
                "429 Retry-After -5",
                .respond(status: 429, headers: json + [("Retry-After", "-5"), ("X-RateLimit-Reset", "nan")], body: rateLimitBody)
            ),
            ("503 Retry-After nan", .respond(status: 503, headers: json + [("Retry-After", "nan")], body: [])),
            ("huge Content-Length", .respond(status: 200, headers: json + [("Content-Length", "99999999999999")], body: Array("[]".utf8))),
            ("huge body", .respond(status: 200, headers: json, body: [UInt8](repeating: 0x20, count: 9 * 1024 * 1024))),
            ("deep nesting", .respond(status: 200, headers: json, body: Array((String(repeating: "[", count: 100_000)).utf8))),
            ("invalid UTF-8", .respond(status: 200, headers: json, body: invalidUTF8)),
            (
                "a number 1e400 for a decimal",
                .json(
                    200,
                    #"[{"asset_id":"x","symbol":"AAPL","asset_class":"us_equity","qty":1e400,"side":"long","id":"o1","client_order_id":"c","status":"new","created_at":"2026-01-01T00:00:00Z","type":"limit","time_in_force":"day","filled_qty":1e400}]"#
                )
            ),
            (
                "redirect to metadata",
                .respond(status: 302, headers: [("Location", "http://169.254.169.254/latest/meta-data/iam/security-credentials/")])
            ),
            ("redirect to another origin", .respond(status: 307, headers: [("Location", other + "/steal")])),
            (
                "an error text with escapes, 5 KB long",
                .json(
                    422,
                    #"{"code":40010001,"message":"\#(control.replacingOccurrences(of: "\u{1B}", with: "\\u001b").replacingOccurrences(of: "\u{7}", with: "\\u0007").replacingOccurrences(of: "\r\n", with: "\\r\\n"))"}"#
                )
            ),
            (
                "HTML from an internal service",
                .respond(status: 500, headers: [("Content-Type", "text/html")], body: Array("<html>root password: hunter2</html>".utf8))
            ),
            ("silence", .silence),
            ("half-sent", .raw(Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[{\"asset_id\":".utf8))),
            ("a stalled body", .stalledBody(status: 200, headers: json, body: Array("[]".utf8) + [UInt8](repeating: 0x20, count: 100), sent: 1)),
            ("a broken status line", .raw(Array("HTTP/1.1 99999999999999999999 WHAT\r\n\r\n".utf8))),
            ("a 1 MB header", .respond(status: 200, headers: json + [("X-Junk", String(repeating: "j", count: 1_000_000))], body: Array("[]".utf8))),
        ]
    }

    @Test("every read and write against a hostile broker answers a clean JSON error, and other connections keep working")
    func hostileBrokerThroughTheAPI() async throws {
        let mode = Mutex<Mode>(.healthy)
        let script: HostileBroker.Script = { request in
            switch mode.withLock({ $0 }) {
            case .healthy:
                return request.path == "/v2/account" ? .json(200, Self.account) : .json(200, "[]")
            case .hostile(let answer):
                return answer
            case .writes(let answer):
                return request.path == "/v2/account" ? .json(200, Self.account) : answer
            }
        }
        try await HostileBroker.withBroker(host: "127.0.0.3", { _ in .json(200, "{}") }) { other in
            try await HostileBroker.withBroker(host: "127.0.0.2", script) { hostile in
                // Exactly the hostile broker's address is allowed; the sandbox is reached through sandbox:// only.
                let egress = try EgressPolicy(allowList: "127.0.0.2/32")
                // No breaker and no retries: every call of every mode reaches the hostile broker.
                let pipeline = PipelineSettings(breakerConsecutiveFailures: 1000, breakerMinimumCalls: 100_000, maxRetries: 0)
                try await Self.withWorld(egress: egress, pipeline: pipeline) { world, client in
                    let sandboxA = try #require(Self.id(try await Self.link(client, key: world.keyA, baseURL: "sandbox://alpaca").body))
                    let sandboxB = try #require(Self.id(try await Self.link(client, key: world.keyB, baseURL: "sandbox://alpaca").body))

                    for (name, answer) in Self.hostileAnswers(redirectTo: other.url) {
                        mode.withLock { $0 = .healthy }
                        let linked = try await Self.link(client, key: world.keyA, baseURL: hostile.url)
                        #expect(linked.status == 201, "\(name): \(linked.body)")
                        let connection = try #require(Self.id(linked.body))

                        mode.withLock { $0 = .hostile(answer) }
                        var failedReads = 0
                        for path in ["/v1/accounts", "/v1/balances", "/v1/positions", "/v1/orders?status=all", "/v1/quotes?symbols=AAPL"] {
                            let read = try await Self.call(client, .get, path, key: world.keyA)
                            #expect(read.status == 200, "\(name) \(path): \(read.status)")
                            #expect(Self.source(read.body, sandboxA)?["status"] as? String == "ok", "\(name) \(path)")
                            let hostileSource = try #require(Self.source(read.body, connection), "\(name) \(path)")
                            // A source may be `ok` where the adapter reads the answer as "nothing there" (Alpaca's data
                            // API answers an unknown symbol with a 422); otherwise its error is clean.
                            guard hostileSource["status"] as? String == "error" else { continue }
                            failedReads += 1
                            Self.expectClean(hostileSource["error"] as? [String: Any] ?? [:], "\(name) \(path)")
                        }
                        #expect(failedReads >= 4, "\(name): only \(failedReads) reads failed")
                        let derived =
                            "ord_"
                            + Data("\(connection)\nbroker-order-1".utf8).base64EncodedString()
                            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
                            .replacingOccurrences(of: "/", with: "_")
                        for (method, uri) in [(HTTPRequest.Method.get, "/v1/orders/\(derived)"), (.delete, "/v1/orders/\(derived)")] {
                            let answer = try await Self.call(client, method, uri, key: world.keyA)
                            Self.expectCleanFailure(answer, "\(name) \(method) \(uri)")
                        }

                        mode.withLock { $0 = .writes(answer) }
                        let order = try await Self.call(
                            client,
                            .post,
                            "/v1/orders",
                            key: world.keyA,
                            json: """
                                {"connectionId":"\(connection)","accountId":"acct-1","symbol":"AAPL","side":"buy","type":"limit",
                                 "timeInForce":"day","quantity":"1","limitPrice":"1.00"}
                                """
                        )
                        if order.status == 202 {
                            // The broker may have acted (a redirect or a lost answer to a placement): the order is
                            // journaled `unknown` for reconciliation, never guessed.
                            #expect((order.body["data"] as? [String: Any])?["status"] as? String != nil, "\(name)")
                        } else {
                            Self.expectCleanFailure(order, "\(name) POST /v1/orders")
                        }

                        let unlinked = try await Self.call(client, .delete, "/v1/connections/\(connection)", key: world.keyA)
                        #expect(unlinked.status == 204, "\(name)")
                        let others = try await Self.call(client, .get, "/v1/positions", key: world.keyB)
                        #expect(others.status == 200)
                        #expect(others.body["partial"] as? Bool == false, "\(name): \(others.body)")
                        #expect(Self.source(others.body, sandboxB)?["status"] as? String == "ok")
                    }
                    #expect(other.requests.isEmpty, "the other origin was reached: \(other.requests.map(\.uri))")
                    // The writes reached the hostile broker (they did not all stop at validation).
                    #expect(hostile.requests.contains { $0.method == "POST" && $0.path == "/v2/orders" })
                }
            }
        }
    }

    /// A source line's error: a known code, a short message without control characters, a bounded `retryAfter`.
    static func expectClean(_ error: [String: Any], _ label: String) {
        let code = error["code"] as? String ?? "none"
        #expect(brokerFailureCodes.contains(code), "\(label): \(error)")
        let message = error["message"] as? String ?? ""
        #expect(!message.isEmpty && message.count <= 400, "\(label): \(message.count) characters")
        #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(label): \(message)")
        #expect(!message.contains("hunter2") && !message.contains("internal-secret"), "\(label): \(message)")
        if let retryAfter = error["retryAfter"] as? Double { #expect(retryAfter >= 0 && retryAfter <= 86_400, "\(label)") }
    }

    /// A direct answer: a 4xx or 5xx other than 500, with the API's JSON error body.
    static func expectCleanFailure(_ answer: (status: Int, body: [String: Any], raw: Data), _ label: String) {
        #expect((400..<600).contains(answer.status) && answer.status != 500, "\(label): \(answer.status)")
        let error = answer.body["error"] as? [String: Any] ?? [:]
        #expect(error["code"] as? String != "internal", "\(label)")
        #expect(error["code"] != nil, "\(label): \(String(decoding: answer.raw.prefix(300), as: UTF8.self))")
        let message = error["message"] as? String ?? ""
        #expect(message.count <= 600, "\(label): \(message.count) characters")
        #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(label)")
        #expect(!message.contains("hunter2") && !message.contains("internal-secret"), "\(label): \(message)")
    }

    // MARK: Single items

    @Test("an order id '..' never walks the broker's path")
    func dotDotOrderId() async throws {
        try await HostileBroker.withBroker(
            host: "127.0.0.2",
            { request in
                request.path == "/v2/account" ? .json(200, Self.account) : .json(200, "[]")
            }
        ) { broker in
            try await Self.withWorld(egress: try EgressPolicy(allowList: "127.0.0.2/32")) { world, client in
                let connection = try #require(Self.id(try await Self.link(client, key: world.keyA, baseURL: broker.url).body))
                for brokerId in ["..", "."] {
                    let derived =
                        "ord_"
                        + Data("\(connection)\n\(brokerId)".utf8).base64EncodedString()
                        .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
                        .replacingOccurrences(of: "/", with: "_")
                    for method in [HTTPRequest.Method.get, .delete] {
                        let answer = try await Self.call(client, method, "/v1/orders/\(derived)", key: world.keyA)
                        Self.expectCleanFailure(answer, "\(method) \(brokerId)")
                    }
                }
                let walked = broker.requests.filter { request in
                    request.path.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
                        let decoded = segment.removingPercentEncoding ?? String(segment)
                        return decoded == ".." || decoded == "."
                    }
                }
                #expect(walked.isEmpty, "\(walked.map { "\($0.method) \($0.uri)" })")
            }
        }
    }

    @Test("Alpaca's Retry-After as an HTTP date is read (one parser everywhere), bounded")
    func retryAfterHTTPDate() async throws {
        let date = Mutex<String>("")
        try await HostileBroker.withBroker(
            host: "127.0.0.2",
            { request in
                if request.path == "/v2/account" && date.withLock({ $0.isEmpty }) { return .json(200, Self.account) }
                return .respond(
                    status: 429,
                    headers: [("Retry-After", date.withLock { $0 })],
                    body: Array(#"{"code":42910000,"message":"rate limit exceeded"}"#.utf8)
                )
            }
        ) { broker in
            try await Self.withWorld(egress: try EgressPolicy(allowList: "127.0.0.2/32")) { world, client in
                let connection = try #require(Self.id(try await Self.link(client, key: world.keyA, baseURL: broker.url).body))
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "GMT")
                formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
                date.withLock { $0 = formatter.string(from: Date().addingTimeInterval(120)) }
                let read = try await Self.call(client, .get, "/v1/positions", key: world.keyA)
                let error = try #require(Self.source(read.body, connection)?["error"] as? [String: Any])
                #expect(error["code"] as? String == "rate_limited")
                let retryAfter = try #require(error["retryAfter"] as? Double)
                #expect(retryAfter > 60 && retryAfter <= 121, "\(retryAfter)")
            }
        }
    }
}
