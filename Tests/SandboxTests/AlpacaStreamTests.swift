import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import Sandbox
import SandboxKit
import Synchronization
import Testing

/// Alpaca's two WebSocket streams over a real connection to a sandbox on its own port: the trading stream's
/// `trade_updates` and the market-data streams, in JSON and in msgpack. Every wait is for a message; a message
/// that never comes fails the test at its time limit.
@Suite("Alpaca sandbox: streams", .timeLimit(.minutes(1)))
struct AlpacaStreamTests {
    static let demoAuth = #"{"action":"auth","key":"SANDBOX-ALPACA-KEY","secret":"SANDBOX-ALPACA-SECRET"}"#

    // MARK: Trading stream

    @Test("trading stream: auth, listen, then a market order's new and fill, with the REST order inside")
    func tradeUpdatesOfAFill() async throws {
        try await withAlpaca { client, _, _ async throws in
            try await withStream(client.base, path: "/stream") { stream in
                try await stream.sendText(Self.demoAuth)
                #expect(
                    try await stream.receiveCanonical(expectBinary: true)
                        == canon(#"{"stream":"authorization","data":{"action":"authenticate","status":"authorized"}}"#)
                )
                try await stream.sendText(#"{"action":"listen","data":{"streams":["trade_updates","account_updates"]}}"#)
                #expect(
                    try await stream.receiveCanonical(expectBinary: true)
                        == canon(#"{"stream":"listening","data":{"streams":["trade_updates"]}}"#)
                )

                let held = try await client.get("/v2/positions/AAPL")
                let before = held.status == 200 ? try #require(dec(held.object["qty"])) : 0
                let placed = try await client.post(
                    "/v2/orders",
                    #"{"symbol":"AAPL","qty":"2","side":"buy","type":"market","time_in_force":"day"}"#
                )
                #expect(placed.status == 200)
                let orderID = try #require(placed.object["id"] as? String)

                let new = try await stream.receiveObject()
                #expect(new["stream"] as? String == "trade_updates")
                let newData = try #require(new["data"] as? [String: Any])
                #expect(newData["event"] as? String == "new")
                #expect((newData["order"] as? [String: Any])?["id"] as? String == orderID)
                #expect(newData["price"] == nil)

                let fill = try #require(try await stream.receiveObject()["data"] as? [String: Any])
                #expect(fill["event"] as? String == "fill")
                let order = try #require(fill["order"] as? [String: Any])
                #expect(order["id"] as? String == orderID)
                #expect(order["status"] as? String == "filled")
                #expect(fill["qty"] as? String == "2")
                #expect(dec(fill["position_qty"]) == before + 2)
                #expect(fill["price"] as? String == order["filled_avg_price"] as? String)
                #expect(fill["execution_id"] is String)
                #expect(fill["timestamp"] as? String == order["filled_at"] as? String)
                // The order in the update is the order the REST API returns.
                let fetched = try await client.get("/v2/orders/\(orderID)")
                #expect(canon(fetched.object) == canon(order))
            }
        }
    }

    @Test("trading stream: a resting limit order fills when the price is pinned through it, streamed without a request")
    func fillOnAPriceMove() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            try await withStream(client.base, path: "/stream") { stream in
                // alpaca-py's older authentication message.
                try await stream.sendText(
                    #"{"action":"authenticate","data":{"key_id":"SANDBOX-ALPACA-KEY","secret_key":"SANDBOX-ALPACA-SECRET"}}"#
                )
                #expect((try await stream.receiveObject()["data"] as? [String: Any])?["status"] as? String == "authorized")
                try await stream.sendText(#"{"action":"listen","data":{"streams":["trade_updates"]}}"#)
                _ = try await stream.receiveObject()

                let quote = try #require(sandbox.market.quote(symbol: "MSFT"))
                let limit = DecimalText.format(DecimalText.round(quote.bid * dec("0.9"), scale: 2))
                let placed = try await client.post(
                    "/v2/orders",
                    #"{"symbol":"MSFT","qty":"1","side":"buy","type":"limit","limit_price":"\#(limit)","time_in_force":"gtc"}"#
                )
                #expect(placed.object["status"] as? String == "new")
                #expect((try await stream.receiveObject()["data"] as? [String: Any])?["event"] as? String == "new")

                try sandbox.market.setPriceOverride(quote.bid * dec("0.8"), for: "MSFT")
                let fill = try #require(try await stream.receiveObject()["data"] as? [String: Any])
                #expect(fill["event"] as? String == "fill")
                #expect((fill["order"] as? [String: Any])?["id"] as? String == placed.object["id"] as? String)
            }
        }
    }

    @Test("trading stream: a limit order larger than the touch sends partial_fill per part, then fill; the REST order says so")
    func partialFills() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            try await withStream(client.base, path: "/stream") { stream in
                try await stream.sendText(Self.demoAuth)
                _ = try await stream.receiveObject()
                try await stream.sendText(#"{"action":"listen","data":{"streams":["trade_updates"]}}"#)
                _ = try await stream.receiveObject()

                let held = try await client.get("/v2/positions/MSFT")
                let before = held.status == 200 ? try #require(dec(held.object["qty"])) : 0
                let quote = try #require(sandbox.market.quote(symbol: "MSFT"))
                let limit = DecimalText.format(DecimalText.round(quote.ask * dec("1.1"), scale: 2))
                // Two shares at the touch: the marketable order for five fills two at once and works for the rest.
                try sandbox.market.setDepth(2, for: "MSFT")
                let placed = try await client.post(
                    "/v2/orders",
                    #"{"symbol":"MSFT","qty":"5","side":"buy","type":"limit","limit_price":"\#(limit)","time_in_force":"day"}"#
                )
                #expect(placed.status == 200)
                let id = try #require(placed.object["id"] as? String)
                #expect(placed.object["status"] as? String == "partially_filled")
                #expect(placed.object["filled_qty"] as? String == "2")
                #expect(placed.object["filled_at"] is NSNull, "filled_at waits for the last share: \(placed.object)")
                let firstPrice = try #require(dec(placed.object["filled_avg_price"]))
                #expect(try await Self.event(stream) == ["new", id])

                let part = try #require(try await stream.receiveObject()["data"] as? [String: Any])
                #expect(part["event"] as? String == "partial_fill")
                #expect(part["qty"] as? String == "2")
                #expect(dec(part["price"]) == firstPrice)
                #expect(dec(part["position_qty"]) == before + 2)
                #expect((part["order"] as? [String: Any])?["status"] as? String == "partially_filled")

                // The rest of the buy reserves cash only for the three shares still to fill, at the limit.
                let open = try await client.get("/v2/orders?status=open")
                #expect(open.array.compactMap { $0["id"] as? String } == [id])
                let account = try await client.get("/v2/account").object
                let cash = try #require(dec(account["cash"]))
                #expect(dec(account["buying_power"]) == cash - 3 * dec(limit), "\(account)")

                // Three more at a new price: the order fills, its average weighted by volume.
                try sandbox.market.setPriceOverride(quote.ask, for: "MSFT")
                let secondPrice = try #require(sandbox.market.quote(symbol: "MSFT")?.ask)
                try sandbox.market.setDepth(3, for: "MSFT")
                let fill = try #require(try await stream.receiveObject()["data"] as? [String: Any])
                #expect(fill["event"] as? String == "fill")
                #expect(fill["qty"] as? String == "3")
                #expect(dec(fill["position_qty"]) == before + 5)
                let order = try #require(fill["order"] as? [String: Any])
                #expect(order["status"] as? String == "filled")
                #expect(order["filled_qty"] as? String == "5")
                let average = DecimalText.round((firstPrice * 2 + secondPrice * 3) / 5, scale: 9)
                #expect(dec(order["filled_avg_price"]) == average, "\(order)")
                #expect(dec(fill["price"]) == average)
                #expect(order["filled_at"] is String)
                #expect(canon(try await client.get("/v2/orders/\(id)").object) == canon(order))
            }
        }
    }

    @Test("trading stream: a replace sends replaced then new, a cancel canceled; listening to nothing stops the updates")
    func replaceCancelAndStop() async throws {
        try await withAlpaca { client, _, _ async throws in
            try await withStream(client.base, path: "/stream") { stream in
                try await stream.sendText(Self.demoAuth)
                _ = try await stream.receiveObject()
                try await stream.sendText(#"{"action":"listen","data":{"streams":["trade_updates"]}}"#)
                _ = try await stream.receiveObject()

                // A limit far below the market rests.
                let placed = try await client.post(
                    "/v2/orders",
                    #"{"symbol":"AAPL","qty":"1","side":"buy","type":"limit","limit_price":"1","time_in_force":"gtc"}"#
                )
                let first = try #require(placed.object["id"] as? String)
                #expect(try await Self.event(stream) == ["new", first])
                let replaced = try await client.patch("/v2/orders/\(first)", #"{"limit_price":"2"}"#)
                let second = try #require(replaced.object["id"] as? String)
                #expect(try await Self.event(stream) == ["replaced", first])
                #expect(try await Self.event(stream) == ["new", second])
                #expect(try await client.delete("/v2/orders/\(second)").status == 204)
                #expect(try await Self.event(stream) == ["canceled", second])

                try await stream.sendText(#"{"action":"listen","data":{"streams":[]}}"#)
                #expect(try await stream.receiveCanonical() == canon(#"{"stream":"listening","data":{"streams":[]}}"#))
                let unheard = try await client.post(
                    "/v2/orders",
                    #"{"symbol":"AAPL","qty":"1","side":"buy","type":"limit","limit_price":"1","time_in_force":"gtc"}"#
                )
                #expect(unheard.status == 200)
                try await stream.sendText(#"{"action":"listen","data":{"streams":["trade_updates"]}}"#)
                _ = try await stream.receiveObject()
                // The next update is of the order placed now: nothing of the one placed while not listening.
                let heard = try await client.post(
                    "/v2/orders",
                    #"{"symbol":"AAPL","qty":"1","side":"buy","type":"limit","limit_price":"1","time_in_force":"gtc"}"#
                )
                #expect(try await Self.event(stream) == ["new", try #require(heard.object["id"] as? String)])
            }
        }
    }

    /// The next trade update's event and order id.
    static func event(_ stream: StreamConversation) async throws -> [String] {
        let data = try #require(try await stream.receiveObject()["data"] as? [String: Any])
        return [data["event"] as? String ?? "?", (data["order"] as? [String: Any])?["id"] as? String ?? "?"]
    }

    @Test("a frame over the size limit ends that connection only: the sandbox serves the next one")
    func oversizedFrame() async throws {
        try await withAlpaca { client, _, _ async throws in
            try await withStream(client.base, path: "/v2/iex") { stream in
                _ = try await stream.receiveJSON()
                try await stream.sendText(String(repeating: " ", count: 100_000) + Self.demoAuth)
                do {
                    _ = try await stream.receive()
                    Issue.record("the connection answered a 100 kB frame")
                } catch {
                    // Closed, as it should be.
                }
            }
            try await withStream(client.base, path: "/v2/iex") { stream in
                _ = try await stream.receiveJSON()
                try await stream.sendText(Self.demoAuth)
                #expect(try await stream.receiveCanonical() == canon(#"[{"T":"success","msg":"authenticated"}]"#))
                try await stream.sendText(#"{"action":"subscribe","quotes":"AAPL"}"#)
                #expect(try await stream.receiveCanonical() == canon(#"[{"T":"error","code":400,"msg":"invalid syntax"}]"#))
                try await stream.sendText(#"{"action":"subscribe","trades":["AAPL",7]}"#)
                #expect(try await stream.receiveCanonical() == canon(#"[{"T":"error","code":400,"msg":"invalid syntax"}]"#))
            }
            #expect(try await client.get("/v2/account").status == 200)
        }
    }

    @Test("trading stream: wrong keys, listening unauthenticated, and garbage are answered, and the connection goes on")
    func tradingStreamRefusals() async throws {
        try await withAlpaca { client, _, _ async throws in
            try await withStream(client.base, path: "/stream") { stream in
                try await stream.sendText(#"{"action":"listen","data":{"streams":["trade_updates"]}}"#)
                #expect(
                    try await stream.receiveCanonical()
                        == canon(#"{"stream":"authorization","data":{"action":"listen","status":"unauthorized"}}"#)
                )
                try await stream.sendText(#"{"action":"auth","key":"SANDBOX-ALPACA-KEY","secret":"wrong"}"#)
                #expect(
                    try await stream.receiveCanonical()
                        == canon(#"{"stream":"authorization","data":{"action":"authenticate","status":"unauthorized"}}"#)
                )
                for garbage in ["{not json", #"{"action":42}"#, "[]", #"{"action":"dance"}"#] {
                    try await stream.sendText(garbage)
                    #expect(
                        try await stream.receiveCanonical() == canon(#"{"stream":"error","data":{"error_message":"invalid syntax"}}"#)
                    )
                }
                try await stream.sendBinary([0xc1, 0xff, 0x00])
                #expect((try await stream.receiveObject())["stream"] as? String == "error")
                try await stream.sendText(#"{"action":"authenticate","data":{"oauth_token":"not-a-token"}}"#)
                #expect((try await stream.receiveObject()["data"] as? [String: Any])?["status"] as? String == "unauthorized")
                try await stream.sendText(#"{"action":"authenticate","data":{"oauth_token":"SANDBOX-ALPACA-OAUTH-TOKEN"}}"#)
                #expect((try await stream.receiveObject()["data"] as? [String: Any])?["status"] as? String == "authorized")
            }
        }
    }

    // MARK: Market data

    @Test("stock data (JSON): connected, auth errors, subscribe, and a pinned price pushes a quote and a trade")
    func stockQuotesInJSON() async throws {
        try await withAlpaca { client, _, _ async throws in
            try await withStream(client.base, path: "/v2/iex") { stream in
                #expect(try await stream.receiveCanonical(expectBinary: false) == canon(#"[{"T":"success","msg":"connected"}]"#))
                try await stream.sendText(#"{"action":"subscribe","quotes":["AAPL"]}"#)
                #expect(try await stream.receiveCanonical() == canon(#"[{"T":"error","code":401,"msg":"not authenticated"}]"#))
                try await stream.sendText(#"{"action":"auth","key":"SANDBOX-ALPACA-KEY","secret":"nope"}"#)
                #expect(try await stream.receiveCanonical() == canon(#"[{"T":"error","code":402,"msg":"auth failed"}]"#))
                try await stream.sendText("]]")
                #expect(try await stream.receiveCanonical() == canon(#"[{"T":"error","code":400,"msg":"invalid syntax"}]"#))
                try await stream.sendText(Self.demoAuth)
                #expect(try await stream.receiveCanonical() == canon(#"[{"T":"success","msg":"authenticated"}]"#))
                try await stream.sendText(Self.demoAuth)
                #expect(try await stream.receiveCanonical() == canon(#"[{"T":"error","code":403,"msg":"already authenticated"}]"#))
                try await stream.sendText(#"{"action":"subscribe","quotes":["AAPL","MSFT"],"trades":["AAPL"],"bars":["*"]}"#)
                #expect(
                    try await stream.receiveCanonical()
                        == canon(
                            #"[{"T":"subscription","trades":["AAPL"],"quotes":["AAPL","MSFT"],"bars":["*"],"updatedBars":[],"dailyBars":[],"statuses":[],"lulds":[],"corrections":["AAPL"],"cancelErrors":["AAPL"]}]"#
                        )
                )
                try await stream.sendText(#"{"action":"unsubscribe","quotes":["MSFT"]}"#)
                #expect(((try await stream.receiveJSON() as? [[String: Any]])?.first?["quotes"] as? [String]) == ["AAPL"])

                #expect(try await client.put("/_sandbox/prices/AAPL", #"{"price":"200"}"#).status == 200)
                let pushed = try #require(try await stream.receiveJSON() as? [[String: Any]])
                #expect(pushed.count == 2)
                let quote = try #require(pushed.first { $0["T"] as? String == "q" })
                #expect(quote["S"] as? String == "AAPL")
                let bid = try #require(quote["bp"] as? Double)
                let ask = try #require(quote["ap"] as? Double)
                #expect(bid < 200 && 200 < ask)
                #expect(quote["bx"] as? String == "V" && quote["ax"] as? String == "V")
                #expect(quote["bs"] is Int && quote["as"] is Int)
                #expect(quote["c"] as? [String] == ["R"])
                #expect((quote["t"] as? String).flatMap(Timestamp.parse) != nil)
                let trade = try #require(pushed.first { $0["T"] as? String == "t" })
                #expect(trade["S"] as? String == "AAPL")
                #expect(trade["p"] as? Int == 200)
                #expect(trade["i"] is Int && trade["x"] as? String == "V")
            }
        }
    }

    @Test("stock data (msgpack, as alpaca-py asks): binary frames, timestamps as msgpack timestamps")
    func stockQuotesInMessagePack() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            try await withStream(client.base, path: "/v2/sip", msgpack: true) { stream in
                #expect(try await stream.receiveMessagePack() == .array([.object(["T": "success", "msg": "connected"])]))
                try await stream.send(.object(["action": "auth", "key": "SANDBOX-ALPACA-KEY", "secret": "SANDBOX-ALPACA-SECRET"]))
                #expect(try await stream.receiveMessagePack() == .array([.object(["T": "success", "msg": "authenticated"])]))
                try await stream.send(.object(["action": "subscribe", "quotes": .array(["NVDA"])]))
                let subscription = try await stream.receiveMessagePack()
                #expect(subscription.arrayValue?.first?["quotes"] == .array(["NVDA"]))
                try await stream.sendBinary([0x81, 0xa6])  // a map cut short
                #expect(
                    try await stream.receiveMessagePack()
                        == .array([.object(["T": "error", "code": .int(400), "msg": "invalid syntax"])])
                )

                try sandbox.market.setPriceOverride(dec("150.25"), for: "NVDA")
                let pushed = try #require(try await stream.receiveMessagePack().arrayValue)
                #expect(pushed.count == 1)
                let quote = try #require(pushed.first)
                #expect(quote["T"] == "q" && quote["S"] == "NVDA")
                guard case .float(let bid)? = quote["bp"], case .float(let ask)? = quote["ap"] else {
                    Issue.record("prices are not float64: \(quote)")
                    return
                }
                #expect(bid < 150.25 && 150.25 < ask)
                guard case .timestamp(let seconds, _)? = quote["t"] else {
                    Issue.record("t is not a msgpack timestamp: \(quote)")
                    return
                }
                #expect(seconds == Int64(ManualClock.defaultStart.timeIntervalSince1970))
            }
        }
    }

    @Test("stock data: minute bars are pushed as each minute ends on the sandbox's clock")
    func minuteBars() async throws {
        try await withAlpaca { client, _, _ async throws in
            try await withStream(client.base, path: "/v2/iex") { stream in
                _ = try await stream.receiveJSON()
                try await stream.sendText(Self.demoAuth)
                _ = try await stream.receiveJSON()
                try await stream.sendText(#"{"action":"subscribe","bars":["AAPL"]}"#)
                _ = try await stream.receiveJSON()

                #expect(try await client.post("/_sandbox/clock/advance", #"{"seconds":60}"#).status == 200)
                let first = try #require(try await stream.receiveJSON() as? [[String: Any]])
                #expect(first.count == 1)
                let bar = try #require(first.first)
                #expect(bar["T"] as? String == "b" && bar["S"] as? String == "AAPL")
                #expect(bar["t"] as? String == "2025-01-06T15:00:00.000000000Z")
                // The REST API's bar of the same minute, from the same sampler.
                let rest = try await client.get(
                    "/v2/stocks/AAPL/bars?timeframe=1Min&start=2025-01-06T15:00:00Z&end=2025-01-06T15:00:59Z"
                )
                let restBar = try #require((rest.object["bars"] as? [[String: Any]])?.first)
                for key in ["o", "h", "l", "c", "v", "n", "vw"] {
                    #expect(canon([bar[key] ?? NSNull()]) == canon([restBar[key] ?? NSNull()]), "\(key)")
                }

                #expect(try await client.post("/_sandbox/clock/advance", #"{"seconds":185}"#).status == 200)
                let next = try #require(try await stream.receiveJSON() as? [[String: Any]])
                #expect(
                    next.compactMap { $0["t"] as? String } == [
                        "2025-01-06T15:01:00.000000000Z", "2025-01-06T15:02:00.000000000Z", "2025-01-06T15:03:00.000000000Z",
                    ]
                )
            }
        }
    }

    @Test("stock data: one connection per account and endpoint; another is refused with 406 and closed, until the first ends")
    func connectionLimit() async throws {
        try await withAlpaca { client, _, _ async throws in
            try await withStream(client.base, path: "/v2/iex") { first in
                _ = try await first.receiveJSON()
                try await first.sendText(Self.demoAuth)
                #expect(try await first.receiveCanonical() == canon(#"[{"T":"success","msg":"authenticated"}]"#))
                try await withStream(client.base, path: "/v2/iex") { second in
                    _ = try await second.receiveJSON()
                    try await second.sendText(Self.demoAuth)
                    #expect(
                        try await second.receiveCanonical() == canon(#"[{"T":"error","code":406,"msg":"connection limit exceeded"}]"#)
                    )
                    await #expect(throws: StreamConversation.Closed.self) { _ = try await second.receive() }
                }
                // Another endpoint is another limit.
                try await withStream(client.base, path: "/v2/sip") { other in
                    _ = try await other.receiveJSON()
                    try await other.sendText(Self.demoAuth)
                    #expect(try await other.receiveCanonical() == canon(#"[{"T":"success","msg":"authenticated"}]"#))
                }
            }
            // The first connection has ended: its place is free.
            try await withStream(client.base, path: "/v2/iex") { again in
                _ = try await again.receiveJSON()
                try await again.sendText(Self.demoAuth)
                #expect(try await again.receiveCanonical() == canon(#"[{"T":"success","msg":"authenticated"}]"#))
            }
        }
    }

    @Test("stock data: a connection that does not authenticate in time is answered 404 auth timeout and closed")
    func authTimeout() async throws {
        var configuration = AlpacaSandboxConfiguration()
        // Long enough that the authenticated connection below sends its auth in time on a loaded machine.
        configuration.streamAuthTimeout = .seconds(2)
        try await withAlpaca(configuration: configuration) { client, _, _ async throws in
            try await withStream(client.base, path: "/v2/iex") { stream in
                _ = try await stream.receiveJSON()
                #expect(try await stream.receiveCanonical() == canon(#"[{"T":"error","code":404,"msg":"auth timeout"}]"#))
                await #expect(throws: StreamConversation.Closed.self) { _ = try await stream.receive() }
            }
            // An authenticated connection outlives the timeout: the pin after it is still pushed.
            try await withStream(client.base, path: "/v2/iex") { stream in
                _ = try await stream.receiveJSON()
                try await stream.sendText(Self.demoAuth)
                _ = try await stream.receiveJSON()
                try await stream.sendText(#"{"action":"subscribe","trades":["AAPL"]}"#)
                _ = try await stream.receiveJSON()
                // Waits for a timed-out twin connection to be answered, so the timeout has passed for this one too.
                try await withStream(client.base, path: "/v2/sip") { twin in
                    _ = try await twin.receiveJSON()
                    #expect(try await twin.receiveCanonical() == canon(#"[{"T":"error","code":404,"msg":"auth timeout"}]"#))
                }
                #expect(try await client.put("/_sandbox/prices/AAPL", #"{"price":"199"}"#).status == 200)
                #expect((try await stream.receiveJSON() as? [[String: Any]])?.first?["p"] as? Int == 199)
            }
        }
    }

    @Test("crypto data: /v1beta3/crypto/us streams BTC/USD quotes; another location is not a stream")
    func cryptoQuotes() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            try await withStream(client.base, path: "/v1beta3/crypto/us") { stream in
                _ = try await stream.receiveJSON()
                try await stream.sendText(Self.demoAuth)
                _ = try await stream.receiveJSON()
                try await stream.sendText(#"{"action":"subscribe","quotes":["BTC/USD"],"trades":["BTC/USD"]}"#)
                let subscription = try #require((try await stream.receiveJSON() as? [[String: Any]])?.first)
                #expect(subscription["orderbooks"] as? [String] == [])
                #expect(subscription["corrections"] == nil)
                try sandbox.market.setPriceOverride(dec("50000"), for: "BTC/USD")
                let pushed = try #require(try await stream.receiveJSON() as? [[String: Any]])
                let quote = try #require(pushed.first { $0["T"] as? String == "q" })
                #expect(quote["S"] as? String == "BTC/USD")
                #expect(quote["bx"] == nil)
                let trade = try #require(pushed.first { $0["T"] as? String == "t" })
                #expect(trade["tks"] as? String == "B")
            }
        }
    }

    @Test("the HTTP side is as before: a stream path without an upgrade is a 404, the REST routes answer as ever")
    func plainHTTP() async throws {
        try await withAlpaca { client, _, _ async throws in
            let unknown = try await client.get("/v2/nothing-here")
            #expect(unknown.status == 404)
            #expect(unknown.text == #"{"code":40410000,"message":"endpoint not found"}"#)
            for path in ["/stream", "/v2/iex", "/v2/test", "/v1beta3/crypto/us", "/v1beta3/crypto/eu"] {
                let reply = try await client.get(path)
                #expect(reply.status == 404, "\(path)")
                #expect(reply.text == unknown.text, "\(path)")
            }
            #expect(try await client.get("/v2/account").status == 200)
        }
    }
}

// MARK: Support

/// One side of a stream connection, for a test's body: send, and wait for the next message.
final class StreamConversation {
    let outbound: WebSocketOutboundWriter
    var messages: WebSocketInboundMessageStream.AsyncIterator

    init(outbound: WebSocketOutboundWriter, messages: WebSocketInboundMessageStream.AsyncIterator) {
        self.outbound = outbound
        self.messages = messages
    }

    struct Closed: Error {}

    func sendText(_ text: String) async throws { try await outbound.write(.text(text)) }
    func sendBinary(_ bytes: [UInt8]) async throws { try await outbound.write(.binary(ByteBuffer(bytes: bytes))) }
    func send(_ value: MessagePack) async throws { try await sendBinary(value.encoded) }

    func receive() async throws -> WebSocketMessage {
        guard let message = try await messages.next() else { throw Closed() }
        return message
    }

    /// The next message as JSON (Foundation's parser, as a client reads it); `expectBinary` checks the frame type.
    func receiveJSON(expectBinary: Bool? = nil) async throws -> Any {
        let data: Data
        switch try await receive() {
        case .text(let text):
            if let expectBinary { #expect(!expectBinary, "a text frame: \(text)") }
            data = Data(text.utf8)
        case .binary(let buffer):
            if let expectBinary { #expect(expectBinary, "a binary frame") }
            data = Data(Array(buffer: buffer))
        }
        return try JSONSerialization.jsonObject(with: data)
    }

    /// The next message as sorted-key JSON text, to compare with ``canon(_:)`` of the expected text.
    func receiveCanonical(expectBinary: Bool? = nil) async throws -> String {
        canon(try await receiveJSON(expectBinary: expectBinary))
    }

    func receiveObject() async throws -> [String: Any] {
        try #require(try await receiveJSON() as? [String: Any])
    }

    func receiveMessagePack() async throws -> MessagePack {
        guard case .binary(let buffer) = try await receive() else {
            Issue.record("a text frame on a msgpack connection")
            throw Closed()
        }
        return try MessagePack(decoding: Array(buffer: buffer))
    }
}

/// A JSON value (parsed, or its text) as sorted-key JSON text: two canonical texts are equal when the values are.
func canon(_ value: Any) -> String {
    let object: Any
    if let text = value as? String, let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)) {
        object = parsed
    } else {
        object = value
    }
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "\(value)" }
    return String(decoding: data, as: UTF8.self)
}

/// Connects to `path` of the sandbox at `base` (with `Content-Type: application/msgpack` when `msgpack`), runs
/// `body`, then closes the connection.
func withStream(
    _ base: URL,
    path: String,
    msgpack: Bool = false,
    _ body: @escaping @Sendable (StreamConversation) async throws -> Void
) async throws {
    let url = base.absoluteString.replacingOccurrences(of: "http://", with: "ws://") + path
    var headers = HTTPFields()
    if msgpack { headers[.contentType] = "application/msgpack" }
    let failure = Mutex<(any Error)?>(nil)
    let finished = Mutex(false)
    try await WebSocketClient.connect(
        url: url,
        configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers),
        logger: Logger(label: "stream-test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) { inbound, outbound, _ in
        let conversation = StreamConversation(outbound: outbound, messages: inbound.messages(maxSize: 1 << 20).makeAsyncIterator())
        do {
            try await body(conversation)
            finished.withLock { $0 = true }
        } catch {
            failure.withLock { $0 = error }
        }
    }
    if let error = failure.withLock({ $0 }) { throw error }
    #expect(finished.withLock { $0 }, "the connection ended before the test's body did")
}
