import Foundation
import GatewayModel
import HTTPTypes
import HummingbirdTesting
import Sandbox
import TestWorlds
import Testing

/// Alpaca candles and the order book route through /v1, against the built-in Alpaca and TradeOgre sandboxes on
/// loopback (issue 15, item 6).
@Suite("End to end: candles and order books through /v1", .heavyWorld)
struct MarketDataEndToEndTests {
    static func linkAlpaca(_ world: Loopback, _ client: any TestClientProtocol) async throws -> String {
        let linked = try await world.call(
            client,
            .post,
            "/v1/connections",
            json: """
                {"broker":"alpaca","displayName":"Alpaca","baseURL":"\(world.sandboxURL)",
                 "credentials":{"keyId":"\(AlpacaSandboxAccount.demoKeyID)","secretKey":"\(AlpacaSandboxAccount.demoSecretKey)"}}
                """
        )
        #expect(linked.status == 201)
        return try #require(linked.body.data["id"] as? String)
    }

    static func decimals(_ levels: Any?, _ key: String) -> [Decimal] {
        ((levels as? [[String: Any]]) ?? []).compactMap { ($0[key] as? String).flatMap(DecimalText.parse) }
    }

    @Test(arguments: [("AAPL", "equity", "1d", 5), ("BTC/USD", "crypto", "1m", 30), ("ETH/USD", "crypto", "1h", 12)])
    func alpacaCandles(symbol: String, assetClass: String, interval: String, count: Int) async throws {
        try await Loopback.with(AlpacaSandbox()) { world, client in
            let connection = try await Self.linkAlpaca(world, client)
            let answer = try await world.call(
                client,
                .get,
                "/v1/candles?symbol=\(symbol)&assetClass=\(assetClass)&interval=\(interval)&count=\(count)"
            )
            #expect(answer.status == 200)
            #expect(answer.body["partial"] as? Bool == false)
            let series = try #require(answer.body.list.first)
            #expect(series["connectionId"] as? String == connection)
            #expect((series["instrument"] as? [String: Any])?["symbol"] as? String == symbol)
            let candles = try #require(series["candles"] as? [[String: Any]])
            #expect(candles.count == count)
            let times = candles.compactMap { ($0["time"] as? String).flatMap(RFC3339Timestamp.parse) }
            #expect(times.count == count)
            #expect(times == times.sorted() && Set(times).count == count, "oldest first, no repeats")
            let width = TimeInterval(CandleInterval(rawValue: interval)!.minutes * 60)
            if interval != "1d" {
                // Alpaca's intraday bars sit on the clock's grid, one per width (crypto trades around the clock).
                #expect(times.allSatisfy { $0.timeIntervalSince1970.truncatingRemainder(dividingBy: width) == 0 })
                #expect(zip(times, times.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == width })
            }
            #expect(Date().timeIntervalSince(times[count - 1]) < width + 60, "the last candle is the current one")
            for candle in candles {
                let open = try #require((candle["open"] as? String).flatMap(DecimalText.parse))
                let high = try #require((candle["high"] as? String).flatMap(DecimalText.parse))
                let low = try #require((candle["low"] as? String).flatMap(DecimalText.parse))
                let close = try #require((candle["close"] as? String).flatMap(DecimalText.parse))
                #expect(low <= open && open <= high && low <= close && close <= high, "\(candle)")
                #expect(candle["volume"] is String)
            }
            let brokers = try await world.call(client, .get, "/v1/brokers")
            let alpaca = brokers.body.list.first { $0["kind"] as? String == "alpaca" }
            let operations = (alpaca?["capabilities"] as? [String: Any])?["operations"] as? [String: String]
            #expect(operations?["candles"] == "supported")
            #expect(operations?["orderBook"] == "supported")
        }
    }

    @Test func orderBooksFromTradeOgreAndAlpacaCrypto() async throws {
        try await Loopback.with(AlpacaSandbox()) { world, client in
            let alpaca = try await Self.linkAlpaca(world, client)
            try await withSandbox(TradeOgreSandbox()) { tradeOgreURL in
                let linked = try await world.call(
                    client,
                    .post,
                    "/v1/connections",
                    json: #"{"broker":"tradeogre","baseURL":"\#(tradeOgreURL.absoluteString)/api/v1"}"#
                )
                #expect(linked.status == 201)
                let tradeOgre = try #require(linked.body.data["id"] as? String)

                // TradeOgre lists BTC/USDT; Alpaca does not, so it answers no book (not a failure of Alpaca's).
                let both = try await world.call(client, .get, "/v1/orderbook?symbol=BTC/USDT&depth=3")
                #expect(both.status == 200)
                #expect(both.body["partial"] as? Bool == false, "\(both.body)")
                let books = both.body.list
                #expect(books.count == 1)
                let book = try #require(books.first { $0["connectionId"] as? String == tradeOgre })
                #expect(book["broker"] as? String == "tradeogre")
                let bids = Self.decimals(book["bids"], "price")
                let asks = Self.decimals(book["asks"], "price")
                #expect(!bids.isEmpty && bids.count <= 3 && !asks.isEmpty && asks.count <= 3)
                #expect(bids == bids.sorted(by: >) && asks == asks.sorted(), "bids descending, asks ascending")
                #expect(bids[0] < asks[0])

                for depth in [1, 2, 5] {
                    let read = try await world.call(client, .get, "/v1/orderbook?symbol=BTC/USD&depth=\(depth)&connection=\(alpaca)")
                    #expect(read.status == 200)
                    let crypto = try #require(read.body.list.first)
                    #expect(crypto["connectionId"] as? String == alpaca && crypto["broker"] as? String == "alpaca")
                    #expect(crypto["time"] is String)
                    let alpacaBids = Self.decimals(crypto["bids"], "price")
                    let alpacaAsks = Self.decimals(crypto["asks"], "price")
                    #expect(alpacaBids.count == depth && alpacaAsks.count == depth, "depth \(depth) honoured")
                    #expect(alpacaBids == alpacaBids.sorted(by: >) && Set(alpacaBids).count == depth)
                    #expect(alpacaAsks == alpacaAsks.sorted() && Set(alpacaAsks).count == depth)
                    #expect(alpacaBids[0] < alpacaAsks[0])
                    #expect(Self.decimals(crypto["bids"], "size").allSatisfy { $0 > 0 })
                }

                let selected = try await world.call(client, .get, "/v1/orderbook?symbol=BTC/USDT&broker=tradeogre")
                #expect(selected.body.sources.count == 1)
            }
        }
    }

    @Test(arguments: ["0", "501", "-1", "abc", "1.5"])
    func aBadDepthIsRefusedNamingIt(_ depth: String) async throws {
        try await Loopback.with(AlpacaSandbox()) { world, client in
            _ = try await Self.linkAlpaca(world, client)
            let read = try await world.call(client, .get, "/v1/orderbook?symbol=BTC/USD&depth=\(depth)")
            #expect(read.status == 400)
            let error = read.body["error"] as? [String: Any]
            #expect(error?["code"] as? String == "invalid_request")
            let text = "\(error ?? [:])"
            #expect(text.contains("depth"), "the error names depth: \(text)")
        }
    }

    @Test func anEquityHasNoBookAtAlpacaAndNoneIsFaked() async throws {
        try await Loopback.with(AlpacaSandbox()) { world, client in
            _ = try await Self.linkAlpaca(world, client)
            let read = try await world.call(client, .get, "/v1/orderbook?symbol=AAPL")
            #expect(read.status == 200)
            #expect(read.body.list.isEmpty, "\(read.body)")
            #expect(read.body["partial"] as? Bool == false, "no book there is not Alpaca failing")
            #expect(read.body.sources.first?["status"] as? String == "ok")
        }
    }
}
