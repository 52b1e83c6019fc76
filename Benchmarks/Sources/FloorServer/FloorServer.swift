import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// The floor of issue 29: the quote read the gateway serves, written as a competent engineer would on the gateway's
/// own stack (Hummingbird 2, AsyncHTTPClient, Foundation's JSON coders) with none of the gateway's machinery, so
/// `ReadBenchmark` can say what the gateway costs above the stack it is built on.
///
/// Per read it does what the gateway's `GET /v1/quotes?symbols=XMR/BTC` does, no more and no less: checks the bearer
/// token (constant time), maps the symbol to TradeOgre's market (`XMR/BTC` → `XMR-BTC`), calls
/// `GET {upstream}/ticker/XMR-BTC` once per account at the same time (one shared client, pooled connections, a
/// per-call timeout), decodes each answer, and encodes one envelope: quotes, a status line per account and whether
/// any failed. Nothing is cached or shared between reads; the gateway, with coalescing off, shares nothing either.
///
///     FloorServer --upstream http://127.0.0.1:PORT/api/v1 --token SECRET [--accounts 2] [--port 0] [--timeout-ms 5000]
///
/// It prints `FloorServer is serving url=http://127.0.0.1:PORT` when it listens, and stops on SIGTERM or SIGINT.
@main
struct FloorServer {
    static func main() async {
        do {
            try await serve()
        } catch {
            FileHandle.standardError.write(Data("FloorServer: \(error)\n".utf8))
            exit(1)
        }
    }

    static func serve() async throws {
        let arguments = Arguments(CommandLine.arguments)
        let upstream = try arguments.string("--upstream", "")
        let token = try arguments.string("--token", "")
        let accounts = try arguments.int("--accounts", 2)
        let port = try arguments.int("--port", 0)
        let timeoutMs = try arguments.int("--timeout-ms", 5000)
        guard !upstream.isEmpty, !token.isEmpty else {
            throw BenchmarkError("--upstream URL (TradeOgre's API root, with /api/v1) and --token SECRET are required")
        }
        guard accounts >= 1, (0...65535).contains(port), timeoutMs > 0 else {
            throw BenchmarkError("--accounts must be at least 1, --port 0...65535, --timeout-ms above 0")
        }

        // The gateway's broker client settings (PinnedClients): no redirects, 10 s to connect, 64 pooled connections
        // per host kept 60 s, so neither side queues for a connection the other would not.
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)))
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let quotes = QuoteRead(
            http: http,
            upstream: upstream.hasSuffix("/") ? String(upstream.dropLast()) : upstream,
            token: Array(token.utf8),
            connections: (1...accounts).map { "tradeogre-\($0)" },
            timeout: .milliseconds(Int64(timeoutMs))
        )

        let router = Router()
        router.get("/v1/quotes") { request, _ in try await quotes.read(request) }
        var logger = Logger(label: "FloorServer")
        logger.logLevel = .notice
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                FileHandle.standardOutput.write(Data("FloorServer is serving url=http://127.0.0.1:\(bound)\n".utf8))
            },
            logger: logger
        )
        do {
            try await app.runService()
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }
}

/// The read itself: everything one `GET /v1/quotes` costs between the request's head and the response's bytes.
struct QuoteRead: Sendable {
    let http: HTTPClient
    /// TradeOgre's API root, `…/api/v1`, without a trailing slash.
    let upstream: String
    let token: [UInt8]
    /// One name per linked account; every read calls the broker once for each.
    let connections: [String]
    let timeout: TimeAmount

    /// 401 without the token, 400 for anything but one `BASE/QUOTE` symbol; otherwise the envelope, `partial` when an
    /// account's call failed (its quote is left out and its source says `error`), as the gateway answers.
    func read(_ request: Request) async throws -> Envelope {
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer "),
            Self.constantTimeEqual(Array(authorization.utf8.dropFirst(7)), token)
        else { throw HTTPError(.unauthorized, message: "send 'Authorization: Bearer <token>'") }
        guard let symbol = request.uri.queryParameters.get("symbols"), let market = Self.market(symbol) else {
            throw HTTPError(.badRequest, message: "symbols must be one BASE/QUOTE symbol, such as XMR/BTC")
        }
        let url = "\(upstream)/ticker/\(market)"
        let tickers = await withTaskGroup(of: (Int, Ticker?).self) { group in
            for index in connections.indices {
                group.addTask { (index, try? await ticker(url)) }
            }
            var tickers = [Ticker?](repeating: nil, count: connections.count)
            for await (index, ticker) in group { tickers[index] = ticker }
            return tickers
        }
        return Envelope(
            data: tickers.compactMap { $0.map { Quote(symbol: symbol, bid: $0.bid, ask: $0.ask, last: $0.price) } },
            sources: zip(connections, tickers).map { Source(connection: $0, status: $1 == nil ? "error" : "ok") },
            partial: tickers.contains { $0 == nil }
        )
    }

    /// One account's call: any failure (transport, timeout, status, body) is that account's error, never the read's.
    func ticker(_ url: String) async throws -> Ticker {
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: timeout)
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw BenchmarkError("\(url): HTTP \(response.status.code)") }
        let ticker = try JSONDecoder().decode(Ticker.self, from: body)
        guard ticker.success else { throw BenchmarkError("\(url): success false") }
        return ticker
    }

    /// `XMR/BTC` → `XMR-BTC` (TradeOgre's current `BASE-QUOTE` naming), `nil` for anything else.
    static func market(_ symbol: String) -> String? {
        let parts = symbol.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber } }) else {
            return nil
        }
        return "\(parts[0])-\(parts[1])"
    }

    /// Compares every byte whatever the first difference, so the time taken does not tell how much of a guess was
    /// right (only whether its length was).
    static func constantTimeEqual(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(given, expected) { difference |= a ^ b }
        return difference == 0
    }
}

/// `GET /ticker/{market}`: `{"success":true,"initialprice":s,"price":s,"high":s,"low":s,"volume":s,"bid":s,"ask":s}`
/// (shared/brokers/tradeogre.md §2.3; the sandbox's `TradeOgreRoutes.ticker`); `bid`/`ask` are absent on an empty
/// side. Only what the envelope carries is decoded, the decimals kept as the broker's strings.
struct Ticker: Decodable {
    var success: Bool
    var price: String?
    var bid: String?
    var ask: String?
}

/// `{"data":[…],"sources":[…],"partial":false}`, the gateway's envelope reduced to what this read fills.
struct Envelope: ResponseEncodable {
    var data: [Quote]
    var sources: [Source]
    var partial: Bool
}

/// One account's quote; a side the broker left out is left out here too.
struct Quote: Encodable {
    var symbol: String
    var bid: String?
    var ask: String?
    var last: String?
}

/// Whether one account answered.
struct Source: Encodable {
    var connection: String
    var status: String
}
