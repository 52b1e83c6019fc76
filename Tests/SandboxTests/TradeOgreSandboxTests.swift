import Foundation
import Sandbox
import Testing

@testable import SandboxKit
@testable import TradeOgreSandbox

/// Rounds to TradeOgre's 8 decimals and writes the text the venue accepts.
private func wire(_ value: Decimal) -> String {
    TradeOgreWire.text(value)
}

@Suite("TradeOgre sandbox: authentication and errors")
struct TradeOgreAuthTests {
    @Test("private endpoints without or with wrong credentials answer {\"success\":false,\"error\":\"Must be authorized\"}")
    func unauthorized() async throws {
        try await withTradeOgre { client, _, _ async throws in
            var anonymous = client
            anonymous.credentials = nil
            var wrong = client
            wrong.credentials = (TradeOgreSandboxAccount.demoAPIKey, "not-the-secret")
            for caller in [anonymous, wrong] {
                for reply in [
                    try await caller.get("/account/balances"),
                    try await caller.post("/account/balance", [("currency", "BTC")]),
                    try await caller.post("/order/buy", [("market", "XMR-BTC"), ("quantity", "1"), ("price", "0.001")]),
                    try await caller.post("/order/cancel", [("uuid", "all")]),
                    try await caller.post("/account/orders"),
                    try await caller.get("/account/order/\(UUID().uuidString.lowercased())"),
                ] {
                    #expect(reply.status == 200)
                    #expect(canonical(reply.text) == #"{"error":"Must be authorized","success":false}"#)
                }
            }
            // Public endpoints need nothing.
            #expect(try await anonymous.get("/markets").status == 200)
        }
    }

    @Test("HTTP Basic with the demo key reaches the demo account's balances")
    func authorized() async throws {
        try await withTradeOgre { client, _, _ async throws in
            let reply = try await client.get("/account/balances")
            #expect(reply.object["success"] as? Bool == true)
            let balances = try #require(reply.object["balances"] as? [String: String])
            #expect(balances == ["BTC": "1.50000000", "LTC": "40.00000000", "USDT": "10000.00000000", "XMR": "25.00000000"])
        }
    }

    @Test("unknown markets, bad amounts and unknown orders get TradeOgre's failure body")
    func failures() async throws {
        try await withTradeOgre { client, _, _ async throws in
            func error(_ reply: OgreClient.Reply) -> String? {
                reply.object["success"] as? Bool == false ? reply.object["error"] as? String : nil
            }
            #expect(error(try await client.get("/ticker/NOPE-BTC")) == "Market not found")
            #expect(error(try await client.get("/orders/BTC-XMR")) == "Market not found")  // the other naming
            #expect(error(try await client.post("/order/buy", [("market", "AEON-BTC"), ("quantity", "1"), ("price", "1")])) == "Market not found")
            #expect(
                error(try await client.post("/order/buy", [("market", "XMR-BTC"), ("quantity", "1.5abc"), ("price", "0.001")])) == "Invalid quantity"
            )
            #expect(
                error(try await client.post("/order/buy", [("market", "XMR-BTC"), ("quantity", "0.000000001"), ("price", "0.001")]))
                    == "Invalid quantity"
            )
            #expect(error(try await client.post("/order/sell", [("market", "XMR-BTC"), ("quantity", "1"), ("price", "-1")])) == "Invalid price")
            #expect(
                error(try await client.post("/order/buy", [("market", "XMR-BTC"), ("quantity", "1000"), ("price", "0.002")])) == "Insufficient funds"
            )
            #expect(
                error(try await client.post("/order/sell", [("market", "XMR-BTC"), ("quantity", "25.00000001"), ("price", "1")]))
                    == "Insufficient funds"
            )
            #expect(error(try await client.post("/order/cancel", [("uuid", UUID().uuidString)])) == "Order not found")
            #expect(error(try await client.get("/account/order/\(UUID().uuidString.lowercased())")) == "Order not found")
            #expect(error(try await client.post("/account/orders", [("market", "NOPE-BTC")])) == "Market not found")
            // An unknown path is a 404 with the same body shape.
            let missing = try await client.get("/no/such/thing")
            #expect(missing.status == 404)
            #expect(missing.object["success"] as? Bool == false)
        }
    }

    @Test("injected faults answer with the fault's status and a TradeOgre body")
    func faults() async throws {
        let faults = FaultInjector(rules: [FaultRule(.error(status: 503), pathPrefix: "/api/v1/ticker", count: 1)])
        try await withTradeOgre(faults: faults) { client, _, _ async throws in
            let failed = try await client.get("/ticker/XMR-BTC")
            #expect(failed.status == 503)
            #expect(failed.object["success"] as? Bool == false)
            #expect(try await client.get("/ticker/XMR-BTC").status == 200)
        }
    }
}

@Suite("TradeOgre sandbox: public market data")
struct TradeOgreMarketDataTests {
    @Test("markets: one-key objects named BASE-QUOTE, every value an 8-decimal string, with basename")
    func markets() async throws {
        try await withTradeOgre { client, _, _ async throws in
            let reply = try await client.get("/markets")
            let entries = try #require(reply.json as? [[String: [String: String]]])
            #expect(entries.flatMap(\.keys) == ["BTC-USDT", "LTC-BTC", "LTC-USDT", "XMR-BTC", "XMR-USDT"])
            #expect(reply.text.contains(#""success""#) == false)
            for entry in entries {
                let market = try #require(entry.values.first)
                for key in ["initialprice", "price", "high", "low", "volume", "bid", "ask"] {
                    #expect(isEightDecimals(market[key]), "\(entry.keys.first!) \(key)")
                }
                #expect(dec(market["bid"])! < dec(market["ask"])!)
                #expect(dec(market["low"])! <= dec(market["high"])!)
            }
            #expect(entries[3]["XMR-BTC"]?["basename"] == "Monero")
        }
    }

    @Test("ticker, order book, history and chart")
    func marketData() async throws {
        try await withTradeOgre { client, _, clock async throws in
            let ticker = try await client.get("/ticker/XMR-BTC").object
            #expect(ticker["success"] as? Bool == true)
            for key in ["initialprice", "price", "high", "low", "volume", "bid", "ask"] { #expect(isEightDecimals(ticker[key]), "\(key)") }

            let book = try await client.get("/orders/XMR-BTC").object
            #expect(book["success"] as? String == "true")
            let bids = try #require(book["buy"] as? [String: String])
            let asks = try #require(book["sell"] as? [String: String])
            // Five synthetic levels a side plus the participants' two.
            #expect(bids.count == 7 && asks.count == 7)
            #expect(bids.keys.compactMap { dec($0) }.max()! < asks.keys.compactMap { dec($0) }.min()!)
            #expect(dec(ticker["bid"]) == bids.keys.compactMap { dec($0) }.max())
            #expect(bids.keys.allSatisfy(isEightDecimals) && bids.values.allSatisfy(isEightDecimals))

            let history = try await client.get("/history/XMR-BTC").array
            #expect(history.count == 30)
            let dates = history.compactMap { $0["date"] as? Int }
            #expect(dates == dates.sorted() && dates.count == 30)
            #expect(Set(history.compactMap { $0["type"] as? String }).isSubset(of: ["buy", "sell"]))

            let chart = try #require(try await client.get("/chart/1h/XMR-BTC").json as? [[Double]])
            #expect(chart.count == 100)
            #expect(chart.allSatisfy { $0.count == 6 && $0[2] >= max($0[1], $0[4]) && $0[3] <= min($0[1], $0[4]) })
            #expect(chart.last![0] == Double(Int(clock.now().timeIntervalSince1970) / 3600 * 3600))
            let earlier = try #require(try await client.get("/chart/1d/XMR-BTC/1700000000").json as? [[Double]])
            #expect(earlier.last![0] == 1_699_920_000)
            let bad = try await client.get("/chart/5m/XMR-BTC").object
            #expect(bad["success"] as? Bool == false)
        }
    }

    @Test("the older quote-first naming: BTC-XMR is served, XMR-BTC is not")
    func quoteBaseNaming() async throws {
        try await withTradeOgre(configuration: TradeOgreSandboxConfiguration(marketNaming: .quoteBase)) { client, _, _ async throws in
            let entries = try #require(try await client.get("/markets").json as? [[String: Any]])
            #expect(entries.flatMap(\.keys) == ["BTC-LTC", "BTC-XMR", "USDT-BTC", "USDT-LTC", "USDT-XMR"])
            #expect(try await client.get("/ticker/BTC-XMR").object["success"] as? Bool == true)
            #expect(try await client.get("/ticker/XMR-BTC").object["error"] as? String == "Market not found")
            let uuid = try await client.place("buy", "BTC-XMR", quantity: "1", price: "0.001")
            let order = try await client.get("/account/order/\(uuid)").object
            #expect(order["market"] as? String == "BTC-XMR")
        }
    }
}

@Suite("TradeOgre sandbox: orders, matching and balances")
struct TradeOgreTradingTests {
    @Test("a resting order holds funds: balance keeps them, available does not; cancel releases them")
    func heldBalances() async throws {
        try await withTradeOgre { client, _, _ async throws in
            let reply = try await client.post("/order/buy", [("market", "XMR-BTC"), ("quantity", "2"), ("price", "0.001")])
            #expect(reply.object["success"] as? Bool == true)
            let uuid = try #require(reply.object["uuid"] as? String)
            #expect(UUID(uuidString: uuid) != nil)
            #expect(reply.object["bnewbalavail"] as? String == "1.49800000")
            #expect(reply.object["snewbalavail"] as? String == "25.00000000")

            let btc = try await client.balance("BTC")
            #expect(btc.total == dec("1.5") && btc.available == dec("1.498"))

            let open = try await client.post("/account/orders").array
            #expect(open.count == 1)
            #expect(open.first?["uuid"] as? String == uuid)
            #expect(open.first?["market"] as? String == "XMR-BTC")
            #expect(open.first?["type"] as? String == "buy")
            #expect(open.first?["quantity"] as? String == "2.00000000")
            #expect(open.first?["date"] is Int)
            #expect(try await client.post("/account/orders", [("market", "LTC-BTC")]).array.isEmpty)

            let order = try await client.get("/account/order/\(uuid)").object
            #expect(order["success"] as? Bool == true)
            #expect(order["date"] is String)
            #expect(order["quantity"] as? String == "2.00000000")
            #expect(order["fulfilled"] as? String == "0.00000000")
            #expect(order["price"] as? String == "0.00100000")
            #expect(order["uuid"] == nil)

            // A sell holds the base currency.
            _ = try await client.place("sell", "XMR-BTC", quantity: "5", price: "1")
            #expect(try await client.balance("XMR").available == 20)

            #expect(try await client.post("/order/cancel", [("uuid", uuid)]).object["success"] as? Bool == true)
            #expect(try await client.balance("BTC").available == dec("1.5"))
            #expect(try await client.get("/account/order/\(uuid)").object["error"] as? String == "Order not found")
            #expect(try await client.post("/order/cancel", [("uuid", uuid)]).object["error"] as? String == "Order not found")

            #expect(try await client.post("/order/cancel", [("uuid", "all")]).object["success"] as? Bool == true)
            #expect(try await client.post("/account/orders").array.isEmpty)
            #expect(try await client.balance("XMR").available == 25)
        }
    }

    @Test("an order that crosses trades with the book at the resting prices, partially, and rests the rest")
    func partialFill() async throws {
        try await withTradeOgre { client, sandbox, _ async throws in
            let top = try await client.top("XMR-BTC")
            let limit = DecimalText.round(top.ask * Decimal(string: "1.01")!, scale: 8)
            let uuid = try await client.place("buy", "XMR-BTC", quantity: "100", price: wire(limit))

            let order = try await client.get("/account/order/\(uuid)").object
            let filled = try #require(dec(order["fulfilled"]))
            let remaining = try #require(dec(order["quantity"]))
            #expect(filled > 0 && remaining > 0)
            #expect(filled + remaining == 100)

            // Paid at the asks, not at the limit: less than filled × limit, at least filled × best ask.
            let btc = try await client.balance("BTC")
            let spent = dec("1.5") - btc.total
            #expect(spent < filled * limit)
            #expect(spent >= DecimalText.round(filled * top.ask, scale: 8, .down))
            // What remains is held at the limit.
            #expect(btc.total - btc.available == DecimalText.round(remaining * limit, scale: 8, .up))
            #expect(try await client.balance("XMR").total == 25 + filled)

            // The remainder is now the best bid, and the fills are in the history as buys.
            #expect(try await client.top("XMR-BTC").bid == limit)
            let history = try await client.get("/history/XMR-BTC").array
            let recent = history.suffix(from: 30)
            #expect(!recent.isEmpty && recent.allSatisfy { $0["type"] as? String == "buy" })
            #expect(recent.compactMap { dec($0["quantity"]) }.reduce(0, +) == filled)
            let prices = recent.compactMap { dec($0["price"]) }
            #expect(prices == prices.sorted())
            #expect(prices.first == top.ask)
            _ = sandbox
        }
    }

    @Test("a resting order fills when the market moves through its price, at its price")
    func restingOrderFillsWhenMarketMoves() async throws {
        try await withTradeOgre { client, sandbox, _ async throws in
            let top = try await client.top("XMR-BTC")
            let price = DecimalText.round(top.ask * Decimal(string: "1.02")!, scale: 8)
            let uuid = try await client.place("sell", "XMR-BTC", quantity: "2", price: wire(price))
            #expect(try await client.get("/account/order/\(uuid)").object["fulfilled"] as? String == "0.00000000")

            try sandbox.market.setPriceOverride(price * Decimal(string: "1.01")!, for: "XMR/BTC")
            let order = try await client.get("/account/order/\(uuid)").object
            #expect(order["quantity"] as? String == "0.00000000")
            #expect(order["fulfilled"] as? String == "2.00000000")
            #expect(try await client.post("/account/orders").array.isEmpty)
            #expect(try await client.balance("XMR").total == 23)
            #expect(try await client.balance("BTC").total == dec("1.5") + DecimalText.round(2 * price, scale: 8, .down))
            // The maker's new bid arrived and bought at the resting price (the participants' sells it also
            // reached are in the history too).
            let recent = try await client.get("/history/XMR-BTC").array.suffix(from: 30)
            #expect(recent.contains { dec($0["price"]) == price && $0["type"] as? String == "buy" && dec($0["quantity"]) == 2 })
        }
    }

    @Test("two accounts trade with each other through the book")
    func accountsCross() async throws {
        let other = TradeOgreSandboxAccount(apiKey: "OTHER-KEY", apiSecret: "OTHER-SECRET", balances: ["XMR": 10])
        let configuration = TradeOgreSandboxConfiguration(accounts: [.demo, other], makerLevels: 0, participantOffsets: [])
        try await withTradeOgre(configuration: configuration) { client, _, _ async throws in
            var seller = client
            seller.credentials = ("OTHER-KEY", "OTHER-SECRET")
            let sell = try await seller.place("sell", "XMR-BTC", quantity: "4", price: "0.003")
            let buy = try await client.place("buy", "XMR-BTC", quantity: "1.5", price: "0.004")
            #expect(try await client.get("/account/order/\(buy)").object["fulfilled"] as? String == "1.50000000")
            let resting = try await seller.get("/account/order/\(sell)").object
            #expect(resting["quantity"] as? String == "2.50000000")
            #expect(resting["fulfilled"] as? String == "1.50000000")
            #expect(try await seller.balance("BTC").total == dec("0.0045"))
            let xmr = try await seller.balance("XMR")
            #expect(xmr.total == dec("8.5") && xmr.available == 6)
            #expect(try await client.balance("BTC").total == dec("1.4955"))
            // Each account sees only its own orders.
            #expect(try await client.get("/account/order/\(sell)").object["error"] as? String == "Order not found")
        }
    }
}

@Suite("TradeOgre order book: price-time priority")
struct TradeOgreOrderBookTests {
    func order(_ side: TradeSide, _ price: String, _ quantity: String, _ sequence: UInt64) -> TradeOgreBookOrder {
        TradeOgreBookOrder(id: UUID(), owner: .participant, side: side, price: dec(price), remaining: dec(quantity), sequence: sequence)
    }

    @Test("better prices first, then earlier orders; executions at the resting price")
    func priority() {
        var book = TradeOgreOrderBook()
        let late = order(.sell, "10", "1", 3)
        let early = order(.sell, "10", "1", 2)
        let cheap = order(.sell, "9", "1", 4)
        for resting in [late, early, cheap] { #expect(book.submit(resting).isEmpty) }
        let fills = book.submit(order(.buy, "11", "2.5", 5))
        #expect(fills.map(\.maker.id) == [cheap.id, early.id, late.id])
        #expect(fills.map(\.price) == [9, 10, 10])
        #expect(fills.map(\.quantity) == [1, 1, dec("0.5")])
        #expect(book.asks.map(\.remaining) == [dec("0.5")])
        #expect(book.bids.isEmpty)
        // A buy below the ask rests; a sell at the bid trades.
        #expect(book.submit(order(.buy, "8", "1", 6)).isEmpty)
        #expect(book.levels(.buy).map(\.price) == [8])
        let sold = book.submit(order(.sell, "8", "3", 7))
        #expect(sold.map(\.quantity) == [1])
        #expect(book.levels(.sell).map(\.price) == [8, 10])
        #expect(book.levels(.sell).map(\.quantity) == [2, dec("0.5")])
    }
}
