import AsyncHTTPClient
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Sandbox
import Testing
import TradeItAdapter

/// `Contracts/tradeit`.
let tradeItContracts = ContractFolder("tradeit")

@Suite("TradeIt contract cases")
struct ContractTests {
    @Test("there are at least 15 cases and every one loads")
    func load() throws {
        #expect(tradeItContracts.caseFiles.count >= 15)
        _ = try tradeItContracts.loadAll()
    }

    @Test("consumer: the adapter performs the recorded exchanges and produces the expected result", arguments: tradeItContracts.caseFiles)
    func consumer(_ name: String) async throws {
        #expect(try await tradeItContracts.consumerProblems(name, factory: TradeItAdapterFactory()) == [])
    }

    @Test("provider: the sandbox answers the recorded requests with the recorded status and shape", arguments: tradeItContracts.caseFiles)
    func provider(_ name: String) async throws {
        let contract = try tradeItContracts.load(name)
        let result = try await withSandbox(TradeItSandbox()) { url in
            await ContractFolder.runProvider(contract, broker: .tradeit, baseURL: url.absoluteString, authHeaders: [])
        }
        #expect(!result.failed, "\(result)")
    }
}
