import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Sandbox

/// The demo client's keys, percent-encoded for a query string (`+`, `/` and `=` must not travel raw).
let saxoClientKeyQuery = saxoQueryEncode(SaxoSandboxClient.demoClientKey)
let saxoAccountKeyQuery = saxoQueryEncode(SaxoSandboxClient.demoAccountKey)

func saxoQueryEncode(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed)!
}

/// Test configuration: the order-rate limit off (tests place orders back to back) unless a test turns it on.
func saxoTestConfiguration(
    sessionOrdersPerSecond: Int? = nil,
    sessionRequestsPerMinute: Int = 120,
    accessTokenLifetime: TimeInterval = 1200,
    refreshTokenLifetime: TimeInterval = 3600,
    duplicateOrderWindow: TimeInterval = 15,
    executionLatency: TimeInterval = 0
) -> SaxoSandboxConfiguration {
    SaxoSandboxConfiguration(
        accessTokenLifetime: accessTokenLifetime,
        refreshTokenLifetime: refreshTokenLifetime,
        sessionRequestsPerMinute: sessionRequestsPerMinute,
        sessionOrdersPerSecond: sessionOrdersPerSecond,
        duplicateOrderWindow: duplicateOrderWindow,
        executionLatency: executionLatency
    )
}

/// Runs a Saxo sandbox on an ephemeral port with a manual clock. `client` carries a bearer token of a fresh session;
/// `anonymous` carries no credentials.
func withSaxo<Result>(
    configuration: SaxoSandboxConfiguration = saxoTestConfiguration(),
    clock: ManualClock = ManualClock(),
    seed: UInt64 = 7,
    _ body: (_ client: TestClient, _ anonymous: TestClient, _ sandbox: SaxoSandbox, _ clock: ManualClock) async throws -> Result
) async throws -> Result {
    let market = MarketEngine(configuration: MarketConfiguration(seed: seed), clock: clock)
    let sandbox = SaxoSandbox(configuration: configuration, market: market)
    return try await withSandbox(sandbox) { url in
        var client = TestClient(base: url)
        client.headers = [("Authorization", "Bearer \(sandbox.issueTokens().accessToken)")]
        var anonymous = TestClient(base: url)
        anonymous.headers = []
        return try await body(client, anonymous, sandbox, clock)
    }
}

/// The OpenAPI prefix the sandbox serves SIM under.
let sim = "/sim/openapi"

/// A v2 order body with the demo account.
func saxoOrderBody(
    uic: Int = 21,
    assetType: String = "FxSpot",
    buySell: String = "Buy",
    amount: String = "10000",
    orderType: String = "Market",
    price: String? = nil,
    duration: String = "DayOrder",
    manualOrder: Bool? = false,
    externalReference: String? = nil
) -> String {
    var members = [
        "\"AccountKey\":\"\(SaxoSandboxClient.demoAccountKey)\"", "\"Uic\":\(uic)", "\"AssetType\":\"\(assetType)\"",
        "\"BuySell\":\"\(buySell)\"", "\"Amount\":\(amount)", "\"OrderType\":\"\(orderType)\"",
        "\"OrderDuration\":{\"DurationType\":\"\(duration)\"}",
    ]
    if let price { members.append("\"OrderPrice\":\(price)") }
    if let manualOrder { members.append("\"ManualOrder\":\(manualOrder)") }
    if let externalReference { members.append("\"ExternalReference\":\"\(externalReference)\"") }
    return "{" + members.joined(separator: ",") + "}"
}

extension TestClient.Reply {
    /// A JSON number member as Decimal (Saxo sends amounts and prices as numbers).
    func number(_ object: [String: Any], _ key: String) -> Decimal? { dec(object[key]) }

    /// The `ErrorInfo` of an order endpoint's error body.
    var errorInfo: [String: Any] { object["ErrorInfo"] as? [String: Any] ?? [:] }
}

/// A POST with a content type of the caller's choosing (``TestClient`` labels every body JSON).
func saxoPost(_ base: URL, _ path: String, body: String, contentType: String) async throws -> TestClient.Reply {
    var request = HTTPClientRequest(url: base.absoluteString + path)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: contentType)
    request.body = .bytes(ByteBuffer(string: body))
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    let buffer = try await response.body.collect(upTo: 1024 * 1024)
    return TestClient.Reply(status: Int(response.status.code), headers: response.headers, text: String(buffer: buffer))
}
