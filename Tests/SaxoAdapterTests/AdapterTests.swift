import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Synchronization
import Testing

@testable import SaxoAdapter

/// Adapter behaviour beyond the contract cases, against a scripted transport.
@Suite("Saxo adapter")
struct AdapterTests {
    static let credentials: [String: String] = {
        var values = Fixture.appCredentials
        values["accessToken"] = "access-1"
        values["accessTokenExpiresAt"] = "2099-01-01T00:00:00Z"
        return values
    }()

    /// Keys with every character that needs encoding in a query: `+`, `/`, `=`.
    static let accountsWithAwkwardKeys = #"""
        {"Data": [
          {"AccountId": "111", "AccountKey": "a+b/c==", "ClientKey": "k+/=", "Currency": "EUR", "Active": true, "AccountType": "Normal"},
          {"AccountId": "222", "AccountKey": "d+e/f==", "ClientKey": "k+/=", "Currency": "USD", "Active": true, "AccountType": "Normal"}]}
        """#

    @Test("ClientKey and AccountKey are percent-encoded; balances are read per account, concurrently")
    func balancesPerAccount() async throws {
        let transport = ScriptedTransport { request in
            let path = ScriptedTransport.path(of: request)
            if path.hasSuffix("/accounts/me") { return Fixture.json(Self.accountsWithAwkwardKeys) }
            if path.hasSuffix("/balances") {
                try await Task.sleep(for: .milliseconds(20))
                let usd = request.url.contains("AccountKey=d%2Be%2Ff%3D%3D")
                return Fixture.json(
                    usd ? #"{"CashBalance": 10, "Currency": "USD"}"# : #"{"CashBalance": 20.5, "CashBlocked": 0.5, "Currency": "EUR"}"#
                )
            }
            return BrokerResponse(status: 404)
        }
        let adapter = try Fixture.adapter(transport: transport, credentials: Self.credentials)
        let balances = try await adapter.balances(accountId: nil)
        #expect(balances.map(\.accountId) == ["111", "222"])
        #expect(balances.map(\.currency) == ["EUR", "USD"])
        #expect(balances[0].held == Decimal(string: "0.5"))
        let urls = transport.requests(path: "/sim/openapi/port/v1/balances").map(\.url)
        #expect(urls.contains { $0.contains("ClientKey=k%2B%2F%3D&AccountKey=a%2Bb%2Fc%3D%3D") })
        for url in urls { #expect(!url.contains("+") && !url.contains("==")) }

        let missing = await #expect(throws: GatewayError.self) { try await adapter.balances(accountId: "999") }
        #expect(missing?.code == .notFound)
    }

    @Test("an open order is found by its ExternalReference")
    func orderByClientOrderId() async throws {
        let transport = ScriptedTransport { request in
            let path = ScriptedTransport.path(of: request)
            if path.hasSuffix("/accounts/me") { return Fixture.json(Self.accountsWithAwkwardKeys) }
            if path.hasSuffix("/orders/me") {
                return Fixture.json(
                    #"""
                    {"Data": [
                      {"OrderId": "1", "AccountId": "111", "Uic": 21, "AssetType": "FxSpot", "BuySell": "Buy", "Amount": 1000, "OpenOrderType": "Limit", "Price": 1.1, "Duration": {"DurationType": "DayOrder"}, "Status": "Working", "DisplayAndFormat": {"Symbol": "EURUSD", "Currency": "USD"}},
                      {"OrderId": "2", "AccountId": "111", "Uic": 21, "AssetType": "FxSpot", "BuySell": "Sell", "Amount": 2000, "OpenOrderType": "Limit", "Price": 1.2, "Duration": {"DurationType": "DayOrder"}, "Status": "Working", "ExternalReference": "gw-42", "DisplayAndFormat": {"Symbol": "EURUSD", "Currency": "USD"}}]}
                    """#
                )
            }
            // Not open and not in the order activities either.
            if path.hasSuffix("/cs/v1/audit/orderactivities") { return Fixture.json(#"{"Data": []}"#) }
            return BrokerResponse(status: 404)
        }
        let adapter = try Fixture.adapter(transport: transport, credentials: Self.credentials)
        let found = try await adapter.order(clientOrderId: "gw-42", accountId: "111")
        #expect(found?.brokerOrderId == "2")
        #expect(found?.clientOrderId == "gw-42")
        #expect(found?.side == .sell)
        #expect(try await adapter.order(clientOrderId: "gw-42", accountId: "222") == nil)
        #expect(try await adapter.order(clientOrderId: "gw-none", accountId: "111") == nil)
    }

    @Test("orders without DisplayAndFormat are named through one ref/v1/instruments lookup per asset type")
    func orderInstrumentLookup() async throws {
        let transport = ScriptedTransport { request in
            let path = ScriptedTransport.path(of: request)
            if path.hasSuffix("/orders/me") {
                return Fixture.json(
                    #"""
                    {"Data": [
                      {"OrderId": "1", "AccountId": "111", "Uic": 16, "AssetType": "FxSpot", "BuySell": "Buy", "Amount": 1000, "OpenOrderType": "Market", "Duration": {"DurationType": "DayOrder"}, "Status": "Working"},
                      {"OrderId": "2", "AccountId": "111", "Uic": 31, "AssetType": "FxSpot", "BuySell": "Buy", "Amount": 1000, "OpenOrderType": "Market", "Duration": {"DurationType": "DayOrder"}, "Status": "Working"}]}
                    """#
                )
            }
            if path.hasSuffix("/ref/v1/instruments") {
                #expect(request.url.contains("Uics=16%2C31&AssetTypes=FxSpot"))
                return Fixture.json(
                    #"""
                    {"Data": [{"Identifier": 16, "AssetType": "FxSpot", "Symbol": "EURDKK", "CurrencyCode": "DKK", "Description": "Euro/Danish Krone"},
                              {"Identifier": 31, "AssetType": "FxSpot", "Symbol": "GBPUSD", "CurrencyCode": "USD"}]}
                    """#
                )
            }
            return BrokerResponse(status: 404)
        }
        let adapter = try Fixture.adapter(transport: transport, credentials: Self.credentials)
        let orders = try await adapter.orders(OrderQuery(state: .all))
        #expect(orders.map(\.instrument.symbol) == ["EUR/DKK", "GBP/USD"])
        _ = try await adapter.orders(OrderQuery(state: .open, symbols: ["GBP/USD"]))
        #expect(transport.requests(path: "/sim/openapi/ref/v1/instruments").count == 1)
        let closed = await #expect(throws: GatewayError.self) { try await adapter.orders(OrderQuery(state: .closed)) }
        #expect(closed?.code == .notSupported)
    }

    @Test("candles: chart/v3/charts UpTo now, FX as mids, oldest first")
    func candles() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport { request in
            let path = ScriptedTransport.path(of: request)
            if path.hasSuffix("/ref/v1/instruments") {
                return Fixture.json(
                    #"{"Data": [{"Identifier": 23, "AssetType": "FxSpot", "Symbol": "GBPCAD", "CurrencyCode": "CAD", "SummaryType": "Instrument"}]}"#
                )
            }
            if path.hasSuffix("/chart/v3/charts") {
                // hootnot/saxo_openapi chart/responses/charts.py _v3_GetChartData, first two samples (newest first here).
                return Fixture.json(
                    #"""
                    {"Data": [
                      {"CloseAsk": 1.63115, "CloseBid": 1.63035, "HighAsk": 1.63353, "HighBid": 1.63219, "LowAsk": 1.63092, "LowBid": 1.62988, "OpenAsk": 1.6321, "OpenBid": 1.6303, "Time": "2019-09-05T22:00:00.000000Z"},
                      {"CloseAsk": 1.6321, "CloseBid": 1.6302, "HighAsk": 1.633, "HighBid": 1.63091, "LowAsk": 1.6316, "LowBid": 1.62974, "OpenAsk": 1.63237, "OpenBid": 1.6306, "Time": "2019-09-05T21:00:00.000000Z"}],
                     "DataVersion": 1715815481}
                    """#
                )
            }
            return BrokerResponse(status: 404)
        }
        let adapter = try Fixture.adapter(transport: transport, credentials: Self.credentials, clock: clock)
        let series = try await adapter.candles(InstrumentReference(symbol: "GBP/CAD"), interval: .oneHour, count: 24)
        #expect(series.instrument.symbol == "GBP/CAD")
        #expect(series.candles.count == 2)
        #expect(series.candles.first?.time == Date(timeIntervalSince1970: 1_567_717_200))
        let chart = try #require(transport.requests(path: "/sim/openapi/chart/v3/charts").first)
        for part in ["AssetType=FxSpot", "Uic=23", "Horizon=60", "Count=24", "Mode=UpTo", "Time=2025-01-06T15%3A00%3A00.000Z"] {
            #expect(chart.url.contains(part), "\(chart.url)")
        }
        await #expect(throws: GatewayError.self) {
            _ = try await adapter.candles(InstrumentReference(symbol: "GBP/CAD"), interval: .oneHour, count: 5000)
        }
    }

    @Test("an access token expiring mid-use is replaced without the caller noticing (scripted Saxo, manual clock)")
    func expiryMidUse() async throws {
        let clock = TestClock()
        let saxo = TokenTests.FakeSaxo(expiresIn: 120)
        // The fake accepts only the newest token it issued: a refresh kills the previous one.
        let transport = ScriptedTransport { try await saxo.handle($0) }
        let saved = SavedState()
        let adapter = try Fixture.adapter(transport: transport, credentials: Fixture.appCredentials, clock: clock, saved: saved)
        for _ in 0..<10 {
            try await adapter.validateCredentials()
            clock.advance(45)
        }
        // 450 s with 120 s tokens refreshed 60 s early: a new token every 60 s of use.
        #expect(transport.tokenRequests.count >= 5)
        #expect(saved.savedCredentials.count == transport.tokenRequests.count)
        // Saxo revoking the current token early is handled by the 401 path, still invisibly.
        saxo.state.withLock { $0.currentAccess = "revoked" }
        try await adapter.validateCredentials()
    }

    @Test("watchlists: a 404 means no broker-side lists; writes are not supported")
    func watchlists() async throws {
        let transport = ScriptedTransport { _ in BrokerResponse(status: 404) }
        let adapter = try Fixture.adapter(transport: transport, credentials: Self.credentials)
        #expect(try await adapter.watchlists().isEmpty)
        let error = await #expect(throws: GatewayError.self) {
            _ = try await adapter.createWatchlist(name: "x", instruments: [])
        }
        #expect(error?.code == .notSupported)
        #expect(adapter.capabilities.support(for: .watchlists) == .supported)
        #expect(adapter.capabilities.support(for: .createWatchlist) == .unsupported)
    }

    @Test("a crypto order is refused before anything is sent")
    func unsupportedClass() async throws {
        let transport = ScriptedTransport { _ in BrokerResponse(status: 500) }
        let adapter = try Fixture.adapter(transport: transport, credentials: Self.credentials)
        let request = OrderRequest(
            connectionId: "conn-1",
            accountId: "111",
            instrument: InstrumentReference(symbol: "BTC/USD"),
            side: .buy,
            type: .market,
            timeInForce: .day,
            quantity: 1,
            clientOrderId: "gw-1"
        )
        let error = await #expect(throws: GatewayError.self) { _ = try await adapter.placeOrder(request) }
        #expect(error?.code == .unprocessable)
        #expect(transport.requests.isEmpty)
    }
}
