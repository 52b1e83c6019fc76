import Foundation
import Sandbox
import Testing

@testable import AlpacaSandbox
@testable import SandboxKit

/// Bars and snapshots of the Alpaca sandbox's Market Data API, on the shared market (ManualClock at
/// 2025-01-06T15:00:00Z, a Monday 10:00 in New York).
@Suite("Alpaca sandbox: bars and snapshots")
struct AlpacaBarsSandboxTests {
    static func bars(_ reply: TestClient.Reply, _ symbol: String) -> [[String: Any]] {
        ((reply.object["bars"] as? [String: Any])?[symbol] as? [[String: Any]]) ?? []
    }

    @Test("multi-symbol bars page by next_page_token across symbols, alphabetically, limit counted over all")
    func pagination() async throws {
        try await withAlpaca { client, _, _ async throws in
            let query = "/v2/stocks/bars?symbols=MSFT,AAPL&timeframe=1Hour&start=2025-01-06T00:00:00Z"
            let all = try await client.get(query)
            #expect(all.status == 200)
            #expect(all.object["next_page_token"] is NSNull)
            let aapl = Self.bars(all, "AAPL")
            let msft = Self.bars(all, "MSFT")
            #expect(aapl.count == 16 && msft.count == 16, "00:00 to 15:00, the last one in progress")
            #expect(aapl.first?["t"] as? String == "2025-01-06T00:00:00Z")
            #expect(aapl.last?["t"] as? String == "2025-01-06T15:00:00Z")
            for bar in aapl {
                #expect(Set(bar.keys) == ["t", "o", "h", "l", "c", "v", "n", "vw"])
                #expect(bar["o"] is NSNumber && bar["v"] is NSNumber && bar["n"] is NSNumber)
                let (o, h, l, c) = (dec(bar["o"])!, dec(bar["h"])!, dec(bar["l"])!, dec(bar["c"])!)
                #expect(l <= o && o <= h && l <= c && c <= h)
            }

            var pages: [[String: [String]]] = []
            var token: String?
            repeat {
                let page = try await client.get(query + "&limit=10" + (token.map { "&page_token=\($0)" } ?? ""))
                #expect(page.status == 200)
                var times: [String: [String]] = [:]
                for symbol in ["AAPL", "MSFT"] { times[symbol] = Self.bars(page, symbol).compactMap { $0["t"] as? String } }
                pages.append(times)
                token = page.object["next_page_token"] as? String
            } while token != nil && pages.count < 10
            #expect(pages.map { $0.values.map(\.count).reduce(0, +) } == [10, 10, 10, 2])
            #expect(pages.flatMap { $0["AAPL"] ?? [] } == aapl.compactMap { $0["t"] as? String })
            #expect(pages.flatMap { $0["MSFT"] ?? [] } == msft.compactMap { $0["t"] as? String })

            // A token edited by hand (off the bar grid, or far outside the range) still answers bars on the grid.
            let offGrid = Data("AAPL|\(1_736_125_200 + 1234)".utf8).base64EncodedString()  // 2025-01-06T01:00:00Z + 1234 s
            let resumed = try await client.get(query + "&limit=2&page_token=" + offGrid)
            #expect(Self.bars(resumed, "AAPL").compactMap { $0["t"] as? String } == ["2025-01-06T02:00:00Z", "2025-01-06T03:00:00Z"])
            let far = Data("AAPL|\(Int64.max)".utf8).base64EncodedString()
            #expect(try await client.get(query + "&limit=2&page_token=" + far).status == 200)

            let latest = try await client.get("/v2/stocks/AAPL/bars?timeframe=1Min&limit=3&sort=desc&start=2025-01-06T14:00:00Z")
            #expect(latest.object["symbol"] as? String == "AAPL")
            let times = (latest.object["bars"] as? [[String: Any]] ?? []).compactMap { $0["t"] as? String }
            #expect(times == ["2025-01-06T15:00:00Z", "2025-01-06T14:59:00Z", "2025-01-06T14:58:00Z"])
            #expect(latest.object["next_page_token"] is String)
        }
    }

    @Test("timeframes as alpaca-py and ccxt write them; crypto days start at Chicago midnight")
    func timeframes() async throws {
        try await withAlpaca { client, _, _ async throws in
            for (timeframe, count) in [("1Min", 61), ("1min", 61), ("1T", 61), ("15Min", 5), ("1H", 2), ("1Hour", 2)] {
                let reply = try await client.get("/v1beta3/crypto/us/bars?symbols=BTC/USD&timeframe=\(timeframe)&start=2025-01-06T14:00:00Z")
                #expect(Self.bars(reply, "BTC/USD").count == count, "\(timeframe)")
            }
            let days = try await client.get("/v1beta3/crypto/us/bars?symbols=BTC/USD&timeframe=1Day&start=2025-01-01")
            #expect(Self.bars(days, "BTC/USD").first?["t"] as? String == "2025-01-01T06:00:00Z")
            let stockDays = try await client.get("/v2/stocks/bars?symbols=SPY&timeframe=1D&start=2025-01-01")
            #expect(Self.bars(stockDays, "SPY").first?["t"] as? String == "2025-01-01T05:00:00Z")
            let weeks = try await client.get("/v2/stocks/bars?symbols=SPY&timeframe=1Week&start=2024-12-01")
            #expect(Self.bars(weeks, "SPY").first?["t"] as? String == "2024-12-02T05:00:00Z", "Monday")
            let months = try await client.get("/v2/stocks/bars?symbols=SPY&timeframe=3Month&start=2024-01-01")
            #expect(
                Self.bars(months, "SPY").map { $0["t"] as? String } == [
                    "2024-01-01T05:00:00Z", "2024-04-01T04:00:00Z", "2024-07-01T04:00:00Z", "2024-10-01T04:00:00Z", "2025-01-01T05:00:00Z",
                ]
            )
        }
    }

    @Test(
        "bad parameters are 400s with a message",
        arguments: [
            ("/v2/stocks/bars?symbols=AAPL&timeframe=7x", "invalid timeframe"),
            ("/v2/stocks/bars?symbols=AAPL&timeframe=60Min", "invalid timeframe"),
            ("/v2/stocks/bars?symbols=AAPL&timeframe=5Month", "invalid timeframe"),
            ("/v2/stocks/bars?symbols=AAPL", "missing timeframe"),
            ("/v2/stocks/bars?timeframe=1Day", "missing symbols"),
            ("/v2/stocks/bars?symbols=AAPL&timeframe=1Day&limit=0", "invalid limit"),
            ("/v2/stocks/bars?symbols=AAPL&timeframe=1Day&limit=10001", "invalid limit"),
            ("/v2/stocks/bars?symbols=AAPL&timeframe=1Day&start=yesterday", "invalid start"),
            ("/v2/stocks/bars?symbols=AAPL&timeframe=1Day&start=2025-01-02&end=2025-01-01", "end should not be before start"),
            ("/v2/stocks/bars?symbols=AAPL&timeframe=1Day&sort=up", "invalid sort"),
            ("/v2/stocks/bars?symbols=AAPL&timeframe=1Day&feed=nasdaq", "invalid feed"),
            ("/v2/stocks/bars?symbols=AAPL&timeframe=1Day&adjustment=some", "invalid adjustment"),
            ("/v2/stocks/bars?symbols=AAPL&timeframe=1Day&page_token=%25%25", "invalid page_token"),
            ("/v1beta3/crypto/us/bars?symbols=btcusd&timeframe=1Day", "Invalid symbol(s)"),
            ("/v1beta3/crypto/us/snapshots", "missing symbols"),
            ("/v2/stocks/snapshots", "missing symbols"),
        ]
    )
    func refusals(_ path: String, _ message: String) async throws {
        try await withAlpaca { client, _, _ async throws in
            let reply = try await client.get(path)
            #expect(reply.status == 400)
            #expect((reply.object["message"] as? String)?.hasPrefix(message) == true, "\(reply.text)")
        }
    }

    @Test("snapshots: stock multi has no wrapper, single names its symbol, crypto under snapshots; they agree with quotes")
    func snapshots() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            let multi = try await client.get("/v2/stocks/snapshots?symbols=AAPL,MSFT,NOPE").object
            #expect(Set(multi.keys) == ["AAPL", "MSFT"])
            let single = try await client.get("/v2/stocks/AAPL/snapshot").object
            #expect(single["symbol"] as? String == "AAPL")
            #expect(Set(single.keys) == ["symbol", "latestTrade", "latestQuote", "minuteBar", "dailyBar", "prevDailyBar"])
            let quote = try #require(sandbox.market.quote(symbol: "AAPL"))
            #expect(dec((single["latestQuote"] as? [String: Any])?["bp"]) == quote.bid)
            #expect(dec((single["latestTrade"] as? [String: Any])?["p"]) == quote.last)
            let daily = try #require(single["dailyBar"] as? [String: Any])
            #expect(daily["t"] as? String == "2025-01-06T05:00:00Z")
            #expect(dec(daily["c"]) == quote.last)
            #expect((single["prevDailyBar"] as? [String: Any])?["t"] as? String == "2025-01-05T05:00:00Z")
            #expect((single["minuteBar"] as? [String: Any])?["t"] as? String == "2025-01-06T14:59:00Z")
            #expect(try await client.get("/v2/stocks/NOPE/snapshot").status == 404)

            let crypto = try await client.get("/v1beta3/crypto/us/snapshots?symbols=BTC/USD,ETH/USD").object
            let snapshots = try #require(crypto["snapshots"] as? [String: Any])
            #expect(Set(snapshots.keys) == ["BTC/USD", "ETH/USD"])
            let btc = try #require(snapshots["BTC/USD"] as? [String: Any])
            #expect((btc["latestTrade"] as? [String: Any])?["tks"] as? String == "B")
            #expect((btc["dailyBar"] as? [String: Any])?["t"] as? String == "2025-01-06T06:00:00Z")
        }
    }

    static func times(_ reply: TestClient.Reply, _ symbol: String) -> [String] {
        bars(reply, symbol).compactMap { $0["t"] as? String }
    }

    static func barTime(_ object: [String: Any], _ key: String) -> String? {
        (object[key] as? [String: Any])?["t"] as? String
    }

    @Test("with market hours kept, stock bars exist only in sessions; crypto trades on")
    func sessions() async throws {
        let saturday = ManualClock(start: Date(timeIntervalSince1970: 1_736_586_000))  // 2025-01-11 09:00Z
        let expectedDays = [
            "2025-01-06T05:00:00Z", "2025-01-07T05:00:00Z", "2025-01-08T05:00:00Z", "2025-01-09T05:00:00Z", "2025-01-10T05:00:00Z",
        ]
        try await withAlpaca(configuration: AlpacaSandboxConfiguration(marketHours: .regular), clock: saturday) { client, _, _ async throws in
            let days = Self.times(try await client.get("/v2/stocks/bars?symbols=SPY&timeframe=1Day&start=2025-01-04"), "SPY")
            #expect(days == expectedDays)
            let minutes = Self.times(try await client.get("/v2/stocks/bars?symbols=SPY&timeframe=1Min"), "SPY")
            #expect(minutes.isEmpty, "no Saturday minutes")
            let hours = Self.times(
                try await client.get("/v2/stocks/bars?symbols=SPY&timeframe=1Hour&start=2025-01-10T00:00:00Z&end=2025-01-10T23:59:00Z"),
                "SPY"
            )
            // 00:00Z is Thursday 19:00 in New York (after-hours); Friday's session runs 09:00Z (04:00) to 01:00Z.
            #expect(hours.count == 16)
            #expect(hours.first == "2025-01-10T00:00:00Z")
            #expect(hours.count > 1 && hours[1] == "2025-01-10T09:00:00Z")
            #expect(hours.last == "2025-01-10T23:00:00Z")
            let snapshot = try await client.get("/v2/stocks/SPY/snapshot").object
            #expect(Self.barTime(snapshot, "dailyBar") == "2025-01-10T05:00:00Z")
            #expect(Self.barTime(snapshot, "prevDailyBar") == "2025-01-09T05:00:00Z")
            let crypto = Self.times(try await client.get("/v1beta3/crypto/us/bars?symbols=BTC/USD&timeframe=1Min"), "BTC/USD")
            #expect(!crypto.isEmpty)
        }
    }
}
