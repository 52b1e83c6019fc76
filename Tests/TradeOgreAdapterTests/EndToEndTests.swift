import AsyncHTTPClient
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Logging
import Sandbox
import Testing
import TradeOgreAdapter

/// The adapter over HTTP against a running TradeOgre sandbox (manual clock, demo account).
func withAdapter(
    credentials: BrokerCredentials = BrokerCredentials([
        "apiKey": TradeOgreSandboxAccount.demoAPIKey, "apiSecret": TradeOgreSandboxAccount.demoAPISecret,
    ]),
    settings: [String: String] = [:],
    sandbox: TradeOgreSandbox = makeSandbox(),
    _ body: (TradeOgreAdapter, TradeOgreSandbox) async throws -> Void
) async throws {
    try await withSandbox(sandbox) { url in
        let base = url.absoluteString + "/api/v1"
        let connection = ConnectionDescriptor(
            id: "conn-e2e",
            tenantId: "t",
            broker: .tradeogre,
            displayName: "sandbox",
            baseURL: base,
            settings: settings,
            createdAt: Date(),
            updatedAt: Date()
        )
        let context = AdapterContext(
            connection: connection,
            baseURL: base,
            credentials: credentials,
            transport: HTTPClientTransport.loopbackForTests,
            logger: Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        // The adapter's clock is the sandbox's (a manual one), so placement times and order dates agree.
        var configuration = try TradeOgreConfiguration(baseURL: base, settings: settings, credentials: credentials)
        let market = sandbox.market
        configuration.now = { market.now }
        try await body(TradeOgreAdapter(context: context, configuration: configuration), sandbox)
    }
}

func request(
    _ symbol: String,
    _ side: OrderSide,
    quantity: Decimal,
    limit: Decimal,
    clientOrderId: String = "gw-\(UUID().uuidString.prefix(8))"
) -> OrderRequest {
    OrderRequest(
        connectionId: "conn-e2e",
        accountId: "spot",
        instrument: InstrumentReference(symbol: symbol),
        side: side,
        type: .limit,
        timeInForce: .gtc,
        quantity: quantity,
        limitPrice: limit,
        clientOrderId: clientOrderId
    )
}

func round8(_ value: Decimal) -> Decimal {
    var input = value
    var result = Decimal()
    NSDecimalRound(&result, &input, 8, .plain)
    return result
}

@Suite("TradeOgre adapter against the running sandbox")
struct SandboxEndToEndTests {
    @Test("reads: account, balances, holdings as positions, quotes, search, candles")
    func reads() async throws {
        try await withAdapter { adapter, _ in
            try await adapter.validateCredentials()
            #expect(try await adapter.accounts().map(\.id) == ["spot"])
            let balances = try await adapter.balances(accountId: nil)
            #expect(balances.map(\.currency) == ["BTC", "LTC", "USDT", "XMR"])
            for balance in balances { #expect(balance.available + balance.held == balance.total) }

            let positions = try await adapter.positions(accountId: nil)
            #expect(positions.map(\.instrument.symbol) == ["LTC/BTC", "USDT/BTC", "XMR/BTC"])
            #expect(positions.allSatisfy { $0.marketValue != nil && $0.currency == "BTC" })
            let usdt = try #require(positions.first { $0.instrument.symbol == "USDT/BTC" })
            #expect(usdt.instrument.brokerKey == nil)  // valued through BTC-USDT, inverted

            let quotes = try await adapter.quotes([
                InstrumentReference(symbol: "XMR/BTC"), InstrumentReference(symbol: "BTC/USDT"), InstrumentReference(symbol: "DOGE/BTC"),
            ])
            #expect(quotes.map(\.instrument.symbol) == ["XMR/BTC", "BTC/USDT"])
            for quote in quotes {
                let bid = try #require(quote.bid)
                let ask = try #require(quote.ask)
                #expect(bid < ask && quote.last != nil && quote.open != nil && quote.percentChange != nil)
            }
            #expect(try await adapter.searchInstruments("monero", assetClass: .crypto).map(\.symbol) == ["XMR/BTC", "XMR/USDT"])
            #expect(try await adapter.searchInstruments("xmr", assetClass: .equity).isEmpty)
            let candles = try await adapter.candles(InstrumentReference(symbol: "XMR/BTC"), interval: .fifteenMinutes, count: 20)
            #expect(candles.candles.count == 20)
            #expect(candles.candles.map(\.time) == candles.candles.map(\.time).sorted())
            let unsupported = await #expect(throws: GatewayError.self) {
                try await adapter.candles(InstrumentReference(symbol: "XMR/BTC"), interval: .fiveMinutes, count: 5)
            }
            #expect(unsupported?.code == .unprocessable)
        }
    }

    @Test("public mode: quotes without keys, account reads unauthorized; wrong keys are refused at validation")
    func publicMode() async throws {
        try await withAdapter(credentials: BrokerCredentials()) { adapter, _ in
            try await adapter.validateCredentials()
            #expect(try await adapter.quotes([InstrumentReference(symbol: "XMR/BTC")]).count == 1)
            let error = await #expect(throws: GatewayError.self) { try await adapter.balances(accountId: nil) }
            #expect(error?.code == .unauthorized)
            #expect(error?.message.hasPrefix("this connection has no API keys") == true)
        }
        try await withAdapter(credentials: BrokerCredentials(["apiKey": TradeOgreSandboxAccount.demoAPIKey, "apiSecret": "wrong"])) { adapter, _ in
            let error = await #expect(throws: GatewayError.self) { try await adapter.validateCredentials() }
            #expect(error?.code == .unauthorized)
            #expect(error?.brokerCode == "Must be authorized")
        }
    }

    @Test("the older naming on both sides works; mismatched naming finds no market")
    func naming() async throws {
        try await withAdapter(settings: ["marketNaming": "quote-base"], sandbox: makeSandbox(naming: "quote-base")) { adapter, _ in
            let quote = try #require(try await adapter.quotes([InstrumentReference(symbol: "XMR/BTC")]).first)
            #expect(quote.instrument.brokerKey == ["market": "BTC-XMR"])
            let placed = try await adapter.placeOrder(request("XMR/BTC", .buy, quantity: 1, limit: Decimal(string: "0.001")!))
            #expect(placed.instrument.symbol == "XMR/BTC" && placed.status == .open)
        }
        try await withAdapter(settings: ["marketNaming": "quote-base"]) { adapter, _ async throws in
            #expect(try await adapter.quotes([InstrumentReference(symbol: "XMR/BTC")]).isEmpty)
        }
    }

    @Test("orders: place, list, read, preview, match a lost placement, modify, cancel (twice)")
    func orders() async throws {
        try await withAdapter { adapter, sandbox in
            let low = Decimal(string: "0.001")!
            let sent = request("XMR/BTC", .buy, quantity: 2, limit: low, clientOrderId: "gw-e2e-1")
            let before = sandbox.market.now
            let placed = try await adapter.placeOrder(sent)
            #expect(placed.status == .open && placed.clientOrderId == "gw-e2e-1" && placed.quantity == 2)
            let uuid = try #require(placed.brokerOrderId)

            #expect(try await adapter.orders(OrderQuery()).map(\.brokerOrderId) == [uuid])
            #expect(try await adapter.orders(OrderQuery(state: .all, symbols: ["LTC/BTC"])).isEmpty)
            let read = try await adapter.order(brokerOrderId: uuid)
            #expect(read.status == .open && read.limitPrice == low && read.filledQuantity == 0)

            let btc = try #require(try await adapter.balances(accountId: nil).first { $0.currency == "BTC" })
            #expect(btc.held == Decimal(string: "0.002") && btc.total == Decimal(string: "1.5"))

            let preview = try await adapter.previewOrder(request("XMR/BTC", .buy, quantity: 1000, limit: low))
            #expect(preview.estimatedCost == 1 && preview.buyingPowerAfter == Decimal(string: "0.498"))
            #expect(preview.warnings.isEmpty)
            let tooBig = try await adapter.previewOrder(request("XMR/BTC", .buy, quantity: 2000, limit: low))
            #expect(tooBig.warnings.contains { $0.contains("exceeds the available BTC") })

            // The placement's answer was "lost": it is found by what was sent.
            let record = try #require(adapter.placement(clientOrderId: "gw-e2e-1"))
            let open = try await adapter.orders(OrderQuery(symbols: ["XMR/BTC"]))
            let matcher = OrderMatcher(clockSkew: 5)
            #expect(matcher.candidates(for: record.intent, among: open).map(\.brokerOrderId) == [uuid])
            var intent = OrderIntent(
                clientOrderId: nil,
                accountId: nil,
                symbol: "XMR/BTC",
                side: .buy,
                type: .limit,
                quantity: 2,
                limitPrice: low,
                sentAt: before
            )
            #expect(matcher.candidates(for: intent, among: open).map(\.brokerOrderId) == [uuid])
            intent.side = .sell
            #expect(matcher.candidates(for: intent, among: open).isEmpty)

            let changed = try await adapter.modifyOrder(read, OrderModification(limitPrice: Decimal(string: "0.0011")))
            #expect(changed.brokerOrderId != uuid && changed.limitPrice == Decimal(string: "0.0011") && changed.quantity == 2)
            #expect(changed.status == .open)
            let gone = await #expect(throws: GatewayError.self) { try await adapter.order(brokerOrderId: uuid) }
            #expect(gone?.code == .notFound)

            let canceled = try await adapter.cancelOrder(changed)
            #expect(canceled.status == .canceled)
            #expect(try await adapter.cancelOrder(changed).status == .canceled)
            #expect(try await adapter.orders(OrderQuery()).isEmpty)
        }
    }

    @Test("an order that crosses is read back partially filled; the fills move the balances")
    func crossing() async throws {
        try await withAdapter { adapter, _ in
            let quote = try #require(try await adapter.quotes([InstrumentReference(symbol: "XMR/BTC")]).first)
            let limit = round8(try #require(quote.ask) * Decimal(string: "1.01")!)
            let order = try await adapter.placeOrder(request("XMR/BTC", .buy, quantity: 100, limit: limit))
            #expect(order.status == .partiallyFilled)
            #expect(order.filledQuantity > 0 && order.filledQuantity < 100 && order.quantity == 100)
            let xmr = try #require(try await adapter.balances(accountId: nil).first { $0.currency == "XMR" })
            #expect(xmr.total == 25 + order.filledQuantity)
        }
    }

    @Test("emulated modify whose place fails: the error says the original was cancelled and the replacement was not placed")
    func modifyPartialFailure() async throws {
        try await withAdapter { adapter, _ in
            let placed = try await adapter.placeOrder(request("XMR/BTC", .buy, quantity: 10, limit: Decimal(string: "0.001")!))
            let error = await #expect(throws: GatewayError.self) {
                try await adapter.modifyOrder(placed, OrderModification(quantity: 5000))
            }
            #expect(error?.code == .insufficientFunds)
            #expect(error?.message.contains("the original order \(placed.brokerOrderId!) was cancelled and the replacement was not placed") == true)
            #expect(try await adapter.orders(OrderQuery()).isEmpty)
        }
    }
}
