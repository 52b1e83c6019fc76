import AsyncHTTPClient
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import LogCapture
import Sandbox
import TestWorlds
import Testing

@testable import SaxoAdapter

/// The adapter against the running Saxo sandbox: reads, the seed's order flow, and the token lifecycle with the
/// sandbox's short token lifetime and a manual clock shared by both sides.
@Suite("Saxo adapter against the running sandbox", .heavyWorld)
struct SandboxEndToEndTests {
    static let appCredentials = [
        "appKey": SaxoSandboxConfiguration.demoAppKey, "appSecret": SaxoSandboxConfiguration.demoAppSecret,
    ]

    /// An adapter for the sandbox at `url`, starting from a token pair the sandbox issued.
    static func adapter(
        _ sandbox: SaxoSandbox,
        url: URL,
        clock: ManualClock,
        saved: SavedState = SavedState(),
        refreshMargin: TimeInterval? = nil,
        logs: LogCapture = LogCapture()
    ) throws -> SaxoAdapter {
        let pair = sandbox.issueTokens()
        var credentials = appCredentials
        credentials["refreshToken"] = pair.refreshToken
        credentials["accessToken"] = pair.accessToken
        credentials["accessTokenExpiresAt"] = SaxoTimestamp.format(clock.now().addingTimeInterval(TimeInterval(pair.expiresIn)))
        // Through the pipeline, as in production: it writes the call log lines.
        let transport = BrokerPipeline().transport(
            wrapping: HTTPClientTransport.loopbackForTests,
            connection: ConnectionDescriptor(
                id: "conn-1",
                tenantId: "t",
                broker: .saxo,
                displayName: "saxo",
                baseURL: url.absoluteString,
                createdAt: Date(),
                updatedAt: Date()
            ),
            limits: SaxoAdapterFactory().rateLimits,
            logger: logs.logger(label: "saxo-test")
        )
        return try Fixture.adapter(
            transport: transport,
            credentials: credentials,
            saved: saved,
            logs: logs,
            baseURL: url.absoluteString + "/sim/openapi",
            now: { clock.now() },
            refreshMargin: refreshMargin
        )
    }

    @Test("reads: user, client, accounts, balances, quotes, search, candles, watchlists")
    func reads() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let adapter = try Self.adapter(sandbox, url: url, clock: clock)
            try await adapter.validateCredentials()
            #expect(try await adapter.clients().first?.id == Fixture.clientKey)
            let accounts = try await adapter.accounts()
            #expect(accounts.map(\.id) == ["9226397"])
            #expect(accounts.first?.brokerKey == Fixture.clientKey)
            let balances = try await adapter.balances(accountId: nil)
            #expect(!balances.isEmpty)
            for balance in balances { #expect(balance.available + balance.held == balance.total) }
            let quotes = try await adapter.quotes([InstrumentReference(symbol: "EUR/USD"), InstrumentReference(symbol: "AAPL")])
            #expect(quotes.map(\.instrument.symbol) == ["EUR/USD", "AAPL"])
            for quote in quotes { #expect(quote.bid != nil && quote.ask != nil) }
            #expect(quotes.last?.instrument.exchange == "XNAS")
            let found = try await adapter.searchInstruments("EURUSD", assetClass: .fx)
            #expect(found.contains { $0.symbol == "EUR/USD" && $0.brokerKey?["uic"] == "21" })
            let series = try await adapter.candles(InstrumentReference(symbol: "EUR/USD"), interval: .oneHour, count: 10)
            #expect(!series.candles.isEmpty && series.candles.count <= 10)
            #expect(series.candles.map(\.time) == series.candles.map(\.time).sorted())
            // The sandbox serves the seed's (undocumented) watchlist resource.
            let lists = try await adapter.watchlists()
            #expect(lists.map(\.name) == ["FxSpot", "Stocks"])
            #expect(lists.first?.instruments.first == Instrument(symbol: "EUR/DKK", assetClass: .fx))
            #expect(lists.last?.instruments.contains(Instrument(symbol: "AAPL", assetClass: .equity)) == true)
        }
    }

    @Test("the seed's flow: limit order, change its price, change it to market (it fills), then a cancel and its conflict")
    func seedFlow() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let adapter = try Self.adapter(sandbox, url: url, clock: clock)
            let request = OrderRequest(
                connectionId: "conn-1",
                accountId: "9226397",
                instrument: InstrumentReference(symbol: "EUR/DKK"),
                side: .buy,
                type: .limit,
                timeInForce: .gtc,
                quantity: 100_000,
                limitPrice: 7,
                clientOrderId: "gw-seed-1"
            )
            let preview = try await adapter.previewOrder(request)
            #expect(preview.estimatedCost != nil || !preview.warnings.isEmpty)

            let placed = try await adapter.placeOrder(request)
            #expect(placed.status == .open)
            #expect(placed.clientOrderId == "gw-seed-1")
            #expect(placed.instrument == Instrument(symbol: "EUR/DKK", assetClass: .fx))
            #expect(try await adapter.order(clientOrderId: "gw-seed-1", accountId: "9226397")?.brokerOrderId == placed.brokerOrderId)
            #expect(try await adapter.orders(OrderQuery()).contains { $0.brokerOrderId == placed.brokerOrderId })

            let repriced = try await adapter.modifyOrder(placed, OrderModification(limitPrice: Decimal(string: "6.9")))
            #expect(repriced.limitPrice == Decimal(string: "6.9"))
            #expect(repriced.status == .open)

            clock.advance(by: 16)  // past the duplicate window, in case the sandbox counts changes
            let filled = try await adapter.modifyOrder(repriced, OrderModification(timeInForce: .ioc, type: .market))
            #expect(filled.status == .filled)
            let positions = try await adapter.positions(accountId: nil)
            #expect(positions.contains { $0.instrument.symbol == "EUR/DKK" && $0.quantity == 100_000 })

            // Gone from the open orders, still readable from the audit, as it ended.
            let ended = try await adapter.order(brokerOrderId: placed.brokerOrderId!)
            #expect(ended.status == .filled && ended.filledQuantity == 100_000 && ended.averageFillPrice != nil)

            let second = try await adapter.placeOrder(
                OrderRequest(
                    connectionId: "conn-1",
                    accountId: "9226397",
                    instrument: InstrumentReference(symbol: "GBP/USD"),
                    side: .buy,
                    type: .limit,
                    timeInForce: .day,
                    quantity: 10_000,
                    limitPrice: Decimal(string: "1.1"),
                    clientOrderId: "gw-seed-2"
                )
            )
            let canceled = try await adapter.cancelOrder(second)
            #expect(canceled.status == .canceled)
            let again = await #expect(throws: GatewayError.self) { try await adapter.cancelOrder(second) }
            #expect(again?.code == .conflict)
        }
    }

    @Test("an identical placement within 15 s with the same client order id is refused as conflict")
    func duplicatePlacement() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let adapter = try Self.adapter(sandbox, url: url, clock: clock)
            let request = OrderRequest(
                connectionId: "conn-1",
                accountId: "9226397",
                instrument: InstrumentReference(symbol: "GBP/USD"),
                side: .buy,
                type: .limit,
                timeInForce: .gtc,
                quantity: 10_000,
                limitPrice: Decimal(string: "1.1"),
                clientOrderId: "gw-dup-1"
            )
            _ = try await adapter.placeOrder(request)
            let duplicate = await #expect(throws: GatewayError.self) { try await adapter.placeOrder(request) }
            #expect(duplicate?.code == .conflict)
        }
    }

    @Test("an access token expiring mid-use is refreshed before it lapses, without the caller noticing (sandbox, 120 s tokens)")
    func expiryMidUse() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock, accessTokenLifetime: 120)
        try await withSandbox(sandbox) { url in
            let saved = SavedState()
            let adapter = try Self.adapter(sandbox, url: url, clock: clock, saved: saved)
            for _ in 0..<12 {
                _ = try await adapter.balances(accountId: nil)
                clock.advance(by: 50)
            }
            let rotated = saved.savedCredentials.compactMap { $0["refreshToken"] }
            #expect(rotated.count >= 4)
            #expect(Set(rotated).count == rotated.count)  // a new refresh token each time
        }
    }

    @Test("a token that lapses between calls is refreshed after the sandbox's 401, invisibly (no early refresh)")
    func expiryAnsweredWith401() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock, accessTokenLifetime: 120)
        try await withSandbox(sandbox) { url in
            let saved = SavedState()
            let logs = LogCapture()
            // Margin 0 and a clock that jumps past expiry: the adapter still believes the token valid, the sandbox does not.
            let adapter = try Self.adapter(sandbox, url: url, clock: clock, saved: saved, refreshMargin: -3600, logs: logs)
            _ = try await adapter.accounts()
            clock.advance(by: 600)
            _ = try await adapter.accounts()
            #expect(saved.savedCredentials.count == 1)
            #expect(!logs.lines(containing: "status=401").isEmpty)
        }
    }

    @Test("a refresh token the sandbox does not know marks the connection relink_required")
    func deadRefreshToken() async throws {
        let clock = ManualClock()
        let sandbox = recordedIdentitySandbox(clock: clock)
        try await withSandbox(sandbox) { url in
            let saved = SavedState()
            var credentials = Self.appCredentials
            credentials["refreshToken"] = "not-a-refresh-token"
            let adapter = try Fixture.adapter(
                transport: HTTPClientTransport.loopbackForTests,
                credentials: credentials,
                saved: saved,
                baseURL: url.absoluteString + "/sim/openapi",
                now: { clock.now() }
            )
            let error = await #expect(throws: GatewayError.self) { try await adapter.validateCredentials() }
            #expect(error?.code == .unauthorized)
            #expect(saved.savedStatuses.first?.0 == .relinkRequired)
        }
    }
}
