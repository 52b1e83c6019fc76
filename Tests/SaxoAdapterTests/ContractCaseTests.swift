import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import SaxoAdapter
import Testing

/// `Contracts/saxo`.
let saxoContracts = ContractFolder("saxo")

@Suite("Saxo contract cases, consumer side")
struct ContractCaseTests {
    @Test("at least 15 cases, each naming its provenance; the suite entry point runs the whole folder")
    func folder() async {
        #expect(await saxoContracts.problems(broker: .saxo, factory: SaxoAdapterFactory(), minimumCases: 15, minimumProvenance: 60) == [])
    }

    @Test("every operation and the token exchange are covered")
    func coverage() throws {
        let cases = try saxoContracts.caseFiles.map(saxoContracts.load)
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

    @Test("the adapter satisfies the case", arguments: saxoContracts.caseFiles)
    func consumer(_ name: String) async throws {
        #expect(try await saxoContracts.consumerProblems(name, factory: SaxoAdapterFactory()) == [])
    }
}
