import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import HTTPTypes
import LogCapture
import Logging
import Testing

@testable import TradeOgreAdapter

/// TradeOgre's answers by `"METHOD /path"` after the venue URL, in order per route (the last repeats); a request no
/// route matches fails as `upstream_unavailable`.
func routed(_ answers: [String: [(Int, String)]]) -> ScriptedTransport {
    ScriptedTransport(base: venueURL, routes: answers.mapValues { $0.map { (status: $0.0, body: $0.1) } }, unscripted: .upstreamUnavailable)
}

let venueURL = "https://venue.example/api/v1"
let testKeys = BrokerCredentials(["apiKey": "KEY123", "apiSecret": "SUPERSECRETVALUE"])

func makeAdapter(
    _ transport: any BrokerTransport,
    credentials: BrokerCredentials = testKeys,
    settings: [String: String] = [:],
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
) throws -> TradeOgreAdapter {
    let connection = ConnectionDescriptor(
        id: "conn-1",
        tenantId: "t",
        broker: .tradeogre,
        displayName: "TradeOgre",
        baseURL: venueURL,
        settings: settings,
        createdAt: Date(),
        updatedAt: Date()
    )
    let context = AdapterContext(
        connection: connection,
        baseURL: venueURL,
        credentials: credentials,
        transport: transport,
        logger: logger
    )
    let configuration = try TradeOgreConfiguration(baseURL: venueURL, settings: settings, credentials: credentials)
    return TradeOgreAdapter(context: context, configuration: configuration)
}

func limitOrder(
    _ symbol: String = "XMR/BTC",
    side: OrderSide = .buy,
    quantity: Decimal = 1,
    limit: Decimal? = Decimal(string: "0.0042"),
    type: OrderType = .limit,
    tif: TimeInForce = .gtc
) -> OrderRequest {
    OrderRequest(
        connectionId: "conn-1",
        accountId: "spot",
        instrument: InstrumentReference(symbol: symbol),
        side: side,
        type: type,
        timeInForce: tif,
        quantity: quantity,
        limitPrice: limit,
        clientOrderId: "coid-1"
    )
}

let tickerBody =
    #"{"success":true,"initialprice":"0.02502002","price":"0.02500000","high":"0.03102001","low":"0.02500000","volume":"0.15549958","bid":"0.02420000","ask":"0.02625000"}"#
let openOrderDetail =
    #"{"success":true,"date":"1710696146","type":"buy","market":"XMR-BTC","price":"0.00420000","quantity":"1.00000000","fulfilled":"0.00000000"}"#

@Suite("TradeOgre configuration and factory")
struct ConfigurationTests {
    @Test("the factory describes the kind: no credentials required, no working base URLs, limit gtc crypto only")
    func factory() {
        let factory = TradeOgreAdapterFactory()
        #expect(factory.kind == .tradeogre)
        #expect(factory.credentialKeys.isEmpty)
        #expect(factory.knownBaseURLs.isEmpty)
        let capabilities = factory.capabilities
        #expect(capabilities.assetClasses == [.crypto])
        #expect(capabilities.orderTypes == [.limit])
        #expect(capabilities.timeInForce == [.gtc])
        #expect(capabilities.support(for: .orderByClientOrderId) == .unsupported)
        #expect(capabilities.support(for: .modifyOrder) == .emulated)
        #expect(capabilities.support(for: .previewOrder) == .emulated)
        #expect(capabilities.support(for: .positions) == .emulated)
        #expect(capabilities.support(for: .orderBook) == .supported)
        for operation in [BrokerOperation.watchlists, .createWatchlist, .updateWatchlist, .deleteWatchlist] {
            #expect(capabilities.support(for: operation) == .unsupported)
        }
        #expect(capabilities.notes.contains { $0.contains("matching market, side, price, quantity and time") })
        #expect(capabilities.notes.contains { $0.contains("valuation") })
    }

    @Test("settings and credentials are read strictly")
    func settings() throws {
        let defaults = try TradeOgreConfiguration(baseURL: venueURL + "/", settings: [:], credentials: BrokerCredentials())
        #expect(defaults.baseURL == venueURL)
        #expect(defaults.keys == nil)
        #expect(defaults.marketNaming == .baseQuote)
        #expect(defaults.valuationCurrency == "BTC")
        #expect(defaults.includeZeroBalances == false)
        let custom = try TradeOgreConfiguration(
            baseURL: venueURL,
            settings: ["marketNaming": "quote-base", "valuationCurrency": "usdt", "includeZeroBalances": "true"],
            credentials: testKeys
        )
        #expect(custom.marketNaming == .quoteBase && custom.valuationCurrency == "USDT" && custom.includeZeroBalances)
        #expect(custom.authorization == "Basic " + Data("KEY123:SUPERSECRETVALUE".utf8).base64EncodedString())
        #expect("\(custom.keys!)".contains("SUPERSECRETVALUE") == false)

        #expect(throws: GatewayError.self) {
            try TradeOgreConfiguration(baseURL: venueURL, settings: [:], credentials: BrokerCredentials(["apiKey": "k"]))
        }
        #expect(throws: GatewayError.self) {
            try TradeOgreConfiguration(baseURL: "ftp://x", settings: [:], credentials: BrokerCredentials())
        }
        let bad = #expect(throws: GatewayError.self) {
            try TradeOgreConfiguration(baseURL: venueURL, settings: ["marketNaming": "BASE_QUOTE"], credentials: BrokerCredentials())
        }
        #expect(bad?.details.first?.field == "settings.marketNaming")
    }
}

@Suite("TradeOgre public mode and credentials")
struct PublicModeTests {
    @Test("without keys: quotes, search and candles work; every account read is unauthorized without a call")
    func publicMode() async throws {
        let transport = routed([
            "GET /ticker/XMR-BTC": [(200, tickerBody)],
            "GET /markets": [
                (200, #"[{"XMR-BTC":{"initialprice":"0.0021","price":"0.0022","high":"0.0023","low":"0.002","volume":"1","basename":"Monero"}}]"#)
            ],
            "GET /chart/1h/XMR-BTC": [
                (200, "[[1700000000,0.0021,0.0023,0.002,0.0022,12.5],[1700003600,\"0.0022\",\"0.0024\",\"0.0021\",\"0.0023\",\"3\"]]")
            ],
        ])
        let adapter = try makeAdapter(transport, credentials: BrokerCredentials())
        try await adapter.validateCredentials()
        let quotes = try await adapter.quotes([InstrumentReference(symbol: "XMR/BTC")])
        #expect(quotes.first?.last == Decimal(string: "0.025"))
        #expect(try await adapter.searchInstruments("monero", assetClass: nil).map(\.symbol) == ["XMR/BTC"])
        let candles = try await adapter.candles(InstrumentReference(symbol: "XMR/BTC"), interval: .oneHour, count: 1)
        #expect(candles.candles.count == 1)
        #expect(candles.candles.first?.close == Decimal(string: "0.0023"))
        #expect(transport.requests.allSatisfy { $0.header("Authorization") == nil })

        let before = transport.requests.count
        for read in [
            { _ = try await adapter.balances(accountId: nil) }, { _ = try await adapter.positions(accountId: nil) },
            { _ = try await adapter.accounts() }, { _ = try await adapter.orders(OrderQuery()) },
            { _ = try await adapter.order(brokerOrderId: "x") }, { _ = try await adapter.placeOrder(limitOrder()) },
        ] as [@Sendable () async throws -> Void] {
            let error = await #expect(throws: GatewayError.self) { try await read() }
            #expect(error?.code == .unauthorized)
            #expect(error?.message.hasPrefix("this connection has no API keys") == true)
            #expect(error?.retryable == false)
        }
        #expect(transport.requests.count == before)
    }

    @Test("keys are validated against /account/balances: Must be authorized is unauthorized, with or without HTTP 401")
    func validation() async throws {
        let good = routed(["GET /account/balances": [(200, #"{"success":true,"balances":{"BTC":"1.00000000"}}"#)]])
        try await makeAdapter(good).validateCredentials()
        #expect(good.requests.first?.header("Authorization") == "Basic " + Data("KEY123:SUPERSECRETVALUE".utf8).base64EncodedString())

        for status in [200, 401] {
            let refused = routed(["GET /account/balances": [(status, #"{"success":false,"error":"Must be authorized"}"#)]])
            let error = await #expect(throws: GatewayError.self) { try await makeAdapter(refused).validateCredentials() }
            #expect(error?.code == .unauthorized)
            #expect(error?.brokerCode == "Must be authorized")
            #expect(error?.message.contains("SUPERSECRETVALUE") == false)
        }
        // A base URL that does not speak the dialect is not accepted either.
        let html = routed(["GET /markets": [(200, "<html>parked domain</html>")]])
        let error = await #expect(throws: GatewayError.self) {
            try await makeAdapter(html, credentials: BrokerCredentials()).validateCredentials()
        }
        #expect(error?.code == .malformedResponse)
    }

    @Test("secrets never reach the logs")
    func logging() async throws {
        // Every line, to prove secrets never reach them.
        let (logger, log) = LogCapture.logger(label: "t")
        // The call log line is the pipeline's (every adapter's calls go through it in production).
        let transport = BrokerPipeline().transport(
            wrapping: routed(["GET /account/balances": [(200, #"{"success":true,"balances":{}}"#)]]),
            connection: ConnectionDescriptor(
                id: "conn-1",
                tenantId: "t",
                broker: .tradeogre,
                displayName: "test",
                baseURL: "https://broker.test",
                createdAt: Date(),
                updatedAt: Date()
            ),
            limits: [],
            logger: logger
        )
        try await makeAdapter(transport, logger: logger).validateCredentials()
        let lines = log.lines
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { !$0.contains("SUPERSECRETVALUE") && !$0.contains("KEY123") })
    }
}

@Suite("TradeOgre balances")
struct BalanceTests {
    @Test("two calls whatever the number of currencies: totals, and every open order for what they hold")
    func twoCalls() async throws {
        let transport = routed([
            "GET /account/balances": [
                (200, #"{"success":true,"balances":{"BTC":"1.50000000","XMR":"0.00000000","LTC":"2","A":"1","B":"1","C":"1","D":"1"}}"#)
            ],
            "POST /account/orders": [(200, "[]")],
        ])
        let balances = try await makeAdapter(transport).balances(accountId: nil)
        #expect(balances.map(\.currency) == ["A", "B", "BTC", "C", "D", "LTC"])
        for balance in balances {
            #expect(balance.available == balance.total && balance.held == 0)
            #expect(balance.accountId == "spot")
        }
        #expect(transport.requests.count == 2)
        let orders = try #require(transport.requests.first { $0.url.hasSuffix("/account/orders") })
        // No market field: the open orders of every market.
        #expect(orders.method == .post && (orders.body ?? Data()).isEmpty)
        #expect(!transport.requests.contains { $0.url.hasSuffix("/account/balance") })
    }

    @Test("a sell holds its remaining base quantity; a buy holds price × quantity of the quote, rounded up to 8 decimals")
    func heldFromOrders() async throws {
        let transport = routed([
            "GET /account/balances": [
                (200, #"{"success":true,"balances":{"BTC":"1.50000000","XMR":"25.00000000","LTC":"40.00000000","USDT":"0.00000000"}}"#)
            ],
            "POST /account/orders": [
                (
                    200,
                    """
                    [{"uuid":"a","date":1692372889,"type":"buy","price":"0.00333333","quantity":"0.33333333","market":"XMR-BTC"},
                     {"uuid":"b","date":1692372889,"type":"buy","price":"0.00420000","quantity":"2.00000000","market":"LTC-BTC"},
                     {"uuid":"c","date":1692204956,"type":"sell","price":"0.5","quantity":"1.25000000","market":"XMR-BTC"},
                     {"uuid":"d","date":1692204956,"type":"sell","price":"90","quantity":"0.10000000","market":"LTC-USDT"}]
                    """
                )
            ],
        ])
        let balances = try await makeAdapter(transport).balances(accountId: nil)
        let byCurrency = Dictionary(uniqueKeysWithValues: balances.map { ($0.currency, $0) })
        // 0.00333333 × 0.33333333 = 0.0011111099888889 → 0.00111111 (up); 0.0042 × 2 = 0.0084.
        #expect(byCurrency["BTC"]?.held == Decimal(string: "0.00951111"))
        #expect(byCurrency["BTC"]?.available == Decimal(string: "1.49048889"))
        #expect(byCurrency["XMR"]?.held == Decimal(string: "1.25") && byCurrency["XMR"]?.available == Decimal(string: "23.75"))
        #expect(byCurrency["LTC"]?.held == Decimal(string: "0.1") && byCurrency["LTC"]?.available == Decimal(string: "39.9"))
        #expect(byCurrency["USDT"] == nil)
        for balance in balances { #expect(balance.available + balance.held == balance.total) }
    }

    @Test("the older quote-first naming: BTC-XMR is base XMR")
    func quoteFirstNaming() async throws {
        let transport = routed([
            "GET /account/balances": [(200, #"{"success":true,"balances":{"BTC":"1","XMR":"3"}}"#)],
            "POST /account/orders": [
                (200, #"[{"uuid":"a","date":1514876938,"type":"sell","price":"0.02621960","quantity":"1.55772526","market":"BTC-XMR"}]"#)
            ],
        ])
        let balances = try await makeAdapter(transport, settings: ["marketNaming": "quote-base"]).balances(accountId: nil)
        #expect(balances.first { $0.currency == "XMR" }?.held == Decimal(string: "1.55772526"))
        #expect(balances.first { $0.currency == "BTC" }?.held == 0)
    }

    @Test("an order claiming more than the total read with it holds the total: available is never negative")
    func heldCappedAtTotal() {
        let held = ["BTC": Decimal(string: "0.0042")!]
        let balances = HeldFunds.balances(
            totals: ["BTC": Decimal(string: "0.00015033")!],
            held: held,
            includeZero: false,
            connectionId: "c",
            accountId: "spot"
        )
        #expect(balances.first?.held == Decimal(string: "0.00015033") && balances.first?.available == 0)
    }

    @Test("an open order whose side or market cannot be read is the read's gap, as malformed_response")
    func unreadableOrder() async throws {
        for entry in [
            #"{"uuid":"a","date":1,"type":"short","price":"1","quantity":"1","market":"XMR-BTC"}"#,
            #"{"uuid":"a","date":1,"type":"buy","price":"1","quantity":"1","market":"XMRBTC"}"#,
            #"{"uuid":"a","date":1,"type":"buy","price":"1","quantity":"1.5abc","market":"XMR-BTC"}"#,
        ] {
            let transport = routed([
                "GET /account/balances": [(200, #"{"success":true,"balances":{"BTC":"1"}}"#)],
                "POST /account/orders": [(200, "[\(entry)]")],
            ])
            let (balances, gaps) = try await ReadGaps.collecting { try await makeAdapter(transport).balances(accountId: nil) }
            #expect(balances.map(\.total) == [1], "\(entry)")
            #expect(gaps.map(\.code) == [.malformedResponse], "\(entry)")
        }
    }

    @Test("includeZeroBalances keeps zero totals; another account id is not_found")
    func zeroBalances() async throws {
        let transport = routed([
            "GET /account/balances": [(200, #"{"success":true,"balances":{"BTC":"0.00000000"}}"#)],
            "POST /account/orders": [(200, "[]")],
        ])
        let kept = try await makeAdapter(transport, settings: ["includeZeroBalances": "true"]).balances(accountId: "spot")
        #expect(kept.map(\.currency) == ["BTC"])
        #expect(try await makeAdapter(transport).balances(accountId: nil).isEmpty)
        let error = await #expect(throws: GatewayError.self) { try await makeAdapter(transport).balances(accountId: "other") }
        #expect(error?.code == .notFound)
    }

    /// Issue 26. Before: the whole source failed with the auxiliary call, and the totals that did arrive were lost.
    @Test("a failing open-orders call answers the totals, nothing held, and records the gap")
    func partialFailure() async throws {
        let transport = routed([
            "GET /account/balances": [(200, #"{"success":true,"balances":{"BTC":"1"}}"#)],
            "POST /account/orders": [(503, "<html>down</html>")],
        ])
        let (balances, gaps) = try await ReadGaps.collecting { try await makeAdapter(transport).balances(accountId: nil) }
        #expect(balances.map(\.currency) == ["BTC"])
        #expect(balances.first?.total == 1 && balances.first?.held == 0)
        #expect(gaps.map(\.code) == [.upstreamUnavailable])
        #expect(gaps.first?.message.contains("held amounts are unknown") == true)
        // The totals are the answer: their failure still fails the read.
        let down = routed([
            "GET /account/balances": [(503, "<html>down</html>")],
            "POST /account/orders": [(200, "[]")],
        ])
        let error = await #expect(throws: GatewayError.self) { try await makeAdapter(down).balances(accountId: nil) }
        #expect(error?.code == .upstreamUnavailable)
    }
}

@Suite("TradeOgre orders through a stub venue")
struct OrderTests {
    @Test("place sends the form with plain decimals and records the placement; the read-back gives fills")
    func place() async throws {
        let transport = routed([
            "POST /order/buy": [(200, #"{"success":true,"uuid":"ae19d981-7341-1d2a-54e8-e32b4f33b4f6","bnewbalavail":"0.1","snewbalavail":"0.5"}"#)],
            "GET /account/order/ae19d981-7341-1d2a-54e8-e32b4f33b4f6": [
                (
                    200,
                    #"{"success":true,"date":1692372889,"type":"buy","market":"XMR-BTC","price":"0.00420000","quantity":"0.40000000","fulfilled":"0.60000000"}"#
                )
            ],
        ])
        let adapter = try makeAdapter(transport)
        let order = try await adapter.placeOrder(limitOrder(quantity: 1))
        #expect(order.status == .partiallyFilled)
        #expect(order.quantity == 1 && order.filledQuantity == Decimal(string: "0.6"))
        #expect(order.clientOrderId == "coid-1")
        #expect(order.brokerOrderId == "ae19d981-7341-1d2a-54e8-e32b4f33b4f6")
        let sent = try #require(transport.requests.first)
        #expect(String(decoding: sent.body ?? Data(), as: UTF8.self) == "market=XMR-BTC&quantity=1&price=0.0042")
        #expect(sent.timeout == .seconds(15))
        let record = try #require(adapter.placement(clientOrderId: "coid-1"))
        #expect(record.side == .buy && record.price == Decimal(string: "0.0042") && record.quantity == 1)
        #expect(record.intent.type == .limit && record.intent.limitPrice == record.price && record.intent.symbol == "XMR/BTC")
    }

    @Test("an answer without uuid means filled at once; a failed read-back reports the order open")
    func placeEdgeCases() async throws {
        let filled = routed(["POST /order/sell": [(200, #"{"success":true,"bnewbalavail":"0.1","snewbalavail":"0.5"}"#)]])
        let order = try await makeAdapter(filled).placeOrder(limitOrder(side: .sell))
        #expect(order.status == .filled && order.filledQuantity == 1 && order.brokerOrderId == nil)

        let lost = routed([
            "POST /order/buy": [(200, #"{"success":true,"uuid":"u-1","bnewbalavail":"0.1","snewbalavail":"0.5"}"#)],
            "GET /account/order/u-1": [(502, "bad gateway")],
        ])
        let open = try await makeAdapter(lost).placeOrder(limitOrder())
        #expect(open.status == .open && open.brokerOrderId == "u-1")
    }

    @Test(
        "orders TradeOgre cannot take are unprocessable before anything is sent",
        arguments: [
            (limitOrder(type: .market, tif: .gtc), "type"), (limitOrder(tif: .day), "timeInForce"),
            (limitOrder(side: .sellShort), "side"), (limitOrder("XMRBTC"), "symbol"),
            (limitOrder(limit: Decimal(string: "0.000000001")), "limitPrice"), (limitOrder(quantity: Decimal(string: "1.123456789")!), "quantity"),
        ]
    )
    func rules(_ request: OrderRequest, _ field: String) async throws {
        let transport = routed([:])
        let error = await #expect(throws: GatewayError.self) { try await makeAdapter(transport).placeOrder(request) }
        #expect(error?.code == .unprocessable)
        #expect(error?.details.contains { $0.field == field } == true, "\(String(describing: error?.details))")
        #expect(transport.requests.isEmpty)
    }

    @Test("order by uuid: remaining 0 is filled; fills with something left are partially filled")
    func orderStatus() async throws {
        let transport = routed([
            "GET /account/order/a": [
                (
                    200,
                    #"{"success":true,"date":"1710696146","type":"sell","market":"LTC-USDT","price":"87.00000000","quantity":"0.00000000","fulfilled":"0.10000000"}"#
                )
            ],
            "GET /account/order/b": [
                (
                    200,
                    #"{"success":"true","date":1710696146,"type":"sell","market":"LTC-USDT","price":"87.00000000","quantity":"0.04000000","fulfilled":"0.06000000"}"#
                )
            ],
            "GET /account/order/c": [
                (200, #"{"success":true,"date":"1710696146","type":"short","market":"LTC-USDT","price":"87","quantity":"1","fulfilled":"0"}"#)
            ],
        ])
        let adapter = try makeAdapter(transport)
        let filled = try await adapter.order(brokerOrderId: "a")
        #expect(filled.status == .filled && filled.quantity == Decimal(string: "0.1") && filled.filledQuantity == Decimal(string: "0.1"))
        let partial = try await adapter.order(brokerOrderId: "b")
        #expect(partial.status == .partiallyFilled && partial.quantity == Decimal(string: "0.1"))
        #expect(partial.createdAt == Date(timeIntervalSince1970: 1_710_696_146))
        let error = await #expect(throws: GatewayError.self) { try await adapter.order(brokerOrderId: "c") }
        #expect(error?.code == .malformedResponse)
    }

    @Test("cancel: a filled order is a conflict; an order no longer answered was already canceled")
    func cancel() async throws {
        let base = try await makeAdapter(routed(["GET /account/order/u": [(200, openOrderDetail)]])).order(brokerOrderId: "u")

        let filled = routed([
            "GET /account/order/u": [
                (200, #"{"success":true,"date":"1","type":"buy","market":"XMR-BTC","price":"0.0042","quantity":"0","fulfilled":"1"}"#)
            ]
        ])
        let conflict = await #expect(throws: GatewayError.self) { try await makeAdapter(filled).cancelOrder(base) }
        #expect(conflict?.code == .conflict)
        #expect(filled.requests.count == 1)

        let gone = routed(["GET /account/order/u": [(200, #"{"success":false,"error":"Order not found"}"#)]])
        let canceled = try await makeAdapter(gone).cancelOrder(base)
        #expect(canceled.status == .canceled)
        #expect(gone.requests.count == 1)

        // The order filled between the read and the cancel.
        let raced = routed([
            "GET /account/order/u": [
                (200, openOrderDetail),
                (200, #"{"success":true,"date":"1","type":"buy","market":"XMR-BTC","price":"0.0042","quantity":"0","fulfilled":"1"}"#),
            ],
            "POST /order/cancel": [(200, #"{"success":false,"error":"Order not found"}"#)],
        ])
        let late = await #expect(throws: GatewayError.self) { try await makeAdapter(raced).cancelOrder(base) }
        #expect(late?.code == .conflict)
    }

    @Test("modify is cancel then place; a failed place after the cancel says the original was cancelled and the replacement was not placed")
    func modifyPartialFailure() async throws {
        let base = try await makeAdapter(routed(["GET /account/order/u": [(200, openOrderDetail)]])).order(brokerOrderId: "u")
        let transport = routed([
            "GET /account/order/u": [(200, openOrderDetail)],
            "POST /order/cancel": [(200, #"{"success":true}"#)],
            "POST /order/buy": [(200, #"{"success":false,"error":"Insufficient funds"}"#)],
        ])
        let error = await #expect(throws: GatewayError.self) {
            try await makeAdapter(transport).modifyOrder(base, OrderModification(limitPrice: Decimal(string: "0.005")))
        }
        #expect(error?.code == .insufficientFunds)
        #expect(error?.retryable == false)
        #expect(
            error?.message.contains("the original order u was cancelled and the replacement was not placed") == true,
            "\(String(describing: error?.message))"
        )
        #expect(transport.requests.map(\.method.rawValue) == ["GET", "POST", "POST"])
        #expect(String(decoding: transport.requests[2].body ?? Data(), as: UTF8.self) == "market=XMR-BTC&quantity=1&price=0.005")

        // A lost answer: whether the replacement exists is unknown, and the message says so.
        let timedOut = routed([
            "GET /account/order/u": [(200, openOrderDetail)],
            "POST /order/cancel": [(200, #"{"success":true}"#)],
            "POST /order/buy": [(504, "")],
        ])
        let unknown = await #expect(throws: GatewayError.self) {
            try await makeAdapter(timedOut).modifyOrder(base, OrderModification(limitPrice: Decimal(string: "0.005")))
        }
        #expect(unknown?.message.contains("was cancelled and whether the replacement was placed is unknown") == true)

        // A failed cancel changes nothing and places nothing.
        let stuck = routed([
            "GET /account/order/u": [(200, openOrderDetail)],
            "POST /order/cancel": [(503, "")],
        ])
        let cancelError = await #expect(throws: GatewayError.self) {
            try await makeAdapter(stuck).modifyOrder(base, OrderModification(quantity: 2))
        }
        #expect(cancelError?.code == .upstreamUnavailable)
        #expect(!stuck.requests.contains { $0.url.hasSuffix("/order/buy") })
    }

    @Test("modify succeeds with the new price and the quantity less what already traded")
    func modify() async throws {
        let base = try await makeAdapter(routed(["GET /account/order/u": [(200, openOrderDetail)]])).order(brokerOrderId: "u")
        let partial = #"{"success":true,"date":"1","type":"buy","market":"XMR-BTC","price":"0.0042","quantity":"0.75","fulfilled":"0.25"}"#
        let transport = routed([
            "GET /account/order/u": [(200, partial)],
            "POST /order/cancel": [(200, #"{"success":true}"#)],
            "POST /order/buy": [(200, #"{"success":true,"uuid":"v","bnewbalavail":"1","snewbalavail":"1"}"#)],
            "GET /account/order/v": [
                (200, #"{"success":true,"date":"2","type":"buy","market":"XMR-BTC","price":"0.005","quantity":"1.75","fulfilled":"0"}"#)
            ],
        ])
        let replaced = try await makeAdapter(transport).modifyOrder(base, OrderModification(quantity: 2, limitPrice: Decimal(string: "0.005")))
        #expect(replaced.brokerOrderId == "v")
        #expect(replaced.limitPrice == Decimal(string: "0.005") && replaced.quantity == Decimal(string: "1.75"))
        #expect(String(decoding: transport.requests[2].body ?? Data(), as: UTF8.self) == "market=XMR-BTC&quantity=1.75&price=0.005")
        let invalid = await #expect(throws: GatewayError.self) {
            try await makeAdapter(transport).modifyOrder(base, OrderModification(type: .market))
        }
        #expect(invalid?.code == .unprocessable)
    }

    @Test("orders: one symbol filters at the venue; closed is unprocessable; client order ids find nothing")
    func listing() async throws {
        let transport = routed([
            "POST /account/orders": [
                (
                    200,
                    #"[{"uuid":"a","date":1,"type":"buy","price":"0.1","quantity":"0.4","market":"XMR-BTC"},{"uuid":"b","date":"2","type":"sell","price":"0.2","quantity":"1","market":"LTC-BTC"},{"uuid":"c","date":3,"type":"sell","price":"0.2","quantity":"1","market":"LTC-BTC"}]"#
                )
            ],
            "GET /account/order/a": [
                (200, #"{"success":true,"date":1,"type":"buy","market":"XMR-BTC","price":"0.1","quantity":"0.4","fulfilled":"0.6"}"#)
            ],
            "GET /account/order/b": [
                (200, #"{"success":true,"date":"2","type":"sell","market":"LTC-BTC","price":"0.2","quantity":"1","fulfilled":"0"}"#)
            ],
            "GET /account/order/c": [(200, #"{"success":false,"error":"Order not found"}"#)],
        ])
        let adapter = try makeAdapter(transport)
        let all = try await adapter.orders(OrderQuery(state: .all))
        // Newest first; c closed between the list and its read; a is partly filled, with its whole size.
        #expect(all.map(\.brokerOrderId) == ["b", "a"])
        #expect(all[1].status == .partiallyFilled && all[1].quantity == 1 && all[1].filledQuantity == Decimal(string: "0.6"))
        let one = try await adapter.orders(OrderQuery(symbols: ["XMR/BTC"]))
        #expect(String(decoding: transport.requests.last { $0.url.hasSuffix("/account/orders") }?.body ?? Data(), as: UTF8.self) == "market=XMR-BTC")
        #expect(one.map(\.brokerOrderId) == ["b", "a"])  // the venue filters by market; this stub does not
        let two = try await adapter.orders(OrderQuery(symbols: ["XMR/BTC", "ETH/BTC"]))
        #expect(two.map(\.brokerOrderId) == ["a"])
        let closed = await #expect(throws: GatewayError.self) { try await adapter.orders(OrderQuery(state: .closed)) }
        #expect(closed?.code == .unprocessable)
        #expect(try await adapter.order(clientOrderId: "coid-1", accountId: "spot") == nil)
    }

    /// Issue 26. Before: one order's failed detail read failed the whole list.
    @Test("orders: an order whose detail read fails stays listed without its fills, and the gap is recorded")
    func listingWithAFailedDetail() async throws {
        let transport = routed([
            "POST /account/orders": [
                (
                    200,
                    #"[{"uuid":"a","date":1,"type":"buy","price":"0.1","quantity":"0.4","market":"XMR-BTC"},{"uuid":"b","date":"2","type":"sell","price":"0.2","quantity":"1","market":"LTC-BTC"}]"#
                )
            ],
            "GET /account/order/a": [(503, "<html>down</html>")],
            "GET /account/order/b": [
                (200, #"{"success":true,"date":"2","type":"sell","market":"LTC-BTC","price":"0.2","quantity":"1","fulfilled":"0"}"#)
            ],
        ])
        let (all, gaps) = try await ReadGaps.collecting { try await makeAdapter(transport).orders(OrderQuery(state: .all)) }
        #expect(all.map(\.brokerOrderId) == ["b", "a"])
        #expect(all[1].quantity == Decimal(string: "0.4") && all[1].status == .open)
        #expect(gaps.count == 1)
        #expect(gaps.first?.message.contains("TradeOgre order a") == true)
    }

    @Test("a lost placement is found by OrderMatcher among the open orders read back with their fills")
    func matching() async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_100)
        func detail(_ type: String, _ price: String, remaining: String, filled: String, date: Int) -> (Int, String) {
            (
                200,
                #"{"success":true,"date":\#(date),"type":"\#(type)","market":"XMR-BTC","price":"\#(price)","quantity":"\#(remaining)","fulfilled":"\#(filled)"}"#
            )
        }
        let transport = routed([
            "POST /account/orders": [
                (
                    200,
                    """
                    [{"uuid":"old","date":1699999000,"type":"buy","price":"0.00420000","quantity":"1.00000000","market":"XMR-BTC"},
                     {"uuid":"hit","date":1700000098,"type":"buy","price":"0.00420000","quantity":"0.40000000","market":"XMR-BTC"},
                     {"uuid":"side","date":1700000098,"type":"sell","price":"0.00420000","quantity":"1.00000000","market":"XMR-BTC"},
                     {"uuid":"price","date":1700000098,"type":"buy","price":"0.00430000","quantity":"1.00000000","market":"XMR-BTC"},
                     {"uuid":"big","date":1700000098,"type":"buy","price":"0.00420000","quantity":"2.00000000","market":"XMR-BTC"}]
                    """
                )
            ],
            "GET /account/order/old": [detail("buy", "0.00420000", remaining: "1.00000000", filled: "0", date: 1_699_999_000)],
            "GET /account/order/hit": [detail("buy", "0.00420000", remaining: "0.40000000", filled: "0.60000000", date: 1_700_000_098)],
            "GET /account/order/side": [detail("sell", "0.00420000", remaining: "1.00000000", filled: "0", date: 1_700_000_098)],
            "GET /account/order/price": [detail("buy", "0.00430000", remaining: "1.00000000", filled: "0", date: 1_700_000_098)],
            "GET /account/order/big": [detail("buy", "0.00420000", remaining: "2.00000000", filled: "0", date: 1_700_000_098)],
        ])
        let adapter = try makeAdapter(transport)
        let open = try await adapter.orders(OrderQuery(symbols: ["XMR/BTC"]))
        let intent = OrderIntent(
            clientOrderId: "coid-lost",
            accountId: TradeOgreAdapter.accountId,
            symbol: "XMR/BTC",
            side: .buy,
            type: .limit,
            quantity: 1,
            limitPrice: Decimal(string: "0.0042")!,
            sentAt: now
        )
        let matcher = OrderMatcher(clockSkew: 5)
        #expect(matcher.candidates(for: intent, among: open).map(\.brokerOrderId) == ["hit"])
        #expect(String(decoding: transport.requests[0].body ?? Data(), as: UTF8.self) == "market=XMR-BTC")
        #expect(adapter.placement(clientOrderId: "never-sent") == nil)
    }

    @Test("preview: cost from the limit, buying power from the available quote currency, warnings when short or marketable")
    func preview() async throws {
        let transport = routed([
            "GET /ticker/XMR-BTC": [
                (
                    200,
                    #"{"success":true,"initialprice":"0.0041","price":"0.0042","high":"0.0043","low":"0.004","volume":"1","bid":"0.00410000","ask":"0.00420000"}"#
                )
            ],
            "POST /account/balance": [(200, #"{"success":true,"balance":"0.05000000","available":"0.00300000"}"#)],
        ])
        let preview = try await makeAdapter(transport).previewOrder(limitOrder(quantity: 1))
        #expect(preview.currency == "BTC")
        #expect(preview.estimatedCost == Decimal(string: "0.0042"))
        #expect(preview.buyingPowerAfter == Decimal(string: "-0.0012"))
        #expect(preview.warnings.count == 2)
        #expect(String(decoding: transport.requests.first { $0.url.hasSuffix("/account/balance") }?.body ?? Data(), as: UTF8.self) == "currency=BTC")
    }
}
