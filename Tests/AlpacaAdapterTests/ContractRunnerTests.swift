import AlpacaAdapter
import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Testing

/// The runner must fail precisely when the adapter and the case disagree: each test breaks a passing case one way.
@Suite("Contract runner verdicts")
struct ContractRunnerTests {
    let runner = ContractRunner(factories: [AlpacaAdapterFactory()])

    func reason(_ result: ContractResult) -> String {
        if case .failed(let reason) = result.outcome { return reason }
        return "(not failed: \(result))"
    }

    @Test("a different expected value fails with its path")
    func wrongValue() async throws {
        var contract = try alpacaContracts.load("positions.json")
        guard case .array(var items) = contract.expect.result, case .object(var position) = items[0] else {
            Issue.record("unexpected case form")
            return
        }
        position["quantity"] = .string("6")
        items[0] = .object(position)
        contract.expect = ContractExpectation(result: .array(items))
        let result = await runner.run(contract)
        #expect(result.failed)
        #expect(reason(result).contains("0.quantity"), "\(result)")
    }

    @Test("an extra key in the adapter's output fails; an ignored path does not")
    func extraKeyAndIgnore() async throws {
        var contract = try alpacaContracts.load("account-accounts.json")
        guard case .array(var items) = contract.expect.result, case .object(var account) = items[0] else {
            Issue.record("unexpected case form")
            return
        }
        account.removeValue(forKey: "status")
        items[0] = .object(account)
        contract.expect = ContractExpectation(result: .array(items))
        let result = await runner.run(contract)
        #expect(reason(result).contains("0.status"), "\(result)")

        contract.expect = ContractExpectation(result: .array(items), ignore: ["*.status"])
        #expect(await runner.run(contract).passed)
    }

    @Test("an exchange the adapter never asks for fails the case")
    func unusedExchange() async throws {
        var contract = try alpacaContracts.load("account-accounts.json")
        contract.exchanges.append(contract.exchanges[0])
        let result = await runner.run(contract)
        #expect(reason(result).contains("never requested: GET /v2/account"), "\(result)")
    }

    @Test("a request nobody recorded fails the case, explained")
    func unexpectedRequest() async throws {
        var contract = try alpacaContracts.load("positions.json")
        contract.exchanges[1].request.path = "/v2/positionz"
        let result = await runner.run(contract)
        #expect(reason(result).contains("unexpected GET https://paper-api.alpaca.markets/v2/positions"), "\(result)")
    }

    @Test("a different request body fails the case")
    func differentBody() async throws {
        var contract = try alpacaContracts.load("place-order-limit.json")
        contract.exchanges[1].request.body = .object(["symbol": .string("AAPL")])
        let result = await runner.run(contract)
        #expect(reason(result).contains("body"), "\(result)")
    }

    @Test("a request to a host no exchange names fails the case")
    func wrongHost() async throws {
        var contract = try alpacaContracts.load("quotes-equity.json")
        for index in contract.exchanges.indices { contract.exchanges[index].baseURL = "https://elsewhere.example" }
        let result = await runner.run(contract)
        #expect(reason(result).contains("no recorded exchange for that host"), "\(result)")
    }

    @Test("an expected error that does not come, or a different one, fails the case")
    func errors() async throws {
        var contract = try alpacaContracts.load("place-order-422-duplicate-client-order-id.json")
        contract.expect = ContractExpectation(error: ExpectedError(code: "rejected"))
        #expect(reason(await runner.run(contract)).contains("expected error rejected, got conflict"))

        contract.expect = ContractExpectation(error: ExpectedError(code: "conflict", brokerCode: "42210000"))
        #expect(reason(await runner.run(contract)).contains("brokerCode"))

        var success = try alpacaContracts.load("account-accounts.json")
        success.expect = ContractExpectation(error: ExpectedError(code: "unauthorized"))
        #expect(reason(await runner.run(success)).contains("got a result"))
    }

    @Test("an unknown broker kind, or a case without provenance, fails")
    func malformedCases() async throws {
        var contract = try alpacaContracts.load("account-accounts.json")
        contract.broker = BrokerKind("nobody")
        #expect(reason(await runner.run(contract)).contains("no adapter"))
        var bare = try alpacaContracts.load("account-accounts.json")
        bare.provenance = " "
        #expect(reason(await runner.run(bare)).contains("provenance"))
    }

    @Test("an unloadable file is one failed result naming the file")
    func unloadable() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("contracts-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"broker": "alpaca"}"#.utf8).write(to: folder.appendingPathComponent("bad.json"))
        let results = await ContractSuite.verify(paths: [folder.path], factories: [AlpacaAdapterFactory()])
        #expect(results.count == 1)
        #expect(results.first?.failed == true)
        #expect(results.first?.description.contains("bad.json") == true)
        #expect(throws: ContractSuite.LoadError.self) { try ContractSuite.load(paths: [folder.path]) }
    }
}

@Suite("Contract JSON comparison")
struct ContractJSONTests {
    @Test("by meaning: null and missing, dates as instants, decimals by value")
    func meaning() {
        let expected: JSONValue = .object([
            "a": .string("100.0"), "b": .null, "c": .string("2021-03-16T18:38:01.942282Z"), "d": .number(5),
        ])
        let actual: JSONValue = .object([
            "a": .string("100"), "c": .string("2021-03-16T18:38:01.942Z"), "d": .string("5.00"),
        ])
        #expect(ContractJSON.difference(expected: expected, actual: actual) == nil)
        #expect(ContractJSON.difference(expected: .string("1"), actual: .string("2")) != nil)
        #expect(ContractJSON.difference(expected: .string("2021-03-16T18:38:01Z"), actual: .string("2021-03-16T18:38:02Z")) != nil)
        #expect(ContractJSON.difference(expected: .array([.number(1)]), actual: .array([])) != nil)
        #expect(ContractJSON.difference(expected: .string("AAPL"), actual: .string("aapl")) != nil)
    }

    @Test("ignore paths with wildcards")
    func ignore() {
        let expected: JSONValue = .array([.object(["id": .string("x"), "n": .number(1)])])
        let actual: JSONValue = .array([.object(["id": .string("y"), "n": .number(1)])])
        #expect(ContractJSON.difference(expected: expected, actual: actual) != nil)
        #expect(ContractJSON.difference(expected: expected, actual: actual, ignoring: ["*.id"]) == nil)
        #expect(ContractJSON.difference(expected: expected, actual: actual, ignoring: ["0.id"]) == nil)
        #expect(ContractJSON.difference(expected: expected, actual: actual, ignoring: ["id"]) != nil)
    }

    @Test("shape: recorded keys required, kinds equal, null matches anything, extra keys allowed")
    func shape() {
        let recorded: JSONValue = .object(["id": .string("a"), "qty": .number(1), "filled_at": .null, "legs": .array([])])
        #expect(
            ContractJSON.shapeDifference(
                recorded: recorded,
                actual: .object(["id": .string("b"), "qty": .number(2), "filled_at": .string("t"), "legs": .null, "extra": .bool(true)])
            )
                == nil
        )
        let full: [String: JSONValue] = ["id": .string("b"), "qty": .number(2), "filled_at": .null, "legs": .array([])]
        var withoutId = full
        withoutId.removeValue(forKey: "id")
        #expect(ContractJSON.shapeDifference(recorded: recorded, actual: .object(withoutId))?.contains("leaves out 'id'") == true)
        #expect(ContractJSON.shapeDifference(recorded: recorded, actual: .object(withoutId), optionalKeys: ["id"]) == nil)
        var stringQty = full
        stringQty["qty"] = .string("2")
        #expect(ContractJSON.shapeDifference(recorded: recorded, actual: .object(stringQty))?.contains("qty") == true)
        #expect(ContractJSON.shapeDifference(recorded: recorded, actual: .object(stringQty), looseKinds: ["qty"]) == nil)
        #expect(
            ContractJSON.shapeDifference(
                recorded: .array([.object(["a": .number(1)])]),
                actual: .array([.object(["b": .number(1)])])
            ) != nil
        )
    }
}
