import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import KrakenAdapter
import Testing

/// `Examples/Kraken/Contracts/kraken`, found from this file (the nearest Package.swift is Examples/Kraken's).
let krakenContracts = ContractFolder("kraken")

/// The factory the cases are recorded for: nonces counted from the Authentication guide's example nonce.
let contractFactory = KrakenAdapterFactory(nonces: .counting(from: 1_616_492_376_594))

@Suite("Kraken contract cases, consumer side")
struct ContractCaseTests {
    @Test("the cases cover every endpoint the adapter uses and the error strings it maps")
    func coverage() throws {
        var paths: Set<String> = []
        var errors: Set<String> = []
        for name in krakenContracts.caseFiles {
            for exchange in try krakenContracts.load(name).exchanges {
                paths.insert("\(exchange.request.method) \(exchange.request.path)")
                if case .object(let body) = exchange.response.body, case .array(let strings)? = body["error"] {
                    for case .string(let text) in strings { errors.insert(text) }
                }
            }
        }
        #expect(
            paths.isSuperset(of: [
                "GET /0/public/Assets", "GET /0/public/AssetPairs", "GET /0/public/Ticker", "GET /0/public/Depth",
                "POST /0/private/BalanceEx", "POST /0/private/OpenOrders", "POST /0/private/ClosedOrders", "POST /0/private/QueryOrders",
                "POST /0/private/AddOrder", "POST /0/private/AmendOrder", "POST /0/private/CancelOrder",
            ]),
            "\(paths.sorted())"
        )
        #expect(
            errors.isSuperset(of: [
                "EAPI:Invalid key", "EAPI:Invalid nonce", "EAPI:Rate limit exceeded", "EOrder:Insufficient funds", "EOrder:Unknown order",
                "EOrder:Invalid order", "EGeneral:Invalid arguments:ordertype",
            ])
        )
    }

    @Test("at least 12 cases, each naming its provenance; the suite entry point runs the whole folder")
    func folder() async {
        let problems = await krakenContracts.problems(broker: .kraken, factory: contractFactory, minimumCases: 12, minimumProvenance: 80)
        #expect(problems == [])
    }

    @Test("the adapter satisfies the case", arguments: krakenContracts.caseFiles)
    func consumer(_ name: String) async throws {
        let problems = try await krakenContracts.consumerProblems(name, factory: contractFactory)
        #expect(problems == [])
    }
}
