import AsyncHTTPClient
import Crypto
import Foundation
import GatewayCore
import GatewayModel
import KrakenAdapter
import KrakenSandbox
import NIOCore
import NIOHTTP1
import SandboxKit
import Testing

@Suite("Kraken adapter against the running Kraken sandbox")
struct SandboxAdapterTests {
    @Test("link and read: accounts, balances, holdings as positions, quotes, search, order book")
    func reads() async throws {
        try await withAdapter { adapter, sandbox, _ in
            try await adapter.validateCredentials()
            #expect(try await adapter.accounts().map(\.id) == ["spot"])
            #expect(try await adapter.clients().first?.defaultCurrency == "USD")

            let balances = try await adapter.balances(accountId: nil)
            #expect(balances.map(\.currency) == ["BTC", "ETH", "LTC", "USD", "USDT"])
            #expect(balances.first { $0.currency == "USD" }?.total == 100_000)
            #expect(balances.first { $0.currency == "BTC" }?.available == 1)

            let btc = try #require(sandbox.market.quote(symbol: "BTC/USD"))
            let positions = try await adapter.positions(accountId: "spot")
            #expect(positions.map(\.instrument.symbol) == ["BTC/USD", "ETH/USD", "LTC/USD", "USDT/USD"])
            let bitcoin = try #require(positions.first)
            #expect(bitcoin.quantity == 1)
            #expect(bitcoin.lastPrice == btc.last)
            #expect(bitcoin.instrument.brokerKey?["pair"] == "XXBTZUSD")
            // LTC and USDT have no pair against USD here: held, without a price.
            #expect(positions.suffix(2).allSatisfy { $0.lastPrice == nil })

            let quotes = try await adapter.quotes([
                InstrumentReference(symbol: "BTC/USD"), InstrumentReference(symbol: "LTC/USDT"), InstrumentReference(symbol: "DOGE/USD"),
            ])
            #expect(quotes.map(\.instrument.symbol) == ["BTC/USD", "LTC/USDT"])
            #expect(quotes.first?.bid == btc.bid)
            #expect(quotes.first?.ask == btc.ask)

            let found = try await adapter.searchInstruments("btc", assetClass: nil)
            #expect(found.map(\.symbol) == ["BTC/USD", "BTC/USDT"])

            let book = try await adapter.orderBook(InstrumentReference(symbol: "ETH/USD"), depth: 5)
            #expect(book.bids.count == 5 && book.asks.count == 5)
            #expect(book.asks.first?.price == sandbox.market.quote(symbol: "ETH/USD")?.ask)

            await #expect(throws: GatewayError.self) { try await adapter.balances(accountId: "margin") }
        }
    }

    @Test("place, list, find by client order id, cancel; a market order fills at the touch")
    func orders() async throws {
        try await withAdapter { adapter, sandbox, _ in
            let ask = try #require(sandbox.market.quote(symbol: "BTC/USD")?.ask)
            let resting = orderRequest("BTC/USD", .buy, .limit, quantity: Decimal(string: "0.01")!, limit: ask - 1000)
            let placed = try await adapter.placeOrder(resting)
            #expect(placed.status == .open)
            #expect(placed.clientOrderId == resting.clientOrderId)
            #expect(placed.limitPrice == ask - 1000)
            let txid = try #require(placed.brokerOrderId)

            // The resting order holds its cost in USD.
            let usd = try #require(try await adapter.balances(accountId: nil).first { $0.currency == "USD" })
            #expect(usd.held == (ask - 1000) * Decimal(string: "0.01")!)
            #expect(usd.available == 100_000 - usd.held)

            let open = try await adapter.orders(OrderQuery(state: .open))
            #expect(open.map(\.brokerOrderId) == [txid])
            #expect(try await adapter.order(brokerOrderId: txid).status == .open)
            let byClient = try await adapter.order(clientOrderId: try #require(resting.clientOrderId), accountId: "spot")
            #expect(byClient?.brokerOrderId == txid)
            #expect(try await adapter.order(clientOrderId: "gw-" + String(repeating: "a", count: 32), accountId: "spot") == nil)

            // Amended in place: the same txid and client order id, the new total and limit, the new hold.
            let amended = try await adapter.modifyOrder(placed, OrderModification(quantity: Decimal(string: "0.02")!, limitPrice: ask - 2000))
            #expect(amended.brokerOrderId == txid)
            #expect(amended.clientOrderId == resting.clientOrderId)
            #expect(amended.quantity == Decimal(string: "0.02")!)
            #expect(amended.limitPrice == ask - 2000)
            let usdAfter = try #require(try await adapter.balances(accountId: nil).first { $0.currency == "USD" })
            #expect(usdAfter.held == (ask - 2000) * Decimal(string: "0.02")!)
            let tooMuch = await #expect(throws: GatewayError.self) {
                try await adapter.modifyOrder(amended, OrderModification(quantity: 100))
            }
            #expect(tooMuch?.code == .insufficientFunds)
            let retyped = await #expect(throws: GatewayError.self) {
                try await adapter.modifyOrder(amended, OrderModification(type: .market))
            }
            #expect(retyped?.code == .unprocessable)

            let canceled = try await adapter.cancelOrder(amended)
            #expect(canceled.status == .canceled)
            // Cancelling again is harmless: the order is reported as it is.
            #expect(try await adapter.cancelOrder(placed).status == .canceled)
            let gone = await #expect(throws: GatewayError.self) {
                try await adapter.modifyOrder(amended, OrderModification(limitPrice: ask - 3000))
            }
            #expect(gone?.code == .notFound)

            let market = try await adapter.placeOrder(orderRequest("ETH/USD", .sell, .market, quantity: 2))
            #expect(market.status == .filled)
            #expect(market.filledQuantity == 2)
            #expect(market.averageFillPrice == sandbox.market.quote(symbol: "ETH/USD")?.bid)

            let closed = try await adapter.orders(OrderQuery(state: .closed))
            #expect(Set(closed.compactMap(\.brokerOrderId)) == [txid, try #require(market.brokerOrderId)])
            #expect(try await adapter.orders(OrderQuery(state: .all, symbols: ["ETH/USD"])).map(\.brokerOrderId) == [market.brokerOrderId])
            let eth = try #require(try await adapter.balances(accountId: nil).first { $0.currency == "ETH" })
            #expect(eth.total == 8)
        }
    }

    @Test("a resting limit order fills once the market reaches it")
    func restingFill() async throws {
        try await withAdapter { adapter, sandbox, _ in
            let bid = try #require(sandbox.market.quote(symbol: "BTC/USD")?.bid)
            let placed = try await adapter.placeOrder(orderRequest("BTC/USD", .sell, .limit, quantity: Decimal(string: "0.5")!, limit: bid + 500))
            #expect(placed.status == .open)
            try sandbox.market.setPriceOverride(bid + 2000, for: "BTC/USD")
            let filled = try await adapter.order(brokerOrderId: try #require(placed.brokerOrderId))
            #expect(filled.status == .filled)
            #expect(filled.filledQuantity == Decimal(string: "0.5")!)
            #expect((filled.averageFillPrice ?? 0) >= bid + 500)
        }
    }

    @Test("errors map to the canonical codes")
    func errors() async throws {
        try await withAdapter { adapter, _, _ in
            let tooMuch = await #expect(throws: GatewayError.self) {
                try await adapter.placeOrder(orderRequest("BTC/USD", .buy, .market, quantity: 100))
            }
            #expect(tooMuch?.code == .insufficientFunds)
            #expect(tooMuch?.brokerCode == "EOrder:Insufficient funds")

            let unknownPair = await #expect(throws: GatewayError.self) {
                try await adapter.placeOrder(orderRequest("DOGE/USD", .buy, .market, quantity: 1))
            }
            #expect(unknownPair?.code == .unprocessable)
            #expect(unknownPair?.details.first?.field == "symbol")

            let tooSmall = await #expect(throws: GatewayError.self) {
                try await adapter.placeOrder(orderRequest("BTC/USD", .buy, .market, quantity: Decimal(string: "0.00001")!))
            }
            #expect(tooSmall?.code == .unprocessable)
            #expect(tooSmall?.brokerCode == "EOrder:Order minimum not met")

            let stop = await #expect(throws: GatewayError.self) {
                try await adapter.placeOrder(orderRequest("BTC/USD", .buy, .stop, quantity: 1))
            }
            #expect(stop?.code == .unprocessable)

            let missing = await #expect(throws: GatewayError.self) { try await adapter.order(brokerOrderId: "OAAAAA-BBBBB-CCCCCC") }
            #expect(missing?.code == .notFound)

            await #expect(throws: GatewayError.self) {
                try await adapter.candles(InstrumentReference(symbol: "BTC/USD"), interval: .oneDay, count: 5)
            }
        }
        // A key the sandbox does not know, and the demo key with another secret.
        try await withAdapter(apiKey: "NOT-A-KEY") { adapter, _, _ in
            let refused = await #expect(throws: GatewayError.self) { try await adapter.validateCredentials() }
            #expect(refused?.code == .unauthorized)
            #expect(refused?.brokerCode == "EAPI:Invalid key")
        }
        try await withAdapter(apiSecret: Data(repeating: 7, count: 64).base64EncodedString()) { adapter, _, _ in
            let refused = await #expect(throws: GatewayError.self) { try await adapter.balances(accountId: nil) }
            #expect(refused?.code == .unauthorized)
            #expect(refused?.brokerCode == "EAPI:Invalid signature")
        }
    }

    @Test("an injected 503 and a 429 come back as upstream_unavailable and rate_limited")
    func faults() async throws {
        try await withAdapter { adapter, _, url in
            var request = HTTPClientRequest(url: url.absoluteString + "/_sandbox/faults")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(Data(#"{"kind": "error", "pathPrefix": "/0/private/BalanceEx", "status": 503, "count": 1}"#.utf8))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let answer = String(buffer: try await response.body.collect(upTo: 1 << 16))
            #expect(response.status.code < 300, "\(answer)")
            let unavailable = await #expect(throws: GatewayError.self) { try await adapter.validateCredentials() }
            #expect(unavailable?.code == .upstreamUnavailable)
            try await adapter.validateCredentials()

            request.body = .bytes(
                Data(#"{"kind": "tooManyRequests", "pathPrefix": "/0/private/BalanceEx", "retryAfterSeconds": 2, "count": 1}"#.utf8)
            )
            _ = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let limited = await #expect(throws: GatewayError.self) { try await adapter.validateCredentials() }
            #expect(limited?.code == .rateLimited)
            #expect(limited?.retryAfter == 2)
        }
    }

    @Test("the sandbox checks the signature over the exact body, and refuses a nonce it has seen")
    func nonceAndSignature() async throws {
        try await withSandbox(makeSandbox()) { url in
            let secret = try #require(KrakenSigner.key(secret: KrakenSandboxAccount.demoAPISecret))
            func post(_ body: String, nonce: String, sign: String? = nil, json: Bool = false) async throws -> String {
                var request = HTTPClientRequest(url: url.absoluteString + "/0/private/Balance")
                request.method = .POST
                request.headers.add(name: "API-Key", value: KrakenSandboxAccount.demoAPIKey)
                request.headers.add(
                    name: "API-Sign",
                    value: sign ?? KrakenSigner.signature(path: "/0/private/Balance", nonce: nonce, body: Data(body.utf8), key: secret)
                )
                request.headers.add(name: "Content-Type", value: json ? "application/json" : "application/x-www-form-urlencoded")
                request.body = .bytes(Data(body.utf8))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                #expect(response.status.code == 200)
                return String(buffer: try await response.body.collect(upTo: 1 << 20))
            }
            #expect(try await post("nonce=100", nonce: "100").contains(#""ZUSD":"100000.0000""#))
            #expect(try await post("nonce=100", nonce: "100") == #"{"error":["EAPI:Invalid nonce"]}"#)
            #expect(try await post("nonce=99", nonce: "99") == #"{"error":["EAPI:Invalid nonce"]}"#)
            // JSON bodies are signed as sent, too.
            #expect(try await post(#"{"nonce": "101"}"#, nonce: "101", json: true).contains(#""error":[]"#))
            #expect(try await post("nonce=102", nonce: "102", sign: "AAAA") == #"{"error":["EAPI:Invalid signature"]}"#)
            // A rejected signature does not use up the nonce.
            #expect(try await post("nonce=102", nonce: "102").contains(#""error":[]"#))
        }
    }
}
