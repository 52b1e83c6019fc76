import AlpacaAdapter
import AsyncHTTPClient
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Logging
import Sandbox
import Testing

/// The demo account's headers, as the sandbox documents them.
let sandboxAuthHeaders: [(name: String, value: String)] = [
    ("APCA-API-KEY-ID", AlpacaSandboxAccount.demoKeyID), ("APCA-API-SECRET-KEY", AlpacaSandboxAccount.demoSecretKey),
]

@Suite("Alpaca contract cases, provider side (the sandbox answers like the recordings)")
struct ProviderTests {
    /// Each case against its own fresh sandbox, so cases never see each other's orders.
    @Test("the sandbox answers the case's requests with the recorded status and shape", arguments: alpacaContracts.caseFiles)
    func provider(_ name: String) async throws {
        let contract = try alpacaContracts.load(name)
        let result = try await withSandbox(AlpacaSandbox()) { url in
            await ContractFolder.runProvider(contract, broker: .alpaca, baseURL: url.absoluteString, authHeaders: sandboxAuthHeaders)
        }
        #expect(!result.failed, "\(result)")
    }
}

@Suite("Alpaca adapter against the running sandbox")
struct SandboxEndToEndTests {
    func withAdapter(_ body: (any BrokerAdapter) async throws -> Void) async throws {
        try await withSandbox(AlpacaSandbox()) { url in
            let connection = ConnectionDescriptor(
                id: "conn-e2e",
                tenantId: "t",
                broker: .alpaca,
                displayName: "sandbox",
                baseURL: url.absoluteString,
                createdAt: Date(),
                updatedAt: Date()
            )
            let context = AdapterContext(
                connection: connection,
                baseURL: url.absoluteString,
                credentials: BrokerCredentials([
                    "keyId": AlpacaSandboxAccount.demoKeyID, "secretKey": AlpacaSandboxAccount.demoSecretKey,
                ]),
                transport: HTTPClientTransport.loopbackForTests,
                logger: Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            try await body(try AlpacaAdapterFactory().makeAdapter(context))
        }
    }

    @Test("reads: account, balances, positions, watchlists, quotes, search")
    func reads() async throws {
        try await withAdapter { adapter in
            try await adapter.validateCredentials()
            let accounts = try await adapter.accounts()
            #expect(accounts.map(\.id) == [AlpacaSandboxAccount.demoAccountID.uuidString.lowercased()])
            let balances = try await adapter.balances(accountId: nil)
            for balance in balances { #expect(balance.available + balance.held == balance.total) }
            let positions = try await adapter.positions(accountId: nil)
            #expect(positions.contains { $0.instrument == Instrument(symbol: "AAPL", assetClass: .equity) })
            #expect(positions.contains { $0.instrument == Instrument(symbol: "BTC/USD", assetClass: .crypto) })
            let watchlists = try await adapter.watchlists()
            #expect(watchlists.contains { $0.name == "Primary Watchlist" && $0.instruments.count == 5 })
            let quotes = try await adapter.quotes([InstrumentReference(symbol: "AAPL"), InstrumentReference(symbol: "BTC/USD")])
            #expect(quotes.count == 2)
            for quote in quotes { #expect(quote.bid != nil && quote.ask != nil) }
            let found = try await adapter.searchInstruments("BTC", assetClass: .crypto)
            #expect(found.first?.symbol == "BTC/USD")
        }
    }

    @Test("writes: place, find by client order id, replace, cancel; a reused client order id is a conflict")
    func orders() async throws {
        try await withAdapter { adapter in
            let accountId = try await adapter.accounts()[0].id
            let clientOrderId = "gw-e2e-\(UUID().uuidString.prefix(8))"
            let request = OrderRequest(
                connectionId: "conn-e2e",
                accountId: accountId,
                instrument: InstrumentReference(symbol: "AAPL"),
                side: .buy,
                type: .limit,
                timeInForce: .day,
                quantity: 1,
                limitPrice: 1,
                clientOrderId: clientOrderId
            )
            let placed = try await adapter.placeOrder(request)
            #expect(placed.clientOrderId == clientOrderId)
            #expect(placed.status.isActive)
            let found = try await adapter.order(clientOrderId: clientOrderId, accountId: accountId)
            #expect(found?.brokerOrderId == placed.brokerOrderId)
            #expect(try await adapter.order(clientOrderId: "gw-none-\(UUID())", accountId: accountId) == nil)

            let duplicate = await #expect(throws: GatewayError.self) { try await adapter.placeOrder(request) }
            #expect(duplicate?.code == .conflict)

            let replaced = try await adapter.modifyOrder(placed, OrderModification(limitPrice: 2))
            #expect(replaced.limitPrice == 2)
            let canceled = try await adapter.cancelOrder(replaced)
            #expect([.canceled, .pendingCancel].contains(canceled.status))

            let huge = OrderRequest(
                connectionId: "conn-e2e",
                accountId: accountId,
                instrument: InstrumentReference(symbol: "SPY"),
                side: .buy,
                type: .market,
                timeInForce: .day,
                quantity: 100_000,
                clientOrderId: "gw-e2e-huge-\(UUID().uuidString.prefix(8))"
            )
            let refused = await #expect(throws: GatewayError.self) { try await adapter.placeOrder(huge) }
            #expect(refused?.code == .insufficientFunds)
        }
    }
}

/// The provider side must fail when the sandbox and the recording disagree.
@Suite("Contract provider verdicts")
struct ContractProviderVerdictTests {
    func run(_ contract: ContractCase) async throws -> ContractResult {
        try await withSandbox(AlpacaSandbox()) { url in
            await ContractFolder.runProvider(contract, broker: .alpaca, baseURL: url.absoluteString, authHeaders: sandboxAuthHeaders)
        }
    }

    @Test("a recorded key the sandbox does not send fails, naming it")
    func missingKey() async throws {
        var contract = try alpacaContracts.load("account-accounts.json")
        guard case .object(var body) = contract.exchanges[0].response.body else {
            Issue.record("unexpected case form")
            return
        }
        body["no_such_field"] = .string("x")
        contract.exchanges[0].response.body = .object(body)
        let result = try await run(contract)
        guard case .failed(let reason) = result.outcome else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(reason.contains("leaves out 'no_such_field'"), "\(reason)")
    }

    @Test("a different status fails; credentials come from the target, not the recording")
    func statusAndAuth() async throws {
        var contract = try alpacaContracts.load("account-accounts.json")
        contract.exchanges[0].response.status = 201
        #expect(try await run(contract).failed)

        var unauthorized = try alpacaContracts.load("validate-credentials-401.json")
        #expect(try await run(unauthorized).passed)
        unauthorized.provider?.auth = .valid
        #expect(try await run(unauthorized).failed)
    }
}
