import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import HTTPTypes
import LogCapture
import Logging
import Testing

@testable import AlpacaAdapter

let accountJSON = """
    {"id": "e6fe16f3-64a4-4921-8928-cadf02f92f98", "account_number": "010203ABCD", "status": "ACTIVE",
     "currency": "USD", "cash": "1000", "buying_power": "1000", "equity": "1000"}
    """
let accountId = "e6fe16f3-64a4-4921-8928-cadf02f92f98"

/// Alpaca's answers (status and body), one per request in order; a request past the last is unscripted.
func queued(_ answers: [(Int, String)]) -> ScriptedTransport {
    ScriptedTransport(answers: answers.map { ScriptedTransport.text($0.0, $0.1) })
}

let testCredentials = BrokerCredentials(["keyId": "PKTESTKEY", "secretKey": "SUPERSECRETVALUE"])

func makeAdapter(
    _ transport: any BrokerTransport,
    credentials: BrokerCredentials = testCredentials,
    baseURL: String = "https://paper-api.alpaca.markets",
    settings: [String: String] = [:],
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
    now: (@Sendable () -> Date)? = nil
) throws -> AlpacaAdapter {
    let connection = ConnectionDescriptor(
        id: "conn-1",
        tenantId: "t",
        broker: .alpaca,
        displayName: "Alpaca",
        baseURL: baseURL,
        settings: settings,
        createdAt: Date(),
        updatedAt: Date()
    )
    let context = AdapterContext(
        connection: connection,
        baseURL: baseURL,
        credentials: credentials,
        transport: transport,
        logger: logger
    )
    var configuration = try AlpacaConfiguration(baseURL: baseURL, settings: settings, credentials: credentials)
    if let now { configuration.now = now }
    return AlpacaAdapter(context: context, configuration: configuration)
}

func orderRequest(
    _ symbol: String,
    _ assetClass: AssetClass? = nil,
    side: OrderSide = .buy,
    type: OrderType = .limit,
    tif: TimeInForce = .day,
    quantity: Decimal = 1,
    limit: Decimal? = 10,
    stop: Decimal? = nil,
    clientOrderId: String? = "coid-1"
) -> OrderRequest {
    OrderRequest(
        connectionId: "conn-1",
        accountId: accountId,
        instrument: InstrumentReference(symbol: symbol, assetClass: assetClass),
        side: side,
        type: type,
        timeInForce: tif,
        quantity: quantity,
        limitPrice: limit,
        stopPrice: stop,
        clientOrderId: clientOrderId
    )
}

@Suite("Alpaca configuration and factory")
struct ConfigurationTests {
    @Test("the factory describes the kind")
    func factory() {
        let factory = AlpacaAdapterFactory()
        #expect(factory.kind == .alpaca)
        #expect(factory.credentialKeys == ["keyId", "secretKey"])
        #expect(factory.knownBaseURLs["paper"] == "https://paper-api.alpaca.markets")
        #expect(factory.knownBaseURLs["live"] == "https://api.alpaca.markets")
        let capabilities = factory.capabilities
        #expect(capabilities.assetClasses == [.equity, .crypto])
        #expect(!capabilities.timeInForce.contains(.gtd))
        #expect(capabilities.support(for: .previewOrder) == .emulated)
        // Candles from the bars endpoints, order books of crypto pairs (the notes say so).
        #expect(capabilities.support(for: .candles) == .supported)
        #expect(capabilities.support(for: .orderBook) == .supported)
        #expect(capabilities.notes.contains { $0.hasPrefix("Order book: crypto pairs only") })
        for operation in BrokerOperation.allCases where operation != .previewOrder {
            #expect(capabilities.support(for: operation) == .supported, "\(operation)")
        }
    }

    @Test("key pair headers, or a bearer token, never both")
    func authHeaders() async throws {
        let keys = queued([(200, accountJSON)])
        try await makeAdapter(keys).validateCredentials()
        let sent = try #require(keys.requests.first)
        #expect(sent.header("APCA-API-KEY-ID") == "PKTESTKEY")
        #expect(sent.header("APCA-API-SECRET-KEY") == "SUPERSECRETVALUE")
        #expect(sent.header("Authorization") == nil)
        #expect(sent.url == "https://paper-api.alpaca.markets/v2/account")
        #expect(sent.timeout == .seconds(10))

        let oauth = queued([(200, accountJSON)])
        try await makeAdapter(oauth, credentials: BrokerCredentials(["oauthToken": "TOKEN1"])).validateCredentials()
        #expect(oauth.requests.first?.header("Authorization") == "Bearer TOKEN1")
        #expect(oauth.requests.first?.header("APCA-API-KEY-ID") == nil)

        for bad in [
            BrokerCredentials(["keyId": "k"]), BrokerCredentials([:]),
            BrokerCredentials(["keyId": "k", "secretKey": "s", "oauthToken": "t"]),
        ] {
            #expect(throws: GatewayError.self) { try makeAdapter(queued([]), credentials: bad) }
        }
    }

    @Test("market data goes to data.alpaca.markets for Alpaca's hosts, to the base URL otherwise, or to dataBaseURL")
    func dataBaseURL() throws {
        #expect(AlpacaConfiguration.defaultDataBaseURL(for: "https://paper-api.alpaca.markets") == "https://data.alpaca.markets")
        #expect(AlpacaConfiguration.defaultDataBaseURL(for: "https://api.alpaca.markets/") == "https://data.alpaca.markets")
        #expect(AlpacaConfiguration.defaultDataBaseURL(for: "http://127.0.0.1:8080/") == "http://127.0.0.1:8080")
        let custom = try AlpacaConfiguration(
            baseURL: "http://127.0.0.1:1",
            settings: ["dataBaseURL": "http://127.0.0.1:2/"],
            credentials: testCredentials
        )
        #expect(custom.dataBaseURL == "http://127.0.0.1:2")
        #expect(
            Endpoint.stockQuotes(symbols: ["AAPL", "MSFT"], feed: "iex").url(custom)
                == "http://127.0.0.1:2/v2/stocks/quotes/latest?symbols=AAPL%2CMSFT&feed=iex"
        )
        #expect(
            Endpoint.cryptoQuotes(symbols: ["BTC/USD"]).url(custom)
                == "http://127.0.0.1:2/v1beta3/crypto/us/latest/quotes?symbols=BTC%2FUSD"
        )
    }

    @Test("the credentials' description hides the secrets")
    func configurationDescription() throws {
        let configuration = try AlpacaConfiguration(
            baseURL: "https://paper-api.alpaca.markets",
            settings: [:],
            credentials: testCredentials
        )
        #expect(!"\(configuration.auth)".contains("SUPERSECRETVALUE"))
    }
}

@Suite("Alpaca error table")
struct ErrorTableTests {
    static let rows: [(status: Int, body: String, code: GatewayError.Code)] = [
        (401, #"{"message": "unauthorized."}"#, .unauthorized),
        (401, #"{"code": 40110000, "message": "request is not authorized"}"#, .unauthorized),
        (403, #"{"buying_power":"176531.28","code":40310000,"cost_basis":"48640000","message":"insufficient buying power"}"#, .insufficientFunds),
        (403, #"{"code":40310000,"message":"insufficient balance for USD (requested: 100, available: 10)"}"#, .insufficientFunds),
        (403, #"{"code":40310000,"message":"insufficient qty available for order (requested: 10, available: 5)"}"#, .insufficientFunds),
        (403, #"{"code":40310000,"message":"account is not authorized to trade"}"#, .forbidden),
        (404, #"{"code":40410000,"message":"order not found"}"#, .notFound),
        (404, "", .notFound),
        (422, #"{"code":40010001,"message":"client_order_id must be unique"}"#, .conflict),
        (422, #"{"code":42210000,"message":"order is already in \"filled\" state"}"#, .conflict),
        (422, #"{"code":42210000,"message":"invalid crypto time_in_force"}"#, .unprocessable),
        (422, #"{"code":40010001,"message":"invalid order type for crypto order"}"#, .unprocessable),
        (400, "not json", .unprocessable),
        (429, #"{"code":42910000,"message":"rate limit exceeded"}"#, .rateLimited),
        (500, "<html>oops</html>", .upstreamUnavailable),
        (503, "", .upstreamUnavailable),
        (504, "", .upstreamTimeout),
        (418, "", .rejected),
    ]

    @Test("each Alpaca error maps to one GatewayError code", arguments: rows)
    func row(_ row: (status: Int, body: String, code: GatewayError.Code)) {
        let error = AlpacaErrors.error(for: BrokerResponse(status: row.status, body: Data(row.body.utf8)), now: Date())
        #expect(error.code == row.code)
        #expect(error.broker == .alpaca)
        #expect(error.retryable == [.rateLimited, .upstreamTimeout, .upstreamUnavailable].contains(row.code))
    }

    @Test("the broker's code is kept for diagnosis")
    func brokerCode() {
        let error = AlpacaErrors.error(
            for: BrokerResponse(status: 403, body: Data(#"{"code":40310000,"message":"insufficient buying power"}"#.utf8)),
            now: Date()
        )
        #expect(error.brokerCode == "40310000")
        #expect(error.message == "Alpaca: insufficient buying power")
    }

    @Test("429 waits Retry-After seconds, else until X-RateLimit-Reset")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_679_411_600)
        let reset = BrokerResponse(status: 429, headers: [("X-RateLimit-Reset", "1679411617")], body: Data())
        #expect(AlpacaErrors.error(for: reset, now: now).retryAfter == 17)
        let both = BrokerResponse(
            status: 429,
            headers: [("Retry-After", "3"), ("X-RateLimit-Reset", "1679411617")],
            body: Data()
        )
        #expect(AlpacaErrors.error(for: both, now: now).retryAfter == 3)
        let past = BrokerResponse(status: 429, headers: [("x-ratelimit-reset", "1679411000")], body: Data())
        #expect(AlpacaErrors.error(for: past, now: now).retryAfter == 0)
        #expect(AlpacaErrors.error(for: BrokerResponse(status: 429), now: now).retryAfter == nil)
    }

    @Test("a 2xx body that is not JSON is malformed_response")
    func notJSON() async throws {
        let adapter = try makeAdapter(queued([(200, "<html>maintenance</html>")]))
        let error = await #expect(throws: GatewayError.self) { try await adapter.accounts() }
        #expect(error?.code == .malformedResponse)
    }

    @Test("secrets appear in no error and no log line")
    func noSecrets() async throws {
        // Every line, to prove secrets never reach them.
        let (logger, log) = LogCapture.logger()
        // The call log line is the pipeline's (every adapter's calls go through it in production).
        let transport = BrokerPipeline().transport(
            wrapping: queued([(401, #"{"message": "unauthorized."}"#)]),
            connection: ConnectionDescriptor(
                id: "conn-1",
                tenantId: "t",
                broker: .alpaca,
                displayName: "test",
                baseURL: "https://broker.test",
                createdAt: Date(),
                updatedAt: Date()
            ),
            limits: [],
            logger: logger
        )
        let adapter = try makeAdapter(transport, logger: logger)
        let error = await #expect(throws: GatewayError.self) { try await adapter.validateCredentials() }
        let texts =
            [error?.description ?? "", error?.message ?? "", "\(String(describing: error))"]
            + log.lines
        #expect(!log.lines.isEmpty)
        for text in texts {
            #expect(!text.contains("SUPERSECRETVALUE"))
            #expect(!text.contains("PKTESTKEY"))
        }
    }

    @Test("validating a key of the other environment (403) is unauthorized")
    func forbiddenIsUnauthorizedWhenValidating() async throws {
        let adapter = try makeAdapter(queued([(403, #"{"code":40310000,"message":"forbidden"}"#)]))
        let error = await #expect(throws: GatewayError.self) { try await adapter.validateCredentials() }
        #expect(error?.code == .unauthorized)
    }
}

@Suite("Alpaca rules checked before sending")
struct RulesTests {
    static let refused: [(OrderRequest, String)] = [
        (orderRequest("BTC/USD", tif: .day, limit: 20000), "timeInForce"),
        (orderRequest("BTC/USD", type: .stop, tif: .gtc, limit: nil, stop: 20000), "type"),
        (orderRequest("BTC/USD", side: .sellShort, tif: .gtc, limit: 20000), "side"),
        (orderRequest("AAPL", tif: .gtd), "timeInForce"),
        (orderRequest("AAPL", limit: DecimalText.parse("10.123")), "limitPrice"),
        (orderRequest("PENNY", limit: DecimalText.parse("0.12345")), "limitPrice"),
        (orderRequest("AAPL", tif: .gtc, quantity: DecimalText.parse("0.5")!), "timeInForce"),
        (orderRequest("EUR/USD", tif: .day), "assetClass"),
        (orderRequest("AAPL", quantity: 0), "quantity"),
    ]

    @Test("a request breaking a known rule is unprocessable and nothing is sent", arguments: refused)
    func refusedBeforeSending(_ request: OrderRequest, _ field: String) async throws {
        let transport = queued([])
        let adapter = try makeAdapter(transport)
        let error = await #expect(throws: GatewayError.self) { try await adapter.placeOrder(request) }
        #expect(error?.code == .unprocessable)
        #expect(error?.details.contains { $0.field == field } == true, "\(error?.details ?? [])")
        #expect(transport.requests.isEmpty)
    }

    @Test(
        "accepted requests",
        arguments: [
            orderRequest("BTC/USD", tif: .gtc, quantity: DecimalText.parse("0.001")!, limit: 20000),
            orderRequest("BTC/USD", type: .market, tif: .ioc, limit: nil),
            orderRequest("AAPL", type: .market, quantity: DecimalText.parse("0.5")!, limit: nil),
            orderRequest("AAPL", limit: DecimalText.parse("10.12")),
            orderRequest("PENNY", limit: DecimalText.parse("0.1234")),
            orderRequest("TSLA", side: .sellShort, type: .stopLimit, tif: .gtc, limit: 240, stop: 245),
        ]
    )
    func accepted(_ request: OrderRequest) {
        #expect(AlpacaRules.problems(for: request).isEmpty)
    }

    @Test("the order body: strings for decimals, Alpaca sides, the client order id")
    func placeBody() async throws {
        let transport = queued([(200, accountJSON), (200, orderJSON(side: "sell", type: "stop_limit", tif: "gtc", symbol: "TSLA"))])
        let adapter = try makeAdapter(transport)
        let order = try await adapter.placeOrder(
            orderRequest(
                "TSLA",
                side: .sellShort,
                type: .stopLimit,
                tif: .gtc,
                quantity: 3,
                limit: 240,
                stop: DecimalText.parse("245.50"),
                clientOrderId: "gw-123"
            )
        )
        #expect(order.accountId == accountId)
        let post = try #require(transport.requests.last)
        #expect(post.method == .post)
        #expect(post.url == "https://paper-api.alpaca.markets/v2/orders")
        #expect(post.header("Content-Type") == "application/json")
        let body = try JSONSerialization.jsonObject(with: try #require(post.body)) as? [String: String]
        #expect(
            body == [
                "symbol": "TSLA", "qty": "3", "side": "sell", "type": "stop_limit", "time_in_force": "gtc",
                "limit_price": "240", "stop_price": "245.5", "client_order_id": "gw-123",
            ]
        )
    }

    @Test("an account id that is not this connection's is not_found")
    func otherAccount() async throws {
        let adapter = try makeAdapter(queued([(200, accountJSON)]))
        let error = await #expect(throws: GatewayError.self) { try await adapter.positions(accountId: "someone-else") }
        #expect(error?.code == .notFound)
    }

    @Test("the account id is read once per adapter")
    func accountIdCached() async throws {
        let transport = queued([(200, accountJSON), (200, "[]"), (200, "[]")])
        let adapter = try makeAdapter(transport)
        _ = try await adapter.positions(accountId: nil)
        _ = try await adapter.positions(accountId: accountId)
        #expect(transport.requests.map(\.url).filter { $0.hasSuffix("/v2/account") }.count == 1)
    }

    @Test("modify refuses what Alpaca cannot replace")
    func modifyRules() async throws {
        let order = try Order(alpaca: try wire(AlpacaOrder.self, orderJSON(type: "limit")), connectionId: "conn-1", accountId: accountId)
        let transport = queued([])
        let adapter = try makeAdapter(transport)
        for modification in [
            OrderModification(type: .market), OrderModification(timeInForce: .gtd), OrderModification(stopPrice: 5),
            OrderModification(), OrderModification(limitPrice: DecimalText.parse("10.001")),
        ] {
            let error = await #expect(throws: GatewayError.self) { try await adapter.modifyOrder(order, modification) }
            #expect(error?.code == .unprocessable)
        }
        #expect(transport.requests.isEmpty)
    }

    @Test("a 422 on replace of a finished order is a conflict naming its state; of a live one, the broker's verdict")
    func modify422() async throws {
        let order = try Order(alpaca: try wire(AlpacaOrder.self, orderJSON(type: "limit")), connectionId: "conn-1", accountId: accountId)
        let filled = queued([
            (422, #"{"code":42210000,"message":"order is already in \"filled\" state"}"#), (200, orderJSON(status: "filled", type: "limit")),
        ])
        let first = await #expect(throws: GatewayError.self) {
            try await makeAdapter(filled).modifyOrder(order, OrderModification(limitPrice: 11))
        }
        #expect(first?.code == .conflict)
        #expect(first?.message.contains("filled") == true)
        let live = queued([
            (422, #"{"code":42210000,"message":"limit price too far"}"#), (200, orderJSON(status: "new", type: "limit")),
        ])
        let second = await #expect(throws: GatewayError.self) {
            try await makeAdapter(live).modifyOrder(order, OrderModification(limitPrice: 11))
        }
        #expect(second?.code == .unprocessable)
        #expect(live.requests.first?.method == .patch)
        let body = try JSONSerialization.jsonObject(with: try #require(live.requests.first?.body)) as? [String: String]
        #expect(body == ["limit_price": "11"])
    }
}

@Suite("Alpaca reads")
struct ReadTests {
    @Test("watchlists without assets are each read, in order, concurrently")
    func watchlists() async throws {
        let summaries = """
            [{"id": "w1", "name": "one", "created_at": "2022-05-20T16:17:30Z", "updated_at": "2022-05-20T16:17:30Z"},
             {"id": "w2", "name": "two", "created_at": "2022-05-20T16:17:30Z", "updated_at": "2022-05-20T16:17:30Z"}]
            """
        func detail(_ id: String, _ symbol: String) -> String {
            """
            {"id": "\(id)", "name": "\(id)-detail", "assets": [{"id": "a-\(symbol)", "class": "us_equity", "exchange": "NYSE", "symbol": "\(symbol)"}]}
            """
        }
        let transport = ScriptedTransport()
            .on("GET /v2/watchlists", answers: [ScriptedTransport.text(200, summaries)])
            .on("GET /v2/watchlists/w1", answers: [ScriptedTransport.text(200, detail("w1", "IBM"))])
            .on("GET /v2/watchlists/w2", answers: [ScriptedTransport.text(200, detail("w2", "KO"))])
        let adapter = try makeAdapter(transport)
        let lists = try await adapter.watchlists()
        #expect(lists.map(\.id) == ["w1", "w2"])
        #expect(lists.map { $0.instruments.map(\.symbol) } == [["IBM"], ["KO"]])
        #expect(lists.first?.instruments.first?.exchange == "XNYS")
        #expect(lists.allSatisfy { $0.connectionId == "conn-1" })
    }

    @Test("crypto quotes come from the v1beta3 crypto endpoints")
    func cryptoQuotes() async throws {
        let quotes = #"{"quotes": {"BTC/USD": {"ap": 69684.9, "as": 0.682, "bp": 69625.1, "bs": 0.675524, "t": "2024-11-02T02:00:19.31973121Z"}}}"#
        let trades =
            #"{"trades": {"BTC/USD": {"i": 7446469938634049684, "p": 69526.91, "s": 0.001, "t": "2024-11-02T01:21:49.863844274Z", "tks": "B"}}}"#
        let router = ScriptedTransport()
            .on("GET /v1beta3/crypto/us/latest/quotes", answers: [ScriptedTransport.text(200, quotes)])
            .on("GET /v1beta3/crypto/us/latest/trades", answers: [ScriptedTransport.text(200, trades)])
        let adapter = try makeAdapter(router)
        let answered = try await adapter.quotes([InstrumentReference(symbol: "BTC/USD")])
        #expect(
            router.requests.map(\.url).sorted() == [
                "https://data.alpaca.markets/v1beta3/crypto/us/latest/quotes?symbols=BTC%2FUSD",
                "https://data.alpaca.markets/v1beta3/crypto/us/latest/trades?symbols=BTC%2FUSD",
            ]
        )
        let quote = try #require(answered.first)
        #expect(quote.instrument == Instrument(symbol: "BTC/USD", assetClass: .crypto))
        #expect(quote.bid == DecimalText.parse("69625.1"))
        #expect(quote.ask == DecimalText.parse("69684.9"))
        #expect(quote.last == DecimalText.parse("69526.91"))
    }

    @Test("quotes refuse asset classes Alpaca has no data for")
    func unsupportedQuotes() async throws {
        let transport = queued([])
        let error = await #expect(throws: GatewayError.self) {
            try await makeAdapter(transport).quotes([InstrumentReference(symbol: "EUR/USD")])
        }
        #expect(error?.code == .unprocessable)
        #expect(transport.requests.isEmpty)
    }

    @Test("search ranks exact symbol, then symbol prefix, then name words; bounded")
    func searchRanking() throws {
        let assets = try wire(
            [AlpacaAsset].self,
            """
            [{"id": "1", "class": "us_equity", "symbol": "AAPLW", "name": "Something"},
             {"id": "2", "class": "us_equity", "symbol": "XYZ", "name": "Aapl Holdings"},
             {"id": "3", "class": "us_equity", "symbol": "AAPL", "name": "Apple Inc."},
             {"id": "4", "class": "us_equity", "symbol": "MSFT", "name": "Microsoft"}]
            """
        )
        #expect(AlpacaSearch.rank(assets, needle: "AAPL", limit: 10).map(\.symbol) == ["AAPL", "AAPLW", "XYZ"])
        #expect(AlpacaSearch.rank(assets, needle: "AAPL", limit: 1).map(\.symbol) == ["AAPL"])
        #expect(AlpacaSearch.rank(assets, needle: "APPLE", limit: 10).map(\.symbol) == ["AAPL"])
        let crypto = try wire([AlpacaAsset].self, #"[{"id": "1", "class": "crypto", "symbol": "BTC/USD", "name": "Bitcoin"}]"#)
        #expect(AlpacaSearch.rank(crypto, needle: "BTCUSD", limit: 10).count == 1)
        #expect(AlpacaSearch.rank(crypto, needle: "BTC/", limit: 10).count == 1)
    }

    @Test("search for a class Alpaca does not list sends nothing")
    func searchOtherClass() async throws {
        let transport = queued([])
        #expect(try await makeAdapter(transport).searchInstruments("EUR", assetClass: .fx).isEmpty)
        #expect(transport.requests.isEmpty)
    }

    @Test("preview keeps going without market data, with a warning")
    func previewWithoutData() async throws {
        let noData = ScriptedTransport { _ in
            ScriptedTransport.text(403, #"{"message": "subscription does not permit querying recent SIP data"}"#)
        }
        .on("GET /v2/account", answers: [ScriptedTransport.text(200, accountJSON)])
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let adapter = try makeAdapter(noData, now: { now })
        let preview = try await adapter.previewOrder(orderRequest("AAPL", type: .market, limit: nil))
        #expect(preview.estimatedPrice == nil)
        #expect(preview.estimatedCost == nil)
        #expect(preview.warnings.count == 2)
        #expect(preview.expiresAt == now.addingTimeInterval(300))
        let limited = try await adapter.previewOrder(orderRequest("AAPL", quantity: 200, limit: 10))
        #expect(limited.estimatedCost == 2000)
        #expect(limited.buyingPowerAfter == -1000)
        #expect(limited.warnings.contains("the estimated cost exceeds the buying power"))
    }

    @Test("cancel reads the order back after the 204")
    func cancelReadsBack() async throws {
        let transport = queued([(204, ""), (200, orderJSON(status: "pending_cancel"))])
        let order = try Order(alpaca: try wire(AlpacaOrder.self, orderJSON()), connectionId: "conn-1", accountId: accountId)
        let canceled = try await makeAdapter(transport).cancelOrder(order)
        #expect(canceled.status == .pendingCancel)
        #expect(transport.requests.map(\.method.rawValue) == ["DELETE", "GET"])
    }

    @Test("orders query: status, bounded limit, RFC 3339 bounds, crypto symbols")
    func ordersQuery() async throws {
        let transport = queued([(200, accountJSON), (200, "[]")])
        _ = try await makeAdapter(transport).orders(
            OrderQuery(
                state: .all,
                symbols: ["BTC/USD", "AAPL"],
                limit: 10_000,
                after: Date(timeIntervalSince1970: 1_704_067_200),
                until: Date(timeIntervalSince1970: 1_704_153_600)
            )
        )
        #expect(
            transport.requests.last?.url
                == "https://paper-api.alpaca.markets/v2/orders?status=all&limit=500&direction=desc&after=2024-01-01T00%3A00%3A00Z&until=2024-01-02T00%3A00%3A00Z&symbols=BTC%2FUSD%2CAAPL"
        )
    }
}
