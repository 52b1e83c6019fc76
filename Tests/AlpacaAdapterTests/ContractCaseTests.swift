import AlpacaAdapter
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Testing

/// `Contracts/alpaca`.
let alpacaContracts = ContractFolder("alpaca")

@Suite("Alpaca contract cases, consumer side")
struct ContractCaseTests {
    @Test("the adapter satisfies the case", arguments: alpacaContracts.caseFiles)
    func consumer(_ name: String) async throws {
        #expect(try await alpacaContracts.consumerProblems(name, factory: AlpacaAdapterFactory()) == [])
    }

    @Test("at least 15 cases, each naming its provenance; the suite entry point runs the whole folder")
    func folder() async {
        #expect(await alpacaContracts.problems(broker: .alpaca, factory: AlpacaAdapterFactory(), minimumCases: 15, minimumProvenance: 40) == [])
    }
}
