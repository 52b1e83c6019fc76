import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Sandbox

/// One client for every test, never shut down (like `HTTPClient.shared`), that shows redirects instead of following
/// them: simulators are tested on what they answer, not on where a redirect leads.
private let testHTTPClient = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
    configuration: HTTPClient.Configuration(redirectConfiguration: .disallow)
)

/// A small HTTP client for the tests: demo credentials by default, JSON bodies, a per-request timeout.
struct TestClient {
    let base: URL
    var headers: [(String, String)] = [
        ("APCA-API-KEY-ID", AlpacaSandboxAccount.demoKeyID),
        ("APCA-API-SECRET-KEY", AlpacaSandboxAccount.demoSecretKey),
    ]

    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var text: String

        /// The body as a JSON object or array (via Foundation, as a client would see it).
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var array: [[String: Any]] { json as? [[String: Any]] ?? [] }
        func header(_ name: String) -> String? { headers.first(name: name) }
    }

    init(base: URL) { self.base = base }

    func send(
        _ method: String,
        _ path: String,
        body: String? = nil,
        headers extra: [(String, String)] = [],
        timeout: Duration = .seconds(60)
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: base.absoluteString + path)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers + extra { request.headers.replaceOrAdd(name: name, value: value) }
        if let body {
            if !request.headers.contains(name: "Content-Type") {
                request.headers.add(name: "Content-Type", value: "application/json")
            }
            request.body = .bytes(ByteBuffer(string: body))
        }
        let (seconds, attoseconds) = timeout.components
        let response = try await testHTTPClient.execute(
            request,
            timeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        )
        let buffer = try await response.body.collect(upTo: 4 * 1024 * 1024)
        return Reply(status: Int(response.status.code), headers: response.headers, text: String(buffer: buffer))
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> Reply { try await send("GET", path, headers: headers) }
    func post(_ path: String, _ body: String) async throws -> Reply { try await send("POST", path, body: body) }
    func patch(_ path: String, _ body: String) async throws -> Reply { try await send("PATCH", path, body: body) }
    func put(_ path: String, _ body: String) async throws -> Reply { try await send("PUT", path, body: body) }
    func delete(_ path: String) async throws -> Reply { try await send("DELETE", path) }
}

/// Runs an Alpaca sandbox on an ephemeral port with a manual clock (unless told otherwise) for `body`.
func withAlpaca<Result>(
    configuration: AlpacaSandboxConfiguration = AlpacaSandboxConfiguration(),
    clock: ManualClock = ManualClock(),
    seed: UInt64 = 7,
    faults: FaultInjector = FaultInjector(),
    _ body: (TestClient, AlpacaSandbox, ManualClock) async throws -> Result
) async throws -> Result {
    let market = MarketEngine(configuration: MarketConfiguration(seed: seed), clock: clock)
    let sandbox = AlpacaSandbox(configuration: configuration, market: market, faults: faults)
    return try await withSandbox(sandbox) { url in
        try await body(TestClient(base: url), sandbox, clock)
    }
}

/// Decimal from text, for expectations.
func dec(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))! }

/// Decimal from a JSON member that Alpaca sends as a string.
func dec(_ value: Any?) -> Decimal? {
    switch value {
    case let text as String: Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    case let number as NSNumber: Decimal(string: number.stringValue)
    default: nil
    }
}

/// Compact JSON text of a Foundation value, keys sorted, for exact body comparisons.
func canonical(_ text: String) -> String {
    guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
        let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    else { return text }
    return String(decoding: data, as: UTF8.self)
}
