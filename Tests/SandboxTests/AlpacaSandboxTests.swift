import Foundation
import Sandbox
import Testing

@testable import AlpacaSandbox
@testable import SandboxKit

@Suite("Alpaca sandbox: authentication and rate limits")
struct AlpacaAuthTests {
    @Test("missing or wrong credentials get Alpaca's exact 401 body")
    func unauthorized() async throws {
        try await withAlpaca { client, _, _ async throws in
            var anonymous = client
            anonymous.headers = []
            let expected = #"{"code":40110000,"message":"request is not authorized"}"#
            for reply in [
                try await anonymous.get("/v2/account"),
                try await anonymous.get("/v2/account", headers: [("APCA-API-KEY-ID", "SANDBOX-ALPACA-KEY"), ("APCA-API-SECRET-KEY", "nope")]),
                try await anonymous.get("/v2/orders", headers: [("Authorization", "Bearer not-a-token")]),
            ] {
                #expect(reply.status == 401)
                #expect(reply.text == expected)
                #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
            }
            // The market-data API answers errors with a message only.
            for reply in [
                try await anonymous.get("/v2/stocks/quotes/latest?symbols=AAPL"),
                try await anonymous.get(
                    "/v1beta3/crypto/us/latest/quotes?symbols=BTC/USD",
                    headers: [("APCA-API-KEY-ID", "x"), ("APCA-API-SECRET-KEY", "y")]
                ),
            ] {
                #expect(reply.status == 401)
                #expect(reply.text == #"{"message":"unauthorized."}"#)
            }
            // Crypto market data is public.
            #expect(try await anonymous.get("/v1beta3/crypto/us/latest/quotes?symbols=BTC/USD").status == 200)
        }
    }

    @Test("key pair, OAuth bearer token and basic auth reach the demo account")
    func authenticated() async throws {
        try await withAlpaca { client, _, _ async throws in
            var anonymous = client
            anonymous.headers = []
            let basic = Data("\(AlpacaSandboxAccount.demoKeyID):\(AlpacaSandboxAccount.demoSecretKey)".utf8).base64EncodedString()
            for headers in [
                client.headers, [("Authorization", "Bearer \(AlpacaSandboxAccount.demoOAuthToken)")], [("Authorization", "Basic \(basic)")],
            ] {
                let reply = try await anonymous.get("/v2/account", headers: headers)
                #expect(reply.status == 200)
                #expect(reply.object["account_number"] as? String == "PA3SANDBOX01")
            }
        }
    }

    @Test("requests past the per-minute limit get 429 with rate-limit headers until the window resets")
    func rateLimit() async throws {
        try await withAlpaca(configuration: AlpacaSandboxConfiguration(requestsPerMinute: 3)) { client, _, clock async throws in
            for remaining in [2, 1, 0] {
                let reply = try await client.get("/v2/clock")
                #expect(reply.status == 200)
                #expect(reply.header("X-RateLimit-Limit") == "3")
                #expect(reply.header("X-RateLimit-Remaining") == String(remaining))
            }
            let limited = try await client.get("/v2/account")
            #expect(limited.status == 429)
            #expect(limited.text == #"{"code":42910000,"message":"rate limit exceeded"}"#)
            #expect(limited.header("X-RateLimit-Remaining") == "0")
            let reset = try #require(limited.header("X-RateLimit-Reset").flatMap(Double.init))
            #expect(reset > clock.now().timeIntervalSince1970 && reset <= clock.now().timeIntervalSince1970 + 60)
            // Market data has its own budget.
            #expect(try await client.get("/v2/stocks/quotes/latest?symbols=AAPL").status == 200)
            clock.set(Date(timeIntervalSince1970: reset))
            #expect(try await client.get("/v2/account").status == 200)
        }
    }
}

@Suite("Alpaca sandbox: account, positions and orders")
struct AlpacaTradingTests {
    @Test("the demo account starts with cash, positions and a watchlist, all decimals as strings")
    func demoAccount() async throws {
        try await withAlpaca { client, _, _ async throws in
            let account = try await client.get("/v2/account").object
            #expect(account["status"] as? String == "ACTIVE")
            #expect(account["cash"] as? String == "100000")
            for key in ["buying_power", "equity", "portfolio_value", "long_market_value", "last_equity"] {
                #expect(account[key] is String, "\(key) must be a string")
            }
            #expect(account["daytrade_count"] as? Int == 0)
            let positions = try await client.get("/v2/positions").array
            #expect(positions.map { $0["symbol"] as? String } == ["AAPL", "BTCUSD", "MSFT"])
            let btc = try #require(positions.first { $0["symbol"] as? String == "BTCUSD" })
            #expect(btc["exchange"] as? String == "CRYPTO")
            #expect(btc["asset_class"] as? String == "crypto")
            #expect(btc["qty"] as? String == "0.05")
            let watchlists = try await client.get("/v2/watchlists").array
            #expect(watchlists.first?["name"] as? String == "Primary Watchlist")
            let equity = try #require(dec(account["equity"]))
            let longValue = try #require(dec(account["long_market_value"]))
            #expect(equity == dec("100000") + longValue)
        }
    }

    @Test("a market buy fills at the ask and moves cash, position and equity consistently")
    func marketOrderFills() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            let ask = try #require(sandbox.market.quote(symbol: "TSLA")?.ask)
            let reply = try await client.post("/v2/orders", #"{"symbol":"TSLA","qty":3,"side":"buy","type":"market","time_in_force":"day"}"#)
            #expect(reply.status == 200)
            let order = reply.object
            #expect(order["status"] as? String == "filled")
            #expect(order["filled_qty"] as? String == "3")
            #expect(dec(order["filled_avg_price"]) == ask)
            #expect(order["qty"] as? String == "3")
            #expect(order["order_type"] as? String == "market")
            #expect(order["asset_class"] as? String == "us_equity")
            #expect(order["position_intent"] as? String == "buy_to_open")

            let account = try await client.get("/v2/account").object
            #expect(dec(account["cash"]) == dec("100000") - 3 * ask)
            let position = try await client.get("/v2/positions/TSLA").object
            #expect(position["qty"] as? String == "3")
            #expect(dec(position["avg_entry_price"]) == ask)
            #expect(dec(position["cost_basis"]) == 3 * ask)
            let current = try #require(dec(position["current_price"]))
            #expect(dec(position["market_value"]) == 3 * current)
            #expect(dec(position["unrealized_pl"]) == 3 * current - 3 * ask)
            let positions = try await client.get("/v2/positions").array
            let longValue = positions.compactMap { dec($0["market_value"]) }.reduce(0, +)
            #expect(dec(account["equity"]) == DecimalText.round(dec(account["cash"])! + longValue, scale: 2))
        }
    }

    @Test("a limit order rests, then fills when the overridden price crosses it")
    func limitOrderRestsAndFills() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            let reply = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":"2","side":"buy","type":"limit","limit_price":"150.00","time_in_force":"gtc","client_order_id":"rest-1"}"#
            )
            #expect(reply.status == 200)
            let id = try #require(reply.object["id"] as? String)
            #expect(reply.object["status"] as? String == "new")
            #expect(reply.object["limit_price"] as? String == "150")
            let before = try await client.get("/v2/account").object
            #expect(dec(before["buying_power"]) == dec("100000") - dec("300"), "the open buy reserves qty × limit")

            try sandbox.market.setPriceOverride(dec("149.50"), for: "AAPL")
            let filled = try await client.get("/v2/orders/\(id)").object
            #expect(filled["status"] as? String == "filled")
            let price = try #require(dec(filled["filled_avg_price"]))
            #expect(price <= dec("150"))
            #expect(price == sandbox.market.quote(symbol: "AAPL")?.ask)
            let after = try await client.get("/v2/account").object
            #expect(dec(after["cash"]) == dec("100000") - 2 * price)
            #expect(try await client.get("/v2/positions/AAPL").object["qty"] as? String == "12")
        }
    }

    @Test("limited depth: fills take what the touch holds; IOC cancels the rest, FOK takes nothing short, sells hold only the rest")
    func partialFills() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            try sandbox.market.setPriceOverride(dec("100"), for: "AAPL")
            let ask = try #require(sandbox.market.quote(symbol: "AAPL")?.ask)
            // IOC: two of five at once, the rest cancelled; what filled stays filled.
            try sandbox.market.setDepth(2, for: "AAPL")
            let ioc = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":"5","side":"buy","type":"limit","limit_price":"110","time_in_force":"ioc"}"#
            ).object
            #expect(ioc["status"] as? String == "canceled", "\(ioc)")
            #expect(ioc["filled_qty"] as? String == "2")
            #expect(dec(ioc["filled_avg_price"]) == ask)
            #expect(ioc["filled_at"] is NSNull)
            #expect(try await client.get("/v2/positions/AAPL").object["qty"] as? String == "12")

            // FOK: three at the touch for five asked: nothing fills, and the touch keeps its three.
            try sandbox.market.setDepth(3, for: "AAPL")
            let fok = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":"5","side":"buy","type":"limit","limit_price":"110","time_in_force":"fok"}"#
            ).object
            #expect(fok["status"] as? String == "canceled", "\(fok)")
            #expect(fok["filled_qty"] as? String == "0")
            #expect(sandbox.market.depth(for: "AAPL") == 3)

            // A sell of ten of the twelve held fills three; the other seven are held for it, so only two may be sold more.
            let sell = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":"10","side":"sell","type":"market","time_in_force":"day"}"#
            ).object
            #expect(sell["status"] as? String == "partially_filled", "\(sell)")
            #expect(sell["filled_qty"] as? String == "3")
            let position = try await client.get("/v2/positions/AAPL").object
            #expect(position["qty"] as? String == "9")
            #expect(position["qty_available"] as? String == "2")
            let tooMuch = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":"3","side":"sell","type":"market","time_in_force":"day"}"#
            )
            #expect(tooMuch.status == 403)

            // No depth at all: the order waits; unlimited again: it fills the rest.
            let id = try #require(sell["id"] as? String)
            #expect(try await client.get("/v2/orders/\(id)").object["filled_qty"] as? String == "3")
            try sandbox.market.setDepth(nil, for: "AAPL")
            let done = try await client.get("/v2/orders/\(id)").object
            #expect(done["status"] as? String == "filled")
            #expect(done["filled_qty"] as? String == "10")
            #expect(try await client.get("/v2/positions/AAPL").object["qty"] as? String == "2")
        }
    }

    @Test("an order saved before partial fills (no filledNotional) reads back with its fill")
    func stateWithoutFilledNotional() throws {
        let market = MarketEngine(clock: ManualClock())
        let instrument = try #require(AlpacaAssets(market: market).resolve("AAPL"))
        var order = AlpacaOrder(
            id: UUID(),
            clientOrderID: "old",
            createdAt: Date(),
            updatedAt: Date(),
            submittedAt: Date(),
            instrument: instrument,
            qty: 2,
            type: .market,
            side: .buy,
            timeInForce: .day,
            status: .filled,
            extendedHours: false
        )
        order.filledQty = 2
        order.filledAvgPrice = dec("101.5")
        let encoder = JSONEncoder()
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(order)) as? [String: Any])
        #expect(object["filledNotional"] == nil, "the state of an older build has no such key")
        let decoder = JSONDecoder()
        decoder.userInfo[.sandboxMarket] = market
        let restored = try decoder.decode(AlpacaOrder.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(restored.filledNotional == nil)
        #expect(restored.filledValue == dec("203"))
        #expect(restored.remainingQty == 0)
    }

    @Test("stop and trailing-stop sells trigger when the price falls")
    func stopsTrigger() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            try sandbox.market.setPriceOverride(dec("200"), for: "AAPL")
            let stop = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":1,"side":"sell","type":"stop","stop_price":180,"time_in_force":"gtc"}"#
            )
            let trailing = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":1,"side":"sell","type":"trailing_stop","trail_percent":"5","time_in_force":"gtc"}"#
            )
            #expect(stop.object["status"] as? String == "new")
            #expect(trailing.object["status"] as? String == "new")
            #expect(dec(trailing.object["hwm"]) != nil)
            try sandbox.market.setPriceOverride(dec("189"), for: "AAPL")
            let afterTrail = try await client.get("/v2/orders?status=all").array
            #expect(afterTrail.first { $0["id"] as? String == trailing.object["id"] as? String }?["status"] as? String == "filled")
            #expect(afterTrail.first { $0["id"] as? String == stop.object["id"] as? String }?["status"] as? String == "new")
            try sandbox.market.setPriceOverride(dec("179"), for: "AAPL")
            #expect(try await client.get("/v2/orders/\(stop.object["id"] as! String)").object["status"] as? String == "filled")
        }
    }

    @Test("orders submitted with fills deferred become filled on the account's next request")
    func deferredFills() async throws {
        try await withAlpaca(configuration: AlpacaSandboxConfiguration(fillsOnSubmission: false)) { client, _, _ async throws in
            let order = try await client.post("/v2/orders", #"{"symbol":"SPY","qty":1,"side":"buy","type":"market","time_in_force":"day"}"#).object
            #expect(order["status"] as? String == "new")
            #expect(order["filled_qty"] as? String == "0")
            #expect(order["filled_avg_price"] is NSNull)
            #expect(try await client.get("/v2/orders/\(order["id"] as! String)").object["status"] as? String == "filled")
        }
    }

    @Test("with regular hours, a weekend order waits for Monday's open; day orders expire at the close")
    func marketHours() async throws {
        let saturday = ManualClock(start: Date(timeIntervalSince1970: 1_736_586_000))  // 2025-01-11 09:00Z
        try await withAlpaca(configuration: AlpacaSandboxConfiguration(marketHours: .regular), clock: saturday) { client, _, clock async throws in
            #expect(try await client.get("/v2/clock").object["is_open"] as? Bool == false)
            let market = try await client.post("/v2/orders", #"{"symbol":"SPY","qty":1,"side":"buy","type":"market","time_in_force":"day"}"#).object
            #expect(market["status"] as? String == "accepted")
            let limit = try await client.post(
                "/v2/orders",
                #"{"symbol":"SPY","qty":1,"side":"buy","type":"limit","limit_price":"1.00","time_in_force":"day"}"#
            ).object
            // The crypto market never closes.
            let btc = try await client.post("/v2/orders", #"{"symbol":"BTC/USD","qty":"0.001","side":"buy","type":"market","time_in_force":"gtc"}"#)
                .object
            #expect(btc["status"] as? String == "filled")

            clock.set(Date(timeIntervalSince1970: 1_736_778_600 + 60))  // Monday 2025-01-13 14:31Z
            #expect(try await client.get("/v2/clock").object["is_open"] as? Bool == true)
            #expect(try await client.get("/v2/orders/\(market["id"] as! String)").object["status"] as? String == "filled")
            #expect(try await client.get("/v2/orders/\(limit["id"] as! String)").object["status"] as? String == "new")
            #expect(limit["expires_at"] as? String == "2025-01-13T21:00:00.000000Z")
            clock.advance(by: 7 * 3600)
            #expect(try await client.get("/v2/orders/\(limit["id"] as! String)").object["status"] as? String == "expired")
        }
    }

    @Test("any reuse of a client_order_id is a 422 40010001, even after the first order closed")
    func duplicateClientOrderID() async throws {
        try await withAlpaca { client, _, _ async throws in
            let body = #"{"symbol":"AAPL","qty":1,"side":"buy","type":"market","time_in_force":"day","client_order_id":"dup-1"}"#
            #expect(try await client.post("/v2/orders", body).status == 200)
            let again = try await client.post("/v2/orders", body)
            #expect(again.status == 422)
            #expect(again.text == #"{"code":40010001,"message":"client_order_id must be unique"}"#)
            let orders = try await client.get("/v2/orders?status=all").array
            #expect(orders.count == 1)
        }
    }

    @Test("replacing makes a new order that replaces the old; the chain is visible by client order id")
    func replaceChain() async throws {
        try await withAlpaca { client, _, _ async throws in
            let first = try await client.post(
                "/v2/orders",
                #"{"symbol":"MSFT","qty":1,"side":"buy","type":"limit","limit_price":100,"time_in_force":"day","client_order_id":"chain-0"}"#
            ).object
            let firstID = try #require(first["id"] as? String)
            let second = try await client.patch("/v2/orders/\(firstID)", #"{"qty":2,"limit_price":101.5,"client_order_id":"chain-1"}"#)
            #expect(second.status == 200)
            let secondID = try #require(second.object["id"] as? String)
            #expect(secondID != firstID)
            #expect(second.object["replaces"] as? String == firstID)
            #expect(second.object["qty"] as? String == "2")
            #expect(second.object["limit_price"] as? String == "101.5")
            #expect(second.object["status"] as? String == "new")
            let third = try await client.patch("/v2/orders/\(secondID)", #"{"time_in_force":"gtc"}"#).object
            let thirdID = try #require(third["id"] as? String)

            let original = try await client.get("/v2/orders:by_client_order_id?client_order_id=chain-0").object
            #expect(original["status"] as? String == "replaced")
            #expect(original["replaced_by"] as? String == secondID)
            #expect(original["replaced_at"] is String)
            let middle = try await client.get("/v2/orders/\(secondID)").object
            #expect(middle["status"] as? String == "replaced")
            #expect(middle["replaced_by"] as? String == thirdID)
            #expect(middle["replaces"] as? String == firstID)
            let open = try await client.get("/v2/orders").array
            #expect(open.map { $0["id"] as? String } == [thirdID])

            let stale = try await client.patch("/v2/orders/\(firstID)", #"{"qty":5}"#)
            #expect(stale.status == 422)
            #expect(stale.text == #"{"code":42210000,"message":"order is already in \"replaced\" state"}"#)
        }
    }

    @Test("cancel: 204 for an open order, 422 for a filled one, 404 for an unknown one; cancel-all is a 207")
    func cancel() async throws {
        try await withAlpaca { client, _, _ async throws in
            let filled = try await client.post("/v2/orders", #"{"symbol":"AAPL","qty":1,"side":"buy","type":"market","time_in_force":"day"}"#).object
            let cancelFilled = try await client.delete("/v2/orders/\(filled["id"] as! String)")
            #expect(cancelFilled.status == 422)
            #expect(cancelFilled.text == #"{"code":42210000,"message":"order is already in \"filled\" state"}"#)

            let open = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":1,"side":"buy","type":"limit","limit_price":"10","time_in_force":"gtc"}"#
            ).object
            let canceled = try await client.delete("/v2/orders/\(open["id"] as! String)")
            #expect(canceled.status == 204)
            #expect(canceled.text.isEmpty)
            let after = try await client.get("/v2/orders/\(open["id"] as! String)").object
            #expect(after["status"] as? String == "canceled")
            #expect(after["canceled_at"] is String)

            let unknown = try await client.delete("/v2/orders/\(UUID().uuidString)")
            #expect(unknown.status == 404)
            #expect(unknown.text == #"{"code":40410000,"message":"order not found"}"#)

            for price in ["11", "12"] {
                _ = try await client.post(
                    "/v2/orders",
                    #"{"symbol":"MSFT","qty":1,"side":"buy","type":"limit","limit_price":"\#(price)","time_in_force":"gtc"}"#
                )
            }
            let all = try await client.delete("/v2/orders")
            #expect(all.status == 207)
            #expect(all.array.count == 2)
            #expect(all.array.allSatisfy { $0["status"] as? Int == 200 && ($0["body"] as? [String: Any])?["status"] as? String == "canceled" })
            #expect(try await client.delete("/v2/orders").array.isEmpty)
        }
    }

    @Test("403s carry Alpaca's extra fields")
    func insufficientFunds() async throws {
        try await withAlpaca { client, _, _ async throws in
            let buy = try await client.post("/v2/orders", #"{"symbol":"SPY","qty":1000,"side":"buy","type":"market","time_in_force":"day"}"#)
            #expect(buy.status == 403)
            #expect(buy.object["code"] as? Int == 40_310_000)
            #expect(buy.object["message"] as? String == "insufficient buying power")
            #expect(buy.object["buying_power"] is String)
            #expect(buy.object["cost_basis"] is String)

            _ = try await client.post(
                "/v2/orders",
                #"{"symbol":"AAPL","qty":4,"side":"sell","type":"limit","limit_price":"900","time_in_force":"gtc"}"#
            )
            let sell = try await client.post("/v2/orders", #"{"symbol":"AAPL","qty":7,"side":"sell","type":"market","time_in_force":"day"}"#)
            #expect(sell.status == 403)
            #expect(
                canonical(sell.text)
                    == canonical(
                        #"{"code":40310000,"message":"insufficient qty available for order (requested: 7, available: 6)","available":"6","existing_qty":"10","held_for_orders":"4","symbol":"AAPL"}"#
                    )
            )
            let positions = try await client.get("/v2/positions/AAPL").object
            #expect(positions["qty_available"] as? String == "6")
        }
    }

    @Test("closing positions: by qty, by percentage, all at once (207), and 404 when there is none")
    func closePositions() async throws {
        try await withAlpaca { client, _, _ async throws in
            let partial = try await client.delete("/v2/positions/AAPL?qty=4")
            #expect(partial.status == 200)
            #expect(partial.object["side"] as? String == "sell")
            #expect(partial.object["qty"] as? String == "4")
            #expect(try await client.get("/v2/positions/AAPL").object["qty"] as? String == "6")
            let half = try await client.delete("/v2/positions/AAPL?percentage=50")
            #expect(half.object["qty"] as? String == "3")
            let btc = try await client.delete("/v2/positions/BTC/USD?percentage=100")
            #expect(btc.object["symbol"] as? String == "BTC/USD")
            #expect(btc.object["time_in_force"] as? String == "gtc")
            let missing = try await client.delete("/v2/positions/TSLA")
            #expect(missing.status == 404)
            #expect(missing.text == #"{"code":40410000,"message":"position not found: TSLA"}"#)
            let getMissing = try await client.get("/v2/positions/BTCUSD")
            #expect(getMissing.text == #"{"code":40410000,"message":"position does not exist"}"#)
            let both = try await client.delete("/v2/positions/AAPL?qty=1&percentage=1")
            #expect(both.status == 422)

            let all = try await client.delete("/v2/positions?cancel_orders=True")
            #expect(all.status == 207)
            #expect(Set(all.array.compactMap { $0["symbol"] as? String }) == ["AAPL", "MSFT"])
            #expect(all.array.allSatisfy { $0["status"] as? Int == 200 })
            #expect(try await client.get("/v2/positions").array.isEmpty)
            let account = try await client.get("/v2/account").object
            #expect(account["long_market_value"] as? String == "0")
            #expect(account["equity"] as? String == account["cash"] as? String)
        }
    }

    @Test("listing orders honours status, limit, direction, side, symbols, after and until")
    func listOrders() async throws {
        try await withAlpaca { client, _, clock async throws in
            var ids: [String] = []
            for (symbol, side) in [("AAPL", "buy"), ("MSFT", "buy"), ("AAPL", "sell"), ("BTC/USD", "buy")] {
                let tif = symbol.contains("/") ? "gtc" : "day"
                let body = #"{"symbol":"\#(symbol)","qty":"0.01","side":"\#(side)","type":"market","time_in_force":"\#(tif)"}"#
                let reply = try await client.post("/v2/orders", body)
                #expect(reply.status == 200, "\(reply.text)")
                ids.append(reply.object["id"] as? String ?? "")
                clock.advance(by: 10)
            }
            let closed = try await client.get("/v2/orders?status=closed").array.map { $0["id"] as? String }
            #expect(closed == ids.reversed())
            #expect(try await client.get("/v2/orders?status=closed&direction=asc&limit=2").array.map { $0["id"] as? String } == Array(ids.prefix(2)))
            #expect(try await client.get("/v2/orders?status=all&side=sell").array.map { $0["id"] as? String } == [ids[2]])
            #expect(try await client.get("/v2/orders?status=all&symbols=AAPL,BTCUSD").array.count == 3)
            let after = Timestamp.format(ManualClock.defaultStart.addingTimeInterval(5))
            let until = Timestamp.format(ManualClock.defaultStart.addingTimeInterval(25))
            #expect(
                try await client.get("/v2/orders?status=all&after=\(after)&until=\(until)").array.map { $0["id"] as? String } == [ids[2], ids[1]]
            )
            #expect(try await client.get("/v2/orders").array.isEmpty, "the default lists open orders")
            for bad in ["status=pending", "limit=0", "limit=501", "direction=up", "after=yesterday", "nested=maybe", "side=short"] {
                let reply = try await client.get("/v2/orders?\(bad)")
                #expect(reply.status == 422, "\(bad)")
                #expect(reply.object["code"] as? Int == 40_010_001, "\(bad)")
            }
        }
    }

    @Test("decimals are accepted as strings or numbers, fractional and notional orders work")
    func decimalInput() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            let fractional = try await client.post("/v2/orders", #"{"symbol":"NVDA","qty":0.5,"side":"buy","type":"market","time_in_force":"day"}"#)
            #expect(fractional.object["filled_qty"] as? String == "0.5")
            let tiny = try await client.post("/v2/orders", #"{"symbol":"ETH/USD","qty":1e-03,"side":"buy","type":"market","time_in_force":"gtc"}"#)
            #expect(tiny.object["qty"] as? String == "0.001")
            let notional = try await client.post(
                "/v2/orders",
                #"{"symbol":"AMZN","notional":"500","side":"buy","type":"market","time_in_force":"day"}"#
            )
            #expect(notional.status == 200)
            #expect(notional.object["qty"] is NSNull)
            #expect(notional.object["notional"] as? String == "500")
            let filled = try #require(dec(notional.object["filled_qty"]))
            let ask = try #require(sandbox.market.quote(symbol: "AMZN")?.ask)
            #expect(filled * ask <= 500 && filled * ask > dec("499.99"))
        }
    }

    @Test(
        "invalid orders get Alpaca's 422 bodies",
        arguments: [
            (#"{"qty":1,"side":"buy","type":"market","time_in_force":"day"}"#, 40_010_001, "symbol is required"),
            (#"{"symbol":"NOPE","qty":1,"side":"buy","type":"market","time_in_force":"day"}"#, 42_210_000, "asset \"NOPE\" not found"),
            (#"{"symbol":"AAPL","qty":1,"side":"short","type":"market","time_in_force":"day"}"#, 40_010_001, "invalid side"),
            (#"{"symbol":"AAPL","qty":1,"side":"buy","type":"iceberg","time_in_force":"day"}"#, 40_010_001, "invalid order type"),
            (#"{"symbol":"AAPL","qty":1,"side":"buy","type":"market","time_in_force":"week"}"#, 40_010_001, "invalid time_in_force"),
            (#"{"symbol":"AAPL","qty":1,"side":"buy","type":"market"}"#, 40_010_001, "time_in_force is required"),
            (#"{"symbol":"AAPL","side":"buy","type":"market","time_in_force":"day"}"#, 40_010_001, "qty or notional is required"),
            (
                #"{"symbol":"AAPL","qty":1,"notional":"500","side":"buy","type":"market","time_in_force":"day"}"#, 40_010_001,
                "only one of qty or notional is allowed"
            ),
            (
                #"{"symbol":"AAPL","notional":"500","side":"buy","type":"limit","limit_price":"100","time_in_force":"day"}"#, 40_010_001,
                "notional orders must be market orders"
            ),
            (
                #"{"symbol":"AAPL","notional":"500","side":"buy","type":"market","time_in_force":"gtc"}"#, 42_210_000,
                "fractional orders must be DAY orders"
            ),
            (
                #"{"symbol":"AAPL","notional":"500.0000000001","side":"buy","type":"market","time_in_force":"day"}"#, 40_010_001,
                "notional must have at most 9 decimal places"
            ),
            (#"{"symbol":"AAPL","qty":0,"side":"buy","type":"market","time_in_force":"day"}"#, 40_010_001, "qty must be > 0"),
            (#"{"symbol":"AAPL","qty":"-2","side":"buy","type":"market","time_in_force":"day"}"#, 40_010_001, "qty must be > 0"),
            (#"{"symbol":"AAPL","qty":"1.5abc","side":"buy","type":"market","time_in_force":"day"}"#, 40_010_001, "invalid qty"),
            (#"{"symbol":"AAPL","qty":1,"side":"buy","type":"limit","time_in_force":"day"}"#, 40_010_001, "limit_price is required for limit orders"),
            (#"{"symbol":"AAPL","qty":1,"side":"buy","type":"limit","limit_price":0,"time_in_force":"day"}"#, 40_010_001, "limit price must be > 0"),
            (
                #"{"symbol":"AAPL","qty":1,"side":"buy","type":"market","limit_price":10,"time_in_force":"day"}"#, 40_010_001,
                "market orders require no stop or limit price"
            ),
            (
                #"{"symbol":"AAPL","qty":1,"side":"buy","type":"market","time_in_force":"day","extended_hours":true}"#, 40_010_001,
                "only type=\"limit\" is allowed for extended hours orders"
            ),
            (#"{"symbol":"BTC/USD","qty":1,"side":"buy","type":"market","time_in_force":"day"}"#, 42_210_000, "invalid crypto time_in_force"),
            (
                #"{"symbol":"BTC/USD","qty":1,"side":"buy","type":"stop","stop_price":1,"time_in_force":"gtc"}"#, 40_010_001,
                "invalid order type for crypto order"
            ),
            (#"{"symbol":"AAPL","qty":1.5,"side":"buy","type":"market","time_in_force":"gtc"}"#, 42_210_000, "fractional orders must be DAY orders"),
            (
                #"{"symbol":"AAPL","qty":1,"side":"buy","type":"limit","limit_price":"190.001","time_in_force":"day"}"#, 42_210_000,
                "invalid limit_price 190.001. sub-penny increment does not fulfill minimum pricing criteria"
            ),
            (
                #"{"symbol":"AAPL","qty":1,"side":"buy","type":"market","time_in_force":"day","order_class":"bracket"}"#, 42_210_000,
                "order_class \"bracket\" is not supported by the sandbox"
            ),
        ]
    )
    func invalidOrders(_ body: String, _ code: Int, _ message: String) async throws {
        try await withAlpaca { client, _, _ async throws in
            let reply = try await client.post("/v2/orders", body)
            #expect(reply.status == 422)
            #expect(reply.object["code"] as? Int == code)
            #expect(reply.object["message"] as? String == message)
        }
    }

    @Test(
        "malformed bodies get 400 40010000, never a bare 500",
        arguments: [
            "{", "", "[]", "null", #"{"symbol":"AAPL","qty":true}"#, #"{"symbol":["AAPL"]}"#, "not json at all", #"{"a":"\u0000"}"# + "}",
        ]
    )
    func malformedBodies(_ body: String) async throws {
        try await withAlpaca { client, _, _ async throws in
            let reply = try await client.post("/v2/orders", body)
            #expect(reply.status == 400)
            #expect(reply.text == #"{"code":40010000,"message":"request body format is invalid"}"#)
        }
    }

    @Test("hostile input never crashes the simulator or produces a bare 500")
    func hostileInput() async throws {
        try await withAlpaca { client, _, _ async throws in
            let bodies = [
                #"{"symbol":"AAPL","qty":"1e40","side":"buy","type":"market","time_in_force":"day"}"#,
                #"{"symbol":"AAPL","qty":"1e-60","side":"buy","type":"market","time_in_force":"day"}"#,
                #"{"symbol":"AAPL","qty":1,"side":"sell","type":"limit","limit_price":"1e40","time_in_force":"gtc"}"#,
                #"{"symbol":"AAPL","qty":123456789012345678901234567890123456789012345678901234567890,"side":"buy","type":"market","time_in_force":"day"}"#,
                #"{"symbol":"\#0","qty":1,"side":"buy","type":"market","time_in_force":"day"}"#,
                #"{"symbol":"AAPL","notional":"0.001","side":"buy","type":"market","time_in_force":"day"}"#,
                #"{"symbol":"BTC/USD","qty":"0.00001","side":"buy","type":"market","time_in_force":"gtc"}"#,
                #"{"symbol":"AAPL","qty":1,"side":"buy","type":"trailing_stop","trail_percent":"150","time_in_force":"gtc"}"#,
                #"{"symbol":"AAPL","qty":1,"side":"buy","type":"market","time_in_force":"day","client_order_id":""#
                    + String(repeating: "x", count: 200) + #""}"#,
                String(repeating: "[", count: 10_000),
                #"{"a":"# + String(repeating: "1", count: 100_000) + "}",
            ]
            for body in bodies {
                let reply = try await client.post("/v2/orders", body)
                #expect(reply.status != 500, "\(body.prefix(80)): \(reply.text)")
                #expect(reply.json != nil, "\(body.prefix(80)): \(reply.text)")
            }
            for path in [
                "/v2/orders?limit=99999999999999999999", "/v2/orders?after=9999-99-99", "/v2/orders/%zz", "/v2/positions/%00",
                "/v2/orders?symbols=" + String(repeating: ",", count: 1000), "/v2/assets/..%2F..%2Fetc", "/v2/watchlists:by_name?name=",
                "/v2/stocks/%FF/quotes/latest", "/v1beta3/crypto/eu/latest/quotes?symbols=BTC/USD",
            ] {
                let reply = try await client.get(path)
                #expect(reply.status != 500 && reply.status < 600, "\(path): \(reply.text)")
            }
            for body in ["", "{}", #"{"qty":0}"#, #"{"qty":1e40}"#, #"{"time_in_force":"gtc","qty":"x"}"#] {
                let reply = try await client.patch("/v2/orders/\(UUID())", body)
                #expect(reply.status != 500, "\(body): \(reply.text)")
            }
            #expect(try await client.post("/_sandbox/clock/advance", #"{"seconds":1e308}"#).status == 400)
            #expect(try await client.get("/v2/account").status == 200, "still serving")
        }
    }

    @Test("unknown endpoints and methods answer in Alpaca's JSON, with the status")
    func unknownEndpoints() async throws {
        try await withAlpaca { client, _, _ async throws in
            let missing = try await client.get("/v2/nothing-here")
            #expect(missing.status == 404)
            #expect(missing.object["code"] as? Int == 40_410_000)
            let oversized = try await client.post("/v2/orders", "{\"pad\":\"" + String(repeating: "x", count: 1_100_000) + "\"}")
            #expect(oversized.status == 413)
            #expect(oversized.object["code"] as? Int == 41_310_000)
        }
    }
}

@Suite("Alpaca sandbox: watchlists, assets, clock and market data")
struct AlpacaCatalogueTests {
    @Test("watchlist CRUD by id and by name")
    func watchlists() async throws {
        try await withAlpaca { client, _, _ async throws in
            let created = try await client.post("/v2/watchlists", #"{"name":"Tech","symbols":["AAPL","msft"]}"#)
            #expect(created.status == 200)
            let id = try #require(created.object["id"] as? String)
            #expect((created.object["assets"] as? [[String: Any]])?.map { $0["symbol"] as? String } == ["AAPL", "MSFT"])
            #expect(created.object["account_id"] as? String == AlpacaSandboxAccount.demoAccountID.uuidString.lowercased())

            let duplicate = try await client.post("/v2/watchlists", #"{"name":"Tech"}"#)
            #expect(duplicate.status == 422)
            #expect(duplicate.text == #"{"code":40010001,"message":"watchlist name must be unique"}"#)
            let unknown = try await client.post("/v2/watchlists", #"{"name":"X","symbols":["ZZZZ"]}"#)
            #expect(unknown.text == #"{"code":40010001,"message":"asset not found: ZZZZ"}"#)

            let added = try await client.post("/v2/watchlists/\(id)", #"{"symbol":"BTC/USD"}"#).object
            #expect((added["assets"] as? [[String: Any]])?.last?["symbol"] as? String == "BTC/USD")
            let removed = try await client.delete("/v2/watchlists/\(id)/BTC/USD")
            #expect(removed.status == 200)
            #expect((removed.object["assets"] as? [[String: Any]])?.count == 2)
            let removedAgain = try await client.delete("/v2/watchlists/\(id)/BTCUSD")
            #expect(removedAgain.status == 404)

            let renamed = try await client.put("/v2/watchlists/\(id)", #"{"name":"Big Tech","symbols":["NVDA"]}"#).object
            #expect(renamed["name"] as? String == "Big Tech")
            let byName = try await client.get("/v2/watchlists:by_name?name=Big+Tech")
            #expect(byName.object["id"] as? String == id)
            let list = try await client.get("/v2/watchlists").array
            #expect(list.count == 2)
            #expect(list.allSatisfy { $0["assets"] == nil }, "the list omits assets")
            #expect(try await client.delete("/v2/watchlists:by_name?name=Big%20Tech").status == 204)
            let gone = try await client.get("/v2/watchlists/\(id)")
            #expect(gone.status == 404)
            #expect(gone.text == #"{"code":40410000,"message":"watchlist not found"}"#)
        }
    }

    @Test("assets filter by class and resolve by symbol, id and crypto spellings")
    func assets() async throws {
        try await withAlpaca { client, _, _ async throws in
            let crypto = try await client.get("/v2/assets?asset_class=crypto&status=active").array
            #expect(crypto.map { $0["symbol"] as? String } == ["BTC/USD", "ETH/USD"])
            #expect(crypto.first?["price_increment"] as? String == "1")
            #expect(crypto.first?["maintenance_margin_requirement"] as? Int == 100)
            let equities = try await client.get("/v2/assets?asset_class=us_equity").array
            #expect(Set(equities.compactMap { $0["symbol"] as? String }) == ["AAPL", "MSFT", "TSLA", "NVDA", "AMZN", "SPY"])
            #expect(try await client.get("/v2/assets?status=inactive").array.isEmpty)
            let aapl = try await client.get("/v2/assets/AAPL").object
            let id = try #require(aapl["id"] as? String)
            #expect(try await client.get("/v2/assets/\(id)").object["symbol"] as? String == "AAPL")
            #expect(try await client.get("/v2/assets/BTC/USD").object["symbol"] as? String == "BTC/USD")
            #expect(try await client.get("/v2/assets/BTCUSD").object["symbol"] as? String == "BTC/USD")
            #expect(try await client.get("/v2/assets/BTC%2FUSD").object["symbol"] as? String == "BTC/USD")
            #expect(try await client.get("/v2/assets/XMR/BTC").status == 404, "BTC-quoted pairs are not Alpaca assets")
        }
    }

    @Test("the clock speaks New York time")
    func clock() async throws {
        try await withAlpaca { client, _, _ async throws in
            let clock = try await client.get("/v2/clock").object
            #expect(clock["timestamp"] as? String == "2025-01-06T10:00:00.000000000-05:00")
            #expect(clock["is_open"] as? Bool == true)
            #expect(clock["next_close"] as? String == "2025-01-06T16:00:00-05:00")
            #expect(clock["next_open"] as? String == "2025-01-07T09:30:00-05:00")
        }
    }

    @Test("latest quotes and trades, single and multi, stock and crypto; numbers not strings")
    func marketData() async throws {
        try await withAlpaca { client, sandbox, _ async throws in
            let quote = try #require(sandbox.market.quote(symbol: "AAPL"))
            let single = try await client.get("/v2/stocks/AAPL/quotes/latest").object
            #expect(single["symbol"] as? String == "AAPL")
            let q = try #require(single["quote"] as? [String: Any])
            #expect(dec(q["ap"]) == quote.ask)
            #expect(q["ap"] is NSNumber)
            #expect(q["t"] as? String == "2025-01-06T15:00:00.000000000Z")

            let multi = try await client.get("/v2/stocks/quotes/latest?symbols=AAPL,MSFT,NOPE&feed=iex").object
            #expect(Set((multi["quotes"] as? [String: Any] ?? [:]).keys) == ["AAPL", "MSFT"])
            let trades = try await client.get("/v2/stocks/trades/latest?symbols=SPY").object
            #expect(dec(((trades["trades"] as? [String: Any])?["SPY"] as? [String: Any])?["p"]) == sandbox.market.quote(symbol: "SPY")?.last)
            #expect(try await client.get("/v2/stocks/SPY/trades/latest").object["trade"] != nil)
            #expect(try await client.get("/v2/stocks/NOPE/quotes/latest").status == 404)
            #expect(try await client.get("/v2/stocks/quotes/latest").status == 400)
            #expect(try await client.get("/v2/stocks/quotes/latest?symbols=AAPL&feed=bogus").status == 400)

            let crypto = try await client.get("/v1beta3/crypto/us/latest/quotes?symbols=BTC/USD,ETH%2FUSD").object
            #expect(Set((crypto["quotes"] as? [String: Any] ?? [:]).keys) == ["BTC/USD", "ETH/USD"])
            let malformed = try await client.get("/v1beta3/crypto/us/latest/quotes?symbols=BTC/USD,btcusd")
            #expect(malformed.status == 400)
            #expect(malformed.text == #"{"message":"Invalid symbol(s): btcusd does not match ^[A-Z]+/[A-Z]+$"}"#)
            let book = try await client.get("/v1beta3/crypto/us/latest/orderbooks?symbols=BTC/USD").object
            let levels = try #require(((book["orderbooks"] as? [String: Any])?["BTC/USD"] as? [String: Any])?["b"] as? [[String: Any]])
            #expect(levels.count == 5)
        }
    }
}
