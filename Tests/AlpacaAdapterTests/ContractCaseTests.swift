import AlpacaAdapter
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
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

/// Every case file in `Contracts/alpaca`, by file name (the test's argument list).
let alpacaCaseFiles: [String] = {
    let folder = packageRoot().appendingPathComponent("Contracts/alpaca").path
    return ((try? ContractSuite.files(paths: [folder])) ?? []).map { ($0 as NSString).lastPathComponent }
}()

func loadAlpacaCase(_ name: String) throws -> ContractCase {
    try ContractSuite.load(file: packageRoot().appendingPathComponent("Contracts/alpaca").appendingPathComponent(name).path)
}

@Suite("Alpaca contract cases, consumer side")
struct ContractCaseTests {
    @Test("there are at least 15 cases, each naming its provenance")
    func enoughCases() throws {
        #expect(alpacaCaseFiles.count >= 15)
        for name in alpacaCaseFiles {
            let contract = try loadAlpacaCase(name)
            #expect(contract.broker == .alpaca)
            #expect(contract.provenance.count > 40, "\(name): provenance is too thin")
        }
    }

    @Test("the adapter satisfies the case", arguments: alpacaCaseFiles)
    func consumer(_ name: String) async throws {
        let contract = try loadAlpacaCase(name)
        let result = await ContractRunner(factories: [AlpacaAdapterFactory()]).run(contract)
        #expect(result.passed, "\(result)")
    }

    @Test("the suite entry point runs the whole folder")
    func suiteEntryPoint() async {
        let folder = packageRoot().appendingPathComponent("Contracts/alpaca").path
        let results = await ContractSuite.verify(paths: [folder], factories: [AlpacaAdapterFactory()])
        #expect(results.count == alpacaCaseFiles.count)
        let failures = results.filter { !$0.passed }
        #expect(failures.isEmpty, "\(failures)")
    }
}
