import AsyncHTTPClient
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import HTTPTypes
import Logging
import Sandbox
import Synchronization
import TestWorlds
import Testing
import TradeItAdapter

/// What the adapter saved through its context.
final class StatusLog: Sendable {
    let entries = Mutex<[(ConnectionStatus, [String: String]?)]>([])
    var last: (ConnectionStatus, [String: String]?)? { entries.withLock { $0.last } }
}

struct TradeItHarness {
    let sandbox: TradeItSandbox
    let clock: ManualClock
    let url: String

    func adapter(
        _ credentials: [String: String],
        transport: (any BrokerTransport)? = nil,
        status: StatusLog = StatusLog()
    ) throws -> TradeItAdapter {
        let connection = ConnectionDescriptor(
            id: "conn-ti",
            tenantId: "t",
            broker: .tradeit,
            displayName: "TradeIt sandbox",
            baseURL: url,
            createdAt: Date(),
            updatedAt: Date()
        )
        let context = AdapterContext(
            connection: connection,
            baseURL: url,
            credentials: BrokerCredentials(credentials),
            transport: transport ?? HTTPClientTransport.loopbackForTests,
            logger: Logger(label: "tradeit-test", factory: { _ in SwiftLogNoOpLogHandler() }),
            saveStatus: { value, detail in status.entries.withLock { $0.append((value, detail)) } }
        )
        return try #require(try TradeItAdapterFactory().makeAdapter(context) as? TradeItAdapter)
    }

    func linked(
        _ persona: TradeItPersona,
        transport: (any BrokerTransport)? = nil,
        status: StatusLog = StatusLog()
    ) throws
        -> (TradeItAdapter, userId: String)
    {
        let (userId, userToken) = sandbox.link(persona)
        let adapter = try adapter(
            ["apiKey": TradeItSandboxConfiguration.demoAPIKey, "userId": userId, "userToken": userToken],
            transport: transport,
            status: status
        )
        return (adapter, userId)
    }
}

func withTradeIt(
    sessionLifetime: TimeInterval = 60,
    pageSize: Int = 2,
    _ body: (TradeItHarness) async throws -> Void
) async throws {
    let clock = ManualClock()
    let market = MarketEngine(configuration: MarketConfiguration(seed: 11), clock: clock)
    let sandbox = TradeItSandbox(
        configuration: TradeItSandboxConfiguration(sessionLifetime: sessionLifetime, positionsPageSize: pageSize),
        market: market
    )
    try await withSandbox(sandbox) { url in
        try await body(TradeItHarness(sandbox: sandbox, clock: clock, url: url.absoluteString))
    }
}

/// Follows the popup: the login page (auto-login or the POSTed form) and the redirect's `oAuthVerifier`.
func verifier(fromRedirect response: BrokerResponse, callback: String) throws -> String {
    #expect(response.status == 302)
    let location = try #require(response.header("Location"))
    #expect(location.hasPrefix(callback + "?oAuthVerifier="))
    let components = try #require(URLComponents(string: location))
    return try #require(components.queryItems?.first { $0.name == "oAuthVerifier" }?.value)
}

@Suite("TradeIt adapter against the sandbox", .heavyWorld)
struct SandboxFlowTests {
    let callback = "myapp://completeOAuth"

    @Test("link: startLink → auto-login page → redirect with oAuthVerifier → completeLink → authenticated reads")
    func linkWithAutoLogin() async throws {
        try await withTradeIt { h in
            let unlinked = try h.adapter(["apiKey": TradeItSandboxConfiguration.demoAPIKey])
            try await unlinked.validateCredentials()
            let start = try await unlinked.startLink(callbackURL: callback, relink: false)
            #expect(start.popupURL.contains("/sandbox/login?oAuthTempToken="))
            let redirect = try await HTTPClientTransport.loopbackForTests.send(
                BrokerRequest(method: .get, url: start.popupURL + "&autoLogin=dummy")
            )
            let code = try verifier(fromRedirect: redirect, callback: callback)
            let credentials = try await unlinked.completeLink(verifier: code)
            #expect(credentials["userId"] != nil && credentials["userToken"] != nil)
            #expect(credentials["apiKey"] == TradeItSandboxConfiguration.demoAPIKey)

            let adapter = try h.adapter(credentials.values)
            try await adapter.validateCredentials()
            let accounts = try await adapter.accounts()
            #expect(accounts.map(\.id) == [TradeItPersona.dummy.accountNumber])
            let balances = try await adapter.balances(accountId: nil)
            #expect(balances.count == 1)
            for balance in balances { #expect(balance.available + balance.held == balance.total) }
            let positions = try await adapter.positions(accountId: nil)
            // Three holdings over pages of two: 0-based pages 0 and 1 are both read.
            #expect(Set(positions.map(\.instrument.symbol)) == ["AAPL", "MSFT", "SPY"])
            // A verifier is single-use.
            await #expect(throws: GatewayError.self) { _ = try await unlinked.completeLink(verifier: code) }
        }
    }

    @Test("link: the login form POSTs and redirects; a wrong password shows the form again")
    func linkWithForm() async throws {
        try await withTradeIt { h in
            let unlinked = try h.adapter(["apiKey": TradeItSandboxConfiguration.demoAPIKey])
            let start = try await unlinked.startLink(callbackURL: callback, relink: false)
            let transport = HTTPClientTransport.loopbackForTests
            let page = try await transport.send(BrokerRequest(method: .get, url: start.popupURL))
            #expect(page.status == 200)
            #expect(String(decoding: page.body, as: UTF8.self).contains("<form method=\"post\""))
            let token = try #require(URLComponents(string: start.popupURL)?.queryItems?.first?.value)
            let loginURL = h.url + "/sandbox/login"
            let headers: [(name: String, value: String)] = [("Content-Type", "application/x-www-form-urlencoded")]
            let wrong = try await transport.send(
                BrokerRequest(
                    method: .post,
                    url: loginURL,
                    headers: HTTPFields(pairs: headers),
                    body: Data("oAuthTempToken=\(token)&username=dummy&password=nope".utf8)
                )
            )
            #expect(wrong.status == 200)
            let right = try await transport.send(
                BrokerRequest(
                    method: .post,
                    url: loginURL,
                    headers: HTTPFields(pairs: headers),
                    body: Data("oAuthTempToken=\(token)&username=dummy&password=dummy".utf8)
                )
            )
            let credentials = try await unlinked.completeLink(verifier: try verifier(fromRedirect: right, callback: callback))
            let adapter = try h.adapter(credentials.values)
            #expect(try await adapter.accounts().count == 1)
        }
    }

    @Test("a session that expires mid-use is reopened without the caller noticing")
    func sessionExpiry() async throws {
        try await withTradeIt(sessionLifetime: 60) { h in
            let transport = ScriptedTransport { try await HTTPClientTransport.loopbackForTests.send($0) }
            let (adapter, _) = try h.linked(.dummy, transport: transport)
            _ = try await adapter.balances(accountId: nil)
            #expect(transport.count(pathSuffix: "user/authenticate") == 1)
            h.clock.advance(by: 120)
            let balances = try await adapter.balances(accountId: nil)
            #expect(balances.count == 1)
            #expect(transport.count(pathSuffix: "user/authenticate") == 2)
            #expect(transport.count(pathSuffix: "balance/getAccountOverview") == 3)  // the refused call, then its retry
        }
    }

    @Test("concurrent callers share one authentication")
    func singleFlight() async throws {
        try await withTradeIt { h in
            let transport = ScriptedTransport { try await HTTPClientTransport.loopbackForTests.send($0) }
            let (adapter, _) = try h.linked(.dummy, transport: transport)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 { group.addTask { _ = try await adapter.balances(accountId: nil) } }
                try await group.waitForAll()
            }
            #expect(transport.count(pathSuffix: "user/authenticate") == 1)
        }
    }

    @Test("a security question: challenge_required saved, reads fail forbidden, the answer makes it active")
    func securityQuestion() async throws {
        try await withTradeIt { h in
            let status = StatusLog()
            let (adapter, _) = try h.linked(.dummySecurity, status: status)
            try await adapter.validateCredentials()  // a question still proves the link
            await #expect {
                _ = try await adapter.balances(accountId: nil)
            } throws: { ($0 as? GatewayError)?.code == .forbidden && "\($0)".contains("security question") }
            #expect(status.last?.0 == .challengeRequired)
            #expect(status.last?.1?["question"] == TradeItSandboxConfiguration.securityQuestion)
            #expect(status.last?.1?["options"] == TradeItSandboxConfiguration.securityQuestionOptions.joined(separator: "\n"))
            let wrong = try await adapter.answerChallenge("nope")
            guard case .challengeRequired = wrong else {
                Issue.record("a wrong answer should ask again")
                return
            }
            #expect(try await adapter.answerChallenge(TradeItSandboxConfiguration.securityAnswer) == .authenticated)
            #expect(status.last?.0 == .active)
            #expect(try await adapter.balances(accountId: nil).count == 1)
        }
    }

    @Test("a fresh adapter answers the question by asking again first")
    func answerOnFreshAdapter() async throws {
        try await withTradeIt { h in
            let (adapter, _) = try h.linked(.dummySecurity)
            #expect(try await adapter.answerChallenge(TradeItSandboxConfiguration.securityAnswer) == .authenticated)
        }
    }

    @Test("code 700: relink_required saved, unauthorized thrown; code 300: unauthorized")
    func expiredAndFailed() async throws {
        try await withTradeIt { h in
            let status = StatusLog()
            let (expired, _) = try h.linked(.dummyExpired, status: status)
            await #expect { _ = try await expired.positions(accountId: nil) } throws: {
                ($0 as? GatewayError)?.code == .unauthorized && ($0 as? GatewayError)?.brokerCode == "700"
            }
            #expect(status.last?.0 == .relinkRequired)
            #expect(status.last?.1?["reason"]?.isEmpty == false)
            // The token update popup works for the same user.
            let relink = try await expired.startLink(callbackURL: callback, relink: true)
            #expect(relink.popupURL.contains("oAuthTempToken="))

            let (failing, _) = try h.linked(.fail)
            await #expect { try await failing.validateCredentials() } throws: {
                ($0 as? GatewayError)?.code == .unauthorized && ($0 as? GatewayError)?.brokerCode == "300"
            }
            let wrongKey = try h.adapter(["apiKey": "not-a-key"])
            await #expect { try await wrongKey.validateCredentials() } throws: { ($0 as? GatewayError)?.code == .unauthorized }
        }
    }

    @Test("orders: preview, place (market fills, limit rests), list, modify (emulated), cancel; crypto quote and order")
    func orders() async throws {
        try await withTradeIt { h in
            let (adapter, _) = try h.linked(.dummy)
            let account = TradeItPersona.dummy.accountNumber
            func request(_ symbol: String, _ type: OrderType, _ quantity: Decimal, limit: Decimal? = nil) -> OrderRequest {
                OrderRequest(
                    connectionId: "conn-ti",
                    accountId: account,
                    instrument: InstrumentReference(symbol: symbol),
                    side: .buy,
                    type: type,
                    timeInForce: .gtc,
                    quantity: quantity,
                    limitPrice: limit,
                    clientOrderId: "c-\(symbol.replacingOccurrences(of: "/", with: "-"))"
                )
            }
            let preview = try await adapter.previewOrder(request("AAPL", .market, 1))
            #expect(preview.brokerPreviewId != nil)
            #expect(preview.estimatedCommission == Decimal(string: "4.95"))
            let filled = try await adapter.placeOrder(request("AAPL", .market, 1))
            #expect(filled.status == .filled)
            #expect(filled.filledQuantity == 1)
            let resting = try await adapter.placeOrder(request("MSFT", .limit, 1, limit: 100))
            #expect(resting.status == .open)
            let open = try await adapter.orders(OrderQuery(state: .open))
            #expect(open.map(\.brokerOrderId) == [resting.brokerOrderId])
            #expect(try await adapter.order(brokerOrderId: resting.brokerOrderId!).status == .open)
            let modified = try await adapter.modifyOrder(resting, OrderModification(limitPrice: 101))
            #expect(modified.limitPrice == 101)
            #expect(modified.brokerOrderId != resting.brokerOrderId)
            #expect(modified.id == resting.id)
            let canceled = try await adapter.cancelOrder(modified)
            #expect(canceled.status == .canceled)
            await #expect { _ = try await adapter.order(brokerOrderId: "999") } throws: { ($0 as? GatewayError)?.code == .notFound }

            let quotes = try await adapter.quotes([InstrumentReference(symbol: "BTC/USD")])
            #expect(quotes.first?.bid != nil && quotes.first?.ask != nil)
            // Equities come from TradeIt's own market data, with the pair in one answer; an unknown symbol is left out.
            let mixed = try await adapter.quotes([
                InstrumentReference(symbol: "AAPL"), InstrumentReference(symbol: "BTC/USD"), InstrumentReference(symbol: "NOSUCH"),
            ])
            #expect(mixed.map(\.instrument.symbol) == ["AAPL", "BTC/USD"])
            #expect(mixed.first?.instrument.assetClass == .equity)
            #expect(mixed.first?.last != nil && mixed.first?.bid != nil && mixed.first?.ask != nil)
            await #expect { _ = try await adapter.quotes([InstrumentReference(symbol: "EUR/USD", assetClass: .fx)]) } throws: {
                ($0 as? GatewayError)?.code == .unprocessable
            }
            let crypto = try await adapter.placeOrder(request("BTC/USD", .market, Decimal(string: "0.01")!))
            #expect(crypto.status == .filled)
            #expect(crypto.instrument == Instrument(symbol: "BTC/USD", assetClass: .crypto))
            let positions = try await adapter.positions(accountId: nil)
            #expect(positions.contains { $0.instrument.symbol == "BTC/USD" && $0.quantity == Decimal(string: "0.01") })
            await #expect { _ = try await adapter.placeOrder(request("AAPL", .market, 1_000_000)) } throws: {
                // Beyond the buying power: the error vocabulary's insufficient_funds, TradeIt's code kept.
                ($0 as? GatewayError)?.code == .insufficientFunds && ($0 as? GatewayError)?.brokerCode == "200"
            }
        }
    }

    @Test("modify whose replacement fails says the original was cancelled and the replacement was not placed")
    func modifyPartialFailure() async throws {
        try await withTradeIt { h in
            let (adapter, _) = try h.linked(.dummy)
            let resting = try await adapter.placeOrder(
                OrderRequest(
                    connectionId: "conn-ti",
                    accountId: TradeItPersona.dummy.accountNumber,
                    instrument: InstrumentReference(symbol: "AAPL"),
                    side: .buy,
                    type: .limit,
                    timeInForce: .gtc,
                    quantity: 1,
                    limitPrice: 100
                )
            )
            await #expect {
                _ = try await adapter.modifyOrder(resting, OrderModification(quantity: 100_000))
            } throws: {
                let error = $0 as? GatewayError
                return error?.code == .insufficientFunds
                    && error?.message.contains("was cancelled and the replacement was not placed") == true
            }
            #expect(try await adapter.order(brokerOrderId: resting.brokerOrderId!).status == .canceled)
        }
    }
}
