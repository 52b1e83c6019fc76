import AsyncHTTPClient
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Sandbox
import Testing

/// `Authorization: Basic` with the sandbox's demo keys.
let sandboxAuthHeaders: [(name: String, value: String)] = [
    ("Authorization", "Basic " + Data("\(TradeOgreSandboxAccount.demoAPIKey):\(TradeOgreSandboxAccount.demoAPISecret)".utf8).base64EncodedString())
]

/// A fresh sandbox on a manual clock, speaking the naming a case's connection asks for.
func makeSandbox(naming: String? = nil) -> TradeOgreSandbox {
    let market = MarketEngine(configuration: MarketConfiguration(), clock: ManualClock())
    let configuration = TradeOgreSandboxConfiguration(marketNaming: naming == "quote-base" ? .quoteBase : .baseQuote)
    return TradeOgreSandbox(configuration: configuration, market: market)
}

@Suite("TradeOgre contract cases, provider side (the sandbox answers like the recordings)")
struct ProviderTests {
    /// Each case against its own fresh sandbox, so cases never see each other's orders.
    @Test("the sandbox answers the case's requests with the recorded status and shape", arguments: tradeOgreContracts.caseFiles)
    func provider(_ name: String) async throws {
        let contract = try tradeOgreContracts.load(name)
        let sandbox = makeSandbox(naming: contract.connection.settings?["marketNaming"])
        let result = try await withSandbox(sandbox) { url in
            await ContractFolder.runProvider(contract, broker: .tradeogre, baseURL: url.absoluteString + "/api/v1", authHeaders: sandboxAuthHeaders)
        }
        #expect(!result.failed, "\(result)")
    }

    @Test("the provider side fails when the sandbox and a recording disagree")
    func verdicts() async throws {
        var contract = try tradeOgreContracts.load("order-by-uuid.json")
        guard case .object(var body) = contract.exchanges[0].response.body else {
            Issue.record("unexpected case form")
            return
        }
        body["no_such_field"] = .string("x")
        contract.exchanges[0].response.body = .object(body)
        let result = try await withSandbox(makeSandbox()) { url in
            await ContractFolder.runProvider(contract, broker: .tradeogre, baseURL: url.absoluteString + "/api/v1", authHeaders: sandboxAuthHeaders)
        }
        guard case .failed(let reason) = result.outcome else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(reason.contains("leaves out 'no_such_field'"), "\(reason)")
    }
}
