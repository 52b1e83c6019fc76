import AlpacaAdapter
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Sandbox
import SaxoAdapter
import TestWorlds
import Testing
import TradeItAdapter
import TradeOgreAdapter

/// The conformance kit's suite (GatewayTesting's `ConformanceSuite`) run as an adapter author runs it: against each
/// built-in factory and its simulator, every check passing; and against a misbehaving adapter, whose report names
/// the checks it fails.
@Suite("Conformance suite", .heavyWorld)
struct ConformanceSuiteTests {
    /// A market on a manual clock (its default start is a weekday in trading hours) with `prices` pinned.
    static func market(_ prices: [String: Decimal]) throws -> MarketEngine {
        let market = MarketEngine(clock: ManualClock())
        for (symbol, price) in prices { try market.setPriceOverride(price, for: symbol) }
        return market
    }

    @Test("Alpaca passes every check")
    func alpaca() async throws {
        let sandbox = AlpacaSandbox(market: try Self.market(["BTC/USD": 60000]))
        try await withSandbox(sandbox) { url in
            let target = ConformanceTarget(
                baseURL: url.absoluteString,
                credentials: BrokerCredentials([
                    "keyId": AlpacaSandboxAccount.demoKeyID, "secretKey": AlpacaSandboxAccount.demoSecretKey,
                ]),
                instrument: InstrumentReference(symbol: "BTC/USD"),
                searchText: "BTC",
                restingOrder: ConformanceOrder(
                    side: .buy,
                    quantity: Decimal(string: "0.001")!,
                    limitPrice: 30000,
                    timeInForce: .gtc,
                    modification: OrderModification(limitPrice: 29000)
                )
            )
            let report = await ConformanceSuite(factory: AlpacaAdapterFactory(), target: target).run()
            #expect(report.passed, "\(report)")
        }
    }

    @Test("Saxo passes every check")
    func saxo() async throws {
        let sandbox = SaxoSandbox(
            configuration: SaxoSandboxConfiguration(sessionOrdersPerSecond: nil),
            market: try Self.market(["EUR/DKK": Decimal(string: "7.46")!])
        )
        try await withSandbox(sandbox) { url in
            let target = ConformanceTarget(
                baseURL: url.absoluteString + "/sim/openapi",
                credentials: BrokerCredentials([
                    "appKey": SaxoSandboxConfiguration.demoAppKey, "appSecret": SaxoSandboxConfiguration.demoAppSecret,
                    "refreshToken": SaxoSandboxConfiguration.demoBootstrapRefreshToken,
                ]),
                instrument: InstrumentReference(symbol: "EUR/DKK"),
                searchText: "EUR",
                restingOrder: ConformanceOrder(
                    side: .buy,
                    quantity: 100_000,
                    limitPrice: 5,
                    timeInForce: .gtc,
                    modification: OrderModification(limitPrice: Decimal(string: "4.5")!)
                ),
                unknownOrderId: "99999999"
            )
            let report = await ConformanceSuite(factory: SaxoAdapterFactory(), target: target).run()
            #expect(report.passed, "\(report)")
        }
    }

    @Test("TradeIt passes every check")
    func tradeIt() async throws {
        let sandbox = TradeItSandbox(market: try Self.market(["AAPL": 200]))
        let user = sandbox.link(.dummy)
        try await withSandbox(sandbox) { url in
            let target = ConformanceTarget(
                baseURL: url.absoluteString,
                credentials: BrokerCredentials([
                    "apiKey": TradeItSandboxConfiguration.demoAPIKey, "userId": user.userId, "userToken": user.userToken,
                ]),
                settings: ["brokerShortName": "Dummy"],
                instrument: InstrumentReference(symbol: "AAPL"),
                restingOrder: ConformanceOrder(
                    side: .buy,
                    quantity: 1,
                    limitPrice: 100,
                    timeInForce: .gtc,
                    modification: OrderModification(limitPrice: 90)
                )
            )
            let report = await ConformanceSuite(factory: TradeItAdapterFactory(), target: target).run()
            #expect(report.passed, "\(report)")
        }
    }

    @Test("TradeOgre passes every check")
    func tradeOgre() async throws {
        try await withSandbox(Self.tradeOgreSandbox()) { url in
            let report = await ConformanceSuite(factory: TradeOgreAdapterFactory(), target: Self.tradeOgreTarget(url)).run()
            #expect(report.passed, "\(report)")
        }
    }

    @Test("an adapter that maps a 5xx wrongly and answers an operation it does not declare fails those checks, by name")
    func misbehavingAdapterFails() async throws {
        try await withSandbox(Self.tradeOgreSandbox()) { url in
            let report = await ConformanceSuite(factory: MisbehavingFactory(), target: Self.tradeOgreTarget(url)).run()
            #expect(!report.passed)
            #expect(Set(report.failures.map(\.name)) == ["unsupported.candles", "errors.http500", "errors.http503"], "\(report)")
            #expect(report.check(named: "unsupported.candles")?.reason.contains("not declared, yet it answered") == true)
            #expect(report.check(named: "errors.http503")?.reason.contains("not upstream_unavailable") == true)
            // The rest of the adapter is TradeOgre's own, and passes.
            #expect(report.check(named: "placeOrder")?.passed == true, "\(report)")
            #expect(report.check(named: "egress.refused")?.passed == true, "\(report)")
            let failure = #expect(throws: ConformanceFailure.self) { try report.requireAllPassed() }
            #expect(failure?.description.contains("FAIL errors.http503") == true)
            #expect(failure?.description.contains("PASS") == false)
        }
    }

    @Test("an adapter that sends around the context's transport fails egress.refused (and errors.timeout)")
    func egressBypassFails() async throws {
        try await withSandbox(Self.tradeOgreSandbox()) { url in
            let report = await ConformanceSuite(factory: EgressBypassingFactory(), target: Self.tradeOgreTarget(url)).run()
            // Its calls escape the suite's transport too, so they keep their own 10 s timeout: errors.timeout fails.
            #expect(report.failures.map(\.name) == ["errors.timeout", "egress.refused"], "\(report)")
            #expect(report.check(named: "egress.refused")?.reason.contains("the simulator received") == true, "\(report)")
        }
    }

    static func tradeOgreSandbox() throws -> TradeOgreSandbox {
        // No seeded trades: TradeOgre's price is its last trade, and with none it is the market's (pinned) one.
        TradeOgreSandbox(
            configuration: TradeOgreSandboxConfiguration(seededTrades: 0),
            market: try market(["XMR/BTC": Decimal(string: "0.005")!])
        )
    }

    static func tradeOgreTarget(_ url: URL) -> ConformanceTarget {
        ConformanceTarget(
            baseURL: url.absoluteString + "/api/v1",
            credentials: BrokerCredentials([
                "apiKey": TradeOgreSandboxAccount.demoAPIKey, "apiSecret": TradeOgreSandboxAccount.demoAPISecret,
            ]),
            instrument: InstrumentReference(symbol: "XMR/BTC"),
            searchText: "monero",
            restingOrder: ConformanceOrder(
                side: .buy,
                quantity: 1,
                limitPrice: Decimal(string: "0.0025")!,
                timeInForce: .gtc,
                modification: OrderModification(limitPrice: Decimal(string: "0.002")!)
            )
        )
    }
}

/// TradeOgre's factory with two faults an author could make: candles are left out of the declaration though the
/// adapter still answers them, and a broker's 5xx (`upstream_unavailable`) is reported as `malformed_response`.
struct MisbehavingFactory: BrokerAdapterFactory {
    let real = TradeOgreAdapterFactory()
    var kind: BrokerKind { real.kind }
    var displayName: String { "Misbehaving TradeOgre" }
    var capabilities: Capabilities {
        var declared = real.capabilities
        declared.operations[.candles] = .unsupported
        return declared
    }
    var credentialKeys: [String] { real.credentialKeys }
    var knownBaseURLs: [String: String] { [:] }
    var rateLimits: [RateLimitRule] { [] }

    func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        MisbehavingAdapter(real: try real.makeAdapter(context), capabilities: capabilities)
    }
}

/// Forwards to the real adapter, turning `upstream_unavailable` into `malformed_response`.
struct MisbehavingAdapter: BrokerAdapter {
    let real: any BrokerAdapter
    let capabilities: Capabilities
    var kind: BrokerKind { real.kind }

    func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as GatewayError where error.code == .upstreamUnavailable {
            throw GatewayError(.malformedResponse, "the broker answered something unreadable", broker: kind)
        }
    }

    func validateCredentials() async throws { try await mapped { try await real.validateCredentials() } }
    func clients() async throws -> [Client] { try await mapped { try await real.clients() } }
    func accounts() async throws -> [Account] { try await mapped { try await real.accounts() } }
    func balances(accountId: String?) async throws -> [Balance] { try await mapped { try await real.balances(accountId: accountId) } }
    func positions(accountId: String?) async throws -> [Position] { try await mapped { try await real.positions(accountId: accountId) } }
    func watchlists() async throws -> [Watchlist] { try await real.watchlists() }
    func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist {
        try await real.createWatchlist(name: name, instruments: instruments)
    }
    func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist {
        try await real.updateWatchlist(id: id, name: name, instruments: instruments)
    }
    func deleteWatchlist(id: String) async throws { try await real.deleteWatchlist(id: id) }
    func orders(_ query: OrderQuery) async throws -> [Order] { try await mapped { try await real.orders(query) } }
    func order(brokerOrderId: String) async throws -> Order { try await mapped { try await real.order(brokerOrderId: brokerOrderId) } }
    func order(clientOrderId: String, accountId: String) async throws -> Order? {
        try await mapped { try await real.order(clientOrderId: clientOrderId, accountId: accountId) }
    }
    func previewOrder(_ request: OrderRequest) async throws -> OrderPreview { try await mapped { try await real.previewOrder(request) } }
    func placeOrder(_ request: OrderRequest) async throws -> Order { try await mapped { try await real.placeOrder(request) } }
    func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order {
        try await mapped { try await real.modifyOrder(order, modification) }
    }
    func cancelOrder(_ order: Order) async throws -> Order { try await mapped { try await real.cancelOrder(order) } }
    func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote] { try await mapped { try await real.quotes(instruments) } }
    func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument] {
        try await mapped { try await real.searchInstruments(text, assetClass: assetClass) }
    }
    func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        try await real.candles(instrument, interval: interval, count: count)
    }
    func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook {
        try await mapped { try await real.orderBook(instrument, depth: depth) }
    }
}

/// TradeOgre's factory whose adapters send through a transport of their own (loopback allowed) instead of the
/// context's, so the gateway's egress policy never sees their calls.
struct EgressBypassingFactory: BrokerAdapterFactory {
    let real = TradeOgreAdapterFactory()
    var kind: BrokerKind { real.kind }
    var displayName: String { "Egress-bypassing TradeOgre" }
    var capabilities: Capabilities { real.capabilities }
    var credentialKeys: [String] { real.credentialKeys }
    var knownBaseURLs: [String: String] { [:] }
    var rateLimits: [RateLimitRule] { [] }

    func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        var own = context
        own.transport = HTTPClientTransport.loopbackForTests
        return try real.makeAdapter(own)
    }
}
