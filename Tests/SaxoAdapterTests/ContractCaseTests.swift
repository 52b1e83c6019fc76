import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import SaxoAdapter
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

let saxoCaseFolder = packageRoot().appendingPathComponent("Contracts/saxo").path

/// Every case file in `Contracts/saxo`, by file name (the test's argument list).
let saxoCaseFiles: [String] = ((try? ContractSuite.files(paths: [saxoCaseFolder])) ?? []).map {
    ($0 as NSString).lastPathComponent
}

func loadSaxoCase(_ name: String) throws -> ContractCase {
    try ContractSuite.load(file: (saxoCaseFolder as NSString).appendingPathComponent(name))
}

@Suite("Saxo contract cases, consumer side")
struct ContractCaseTests {
    @Test("there are at least 15 cases, each naming its provenance")
    func enoughCases() throws {
        #expect(saxoCaseFiles.count >= 15)
        for name in saxoCaseFiles {
            let contract = try loadSaxoCase(name)
            #expect(contract.broker == .saxo)
            #expect(contract.provenance.count > 60, "\(name): provenance is too thin")
        }
    }

    @Test("every operation and the token exchange are covered")
    func coverage() throws {
        let cases = try saxoCaseFiles.map(loadSaxoCase)
        let operations = Set(cases.map(\.operation))
        for operation in [
            ContractOperation.validateCredentials, .clients, .accounts, .balances, .positions, .watchlists, .orders, .order,
            .orderByClientOrderId, .previewOrder, .placeOrder, .modifyOrder, .cancelOrder, .quotes, .searchInstruments,
        ] {
            #expect(operations.contains(operation), "no case for \(operation)")
        }
        #expect(cases.contains { $0.exchanges.contains { $0.request.path == "/token" } })
        let errorCodes = Set(cases.compactMap(\.expect.error?.code))
        #expect(errorCodes.isSuperset(of: ["unauthorized", "unprocessable", "conflict", "rate_limited", "not_found"]))
    }

    @Test("the adapter satisfies the case", arguments: saxoCaseFiles)
    func consumer(_ name: String) async throws {
        let contract = try loadSaxoCase(name)
        let result = await ContractRunner(factories: [SaxoAdapterFactory()]).run(contract)
        #expect(result.passed, "\(result)")
    }

    @Test("the suite entry point runs the whole folder")
    func suiteEntryPoint() async {
        let results = await ContractSuite.verify(paths: [saxoCaseFolder], factories: [SaxoAdapterFactory()])
        #expect(results.count == saxoCaseFiles.count)
        let failures = results.filter { !$0.passed }
        #expect(failures.isEmpty, "\(failures)")
    }
}
