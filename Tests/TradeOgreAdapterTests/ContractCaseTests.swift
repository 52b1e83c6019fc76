import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Testing
import TradeOgreAdapter

/// `Contracts/tradeogre`.
let tradeOgreContracts = ContractFolder("tradeogre")

@Suite("TradeOgre contract cases, consumer side")
struct ContractCaseTests {
    @Test("the cases cover every endpoint the adapter uses and every failure text")
    func coverage() throws {
        var paths: Set<String> = []
        var errors: Set<String> = []
        for name in tradeOgreContracts.caseFiles {
            let contract = try tradeOgreContracts.load(name)
            for exchange in contract.exchanges {
                var path = exchange.request.path
                if path.hasPrefix("/account/order/") { path = "/account/order/{uuid}" }
                if path.hasPrefix("/ticker/") { path = "/ticker/{market}" }
                paths.insert("\(exchange.request.method) \(path)")
                if case .object(let body) = exchange.response.body, case .string(let text)? = body["error"] { errors.insert(text) }
            }
        }
        #expect(
            paths.isSuperset(of: [
                "GET /markets", "GET /ticker/{market}", "GET /account/balances", "POST /account/balance", "POST /account/orders",
                "GET /account/order/{uuid}", "POST /order/sell", "POST /order/buy", "POST /order/cancel",
            ]),
            "\(paths.sorted())"
        )
        #expect(errors == ["Must be authorized", "Market not found", "Insufficient funds", "Order not found"])
    }

    @Test("at least 12 cases, each naming its provenance; the suite entry point runs the whole folder")
    func folder() async {
        #expect(
            await tradeOgreContracts.problems(broker: .tradeogre, factory: TradeOgreAdapterFactory(), minimumCases: 12, minimumProvenance: 80) == []
        )
    }

    @Test("the adapter satisfies the case", arguments: tradeOgreContracts.caseFiles)
    func consumer(_ name: String) async throws {
        #expect(try await tradeOgreContracts.consumerProblems(name, factory: TradeOgreAdapterFactory()) == [])
    }
}
