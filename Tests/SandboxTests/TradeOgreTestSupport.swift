import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Sandbox

/// A small client for the TradeOgre sandbox: HTTP Basic with the demo key by default, form-encoded POST bodies,
/// paths relative to `/api/v1`.
struct OgreClient {
    let base: URL
    var credentials: (key: String, secret: String)? = (
        TradeOgreSandboxAccount.demoAPIKey, TradeOgreSandboxAccount.demoAPISecret
    )

    typealias Reply = TestClient.Reply

    init(base: URL) { self.base = base }

    func send(_ method: String, _ path: String, form: [(String, String)]? = nil, root: Bool = false) async throws -> Reply {
        var request = HTTPClientRequest(url: base.absoluteString + (root ? "" : "/api/v1") + path)
        request.method = HTTPMethod(rawValue: method)
        if let credentials {
            let token = Data("\(credentials.key):\(credentials.secret)".utf8).base64EncodedString()
            request.headers.replaceOrAdd(name: "Authorization", value: "Basic \(token)")
        }
        if let form {
            request.headers.replaceOrAdd(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
            let body = form.map {
                "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
            }.joined(separator: "&")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let buffer = try await response.body.collect(upTo: 8 * 1024 * 1024)
        return Reply(status: Int(response.status.code), headers: response.headers, text: String(buffer: buffer))
    }

    func get(_ path: String) async throws -> Reply { try await send("GET", path) }
    func post(_ path: String, _ form: [(String, String)] = []) async throws -> Reply { try await send("POST", path, form: form) }

    /// Places a limit order and returns its uuid (fails the caller if the venue refused it).
    func place(_ side: String, _ market: String, quantity: String, price: String) async throws -> String {
        let reply = try await post("/order/\(side)", [("market", market), ("quantity", quantity), ("price", price)])
        guard reply.object["success"] as? Bool == true, let uuid = reply.object["uuid"] as? String else {
            throw OgreTestError(description: "placement refused: \(reply.text)")
        }
        return uuid
    }

    /// `(balance, available)` of one currency.
    func balance(_ currency: String) async throws -> (total: Decimal, available: Decimal) {
        let reply = try await post("/account/balance", [("currency", currency)])
        guard let total = dec(reply.object["balance"]), let available = dec(reply.object["available"]) else {
            throw OgreTestError(description: "no balance: \(reply.text)")
        }
        return (total, available)
    }

    /// The book's best bid and ask.
    func top(_ market: String) async throws -> (bid: Decimal, ask: Decimal) {
        let book = try await get("/orders/\(market)").object
        let bids = (book["buy"] as? [String: String] ?? [:]).keys.compactMap { dec($0) }
        let asks = (book["sell"] as? [String: String] ?? [:]).keys.compactMap { dec($0) }
        guard let bid = bids.max(), let ask = asks.min() else { throw OgreTestError(description: "empty book") }
        return (bid, ask)
    }
}

struct OgreTestError: Error, CustomStringConvertible {
    var description: String
}

/// Runs a TradeOgre sandbox on an ephemeral port with a manual clock for `body`.
func withTradeOgre<Result>(
    configuration: TradeOgreSandboxConfiguration = TradeOgreSandboxConfiguration(),
    clock: ManualClock = ManualClock(),
    seed: UInt64 = 7,
    faults: FaultInjector = FaultInjector(),
    _ body: (OgreClient, TradeOgreSandbox, ManualClock) async throws -> Result
) async throws -> Result {
    let market = MarketEngine(configuration: MarketConfiguration(seed: seed), clock: clock)
    let sandbox = TradeOgreSandbox(configuration: configuration, market: market, faults: faults)
    return try await withSandbox(sandbox) { url in
        try await body(OgreClient(base: url), sandbox, clock)
    }
}

/// A decimal as TradeOgre writes it: exactly 8 fraction digits.
func isEightDecimals(_ value: Any?) -> Bool {
    guard let text = value as? String, let dot = text.firstIndex(of: ".") else { return false }
    return text.distance(from: text.index(after: dot), to: text.endIndex) == 8 && dec(text as Any?) != nil
}
