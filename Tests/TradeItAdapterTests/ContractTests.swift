import AsyncHTTPClient
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Sandbox
import Testing
import TradeItAdapter

/// `Contracts/tradeit`, found from this file's location.
let tradeItContracts: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("Contracts/tradeit").path
}()

let tradeItCaseFiles: [String] = (try? ContractSuite.files(paths: [tradeItContracts]).map {
    ($0 as NSString).lastPathComponent
}) ?? []

@Suite("TradeIt contract cases")
struct ContractTests {
    @Test("there are at least 15 cases and every one loads")
    func load() throws {
        #expect(tradeItCaseFiles.count >= 15)
        _ = try ContractSuite.load(paths: [tradeItContracts])
    }

    @Test("consumer: the adapter performs the recorded exchanges and produces the expected result", arguments: tradeItCaseFiles)
    func consumer(_ name: String) async throws {
        let contract = try ContractSuite.load(file: tradeItContracts + "/" + name)
        let result = await ContractRunner(factories: [TradeItAdapterFactory()]).run(contract)
        #expect(result.passed, "\(result)")
    }

    @Test("provider: the sandbox answers the recorded requests with the recorded status and shape", arguments: tradeItCaseFiles)
    func provider(_ name: String) async throws {
        let contract = try ContractSuite.load(file: tradeItContracts + "/" + name)
        let result = try await withSandbox(TradeItSandbox()) { url in
            let target = ContractProviderTarget(baseURL: url.absoluteString, authHeaders: [])
            return await ContractProvider(targets: [.tradeit: target], transport: HTTPClientTransport(client: .shared))
                .run(contract)
        }
        #expect(!result.failed, "\(result)")
    }
}
