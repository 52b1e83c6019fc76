import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import TradeOgreAdapter
import Testing

/// The package root, found by walking up from this file to the folder holding `Package.swift`.
func packageRoot(_ file: String = #filePath) -> URL {
    var url = URL(fileURLWithPath: file).deletingLastPathComponent()
    while url.path != "/" {
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        url.deleteLastPathComponent()
    }
    fatalError("no Package.swift above \(file)")
}

let tradeOgreCaseFolder = packageRoot().appendingPathComponent("Contracts/tradeogre")

/// Every case file in `Contracts/tradeogre`, by file name (the tests' argument list).
let tradeOgreCaseFiles: [String] = {
    ((try? ContractSuite.files(paths: [tradeOgreCaseFolder.path])) ?? []).map { ($0 as NSString).lastPathComponent }
}()

func loadTradeOgreCase(_ name: String) throws -> ContractCase {
    try ContractSuite.load(file: tradeOgreCaseFolder.appendingPathComponent(name).path)
}

@Suite("TradeOgre contract cases, consumer side")
struct ContractCaseTests {
    @Test("there are at least 12 cases, each naming its provenance, covering every endpoint the adapter uses")
    func enoughCases() throws {
        #expect(tradeOgreCaseFiles.count >= 12)
        var paths: Set<String> = []
        var errors: Set<String> = []
        for name in tradeOgreCaseFiles {
            let contract = try loadTradeOgreCase(name)
            #expect(contract.broker == .tradeogre)
            #expect(contract.provenance.count > 80, "\(name): provenance is too thin")
            for exchange in contract.exchanges {
                var path = exchange.request.path
                if path.hasPrefix("/account/order/") { path = "/account/order/{uuid}" }
                if path.hasPrefix("/ticker/") { path = "/ticker/{market}" }
                paths.insert("\(exchange.request.method) \(path)")
                if case .object(let body) = exchange.response.body, case .string(let text)? = body["error"] { errors.insert(text) }
            }
        }
        #expect(paths.isSuperset(of: [
            "GET /markets", "GET /ticker/{market}", "GET /account/balances", "POST /account/balance", "POST /account/orders",
            "GET /account/order/{uuid}", "POST /order/sell", "POST /order/buy", "POST /order/cancel",
        ]), "\(paths.sorted())")
        #expect(errors == ["Must be authorized", "Market not found", "Insufficient funds", "Order not found"])
    }

    @Test("the adapter satisfies the case", arguments: tradeOgreCaseFiles)
    func consumer(_ name: String) async throws {
        let contract = try loadTradeOgreCase(name)
        let result = await ContractRunner(factories: [TradeOgreAdapterFactory()]).run(contract)
        #expect(result.passed, "\(result)")
    }

    @Test("the suite entry point runs the whole folder")
    func suiteEntryPoint() async {
        let results = await ContractSuite.verify(paths: [tradeOgreCaseFolder.path], factories: [TradeOgreAdapterFactory()])
        #expect(results.count == tradeOgreCaseFiles.count)
        let failures = results.filter { !$0.passed }
        #expect(failures.isEmpty, "\(failures)")
    }
}
