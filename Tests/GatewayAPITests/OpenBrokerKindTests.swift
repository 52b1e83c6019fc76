import Foundation
import GatewayAPI
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import HTTPTypes
import LogCapture
import Logging
import Testing

/// Issue 30: the broker kinds are an open set. The document says so (`BrokerKind` is an open string with the
/// built-in kinds listed, under the rule the model type enforces), `/v1/brokers` lists whatever adapters the gateway
/// was built with, a well-formed kind without an adapter is a 422 naming `broker`, a malformed one a 400 naming it.
@Suite("API: broker kinds are open")
struct OpenBrokerKindTests {
    /// The document's components.schemas.BrokerKind.
    func documentedKind() throws -> [String: Any] {
        let json = try #require(try JSONSerialization.jsonObject(with: GatewayServer.openAPIDocument()) as? [String: Any])
        let schemas = try #require((json["components"] as? [String: Any])?["schemas"] as? [String: Any])
        return try #require(schemas["BrokerKind"] as? [String: Any])
    }

    @Test func theDocumentsBrokerKindIsAnOpenStringThatListsTheBuiltInKinds() throws {
        let kind = try documentedKind()
        // Not a closed enum: no list of its own, and not a single type that a generator would close.
        #expect(kind["enum"] == nil)
        #expect(kind["type"] == nil)
        let branches = try #require(kind["anyOf"] as? [[String: Any]])
        #expect(branches.count == 2)
        // The swift-openapi-generator's open enum: the known values, then any string under the rule.
        let known = try #require(branches.first?["enum"] as? [String])
        #expect(known == [BrokerKind.alpaca, .saxo, .tradeit, .tradeogre].map(\.rawValue))
        let open = try #require(branches.last)
        #expect(open["type"] as? String == "string")
        #expect(open["enum"] == nil)
        #expect(open["minLength"] as? Int == 1)
        #expect(open["maxLength"] as? Int == BrokerKind.maxLength)
        #expect(open["pattern"] != nil)
    }

    @Test func theDocumentsRuleIsTheModelTypes() throws {
        // The pattern as JSON Schema reads it (ECMA-262, `$` only at the very end): the match must be the whole name.
        let open = try #require((try documentedKind()["anyOf"] as? [[String: Any]])?.last)
        let pattern = try NSRegularExpression(pattern: try #require(open["pattern"] as? String))
        let minLength = try #require(open["minLength"] as? Int)
        let maxLength = try #require(open["maxLength"] as? Int)
        func documentAllows(_ name: String) -> Bool {
            let whole = NSRange(name.startIndex..., in: name)
            let length = name.unicodeScalars.count
            return (minLength...maxLength).contains(length) && pattern.firstMatch(in: name, range: whole)?.range == whole
        }
        let names = [
            "alpaca", "tradeogre", "kraken", "k", "ib_gateway", "x-2", String(repeating: "a", count: 32),
            "", String(repeating: "a", count: 33), "Alpaca", "KRAKEN", "1broker", "_x", "-x", "a b", "a.b", "a/b", "kraken\n",
            "caf\u{E9}", "a\u{0}", "%61",
        ]
        for name in names {
            #expect(documentAllows(name) == (BrokerKind.problem(with: name) == nil), "\(name.debugDescription)")
        }
        #expect(names.filter { BrokerKind.problem(with: $0) == nil }.count == 7)
    }

    @Test func noOtherPartOfTheDocumentClosesTheKinds() throws {
        // Every broker kind in the document is a reference to BrokerKind; no inline list of the built-in four.
        let document = try #require(try JSONSerialization.jsonObject(with: GatewayServer.openAPIDocument()))
        var closedLists: [[String]] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                if let values = object["enum"] as? [String], values.contains("alpaca") { closedLists.append(values) }
                object.values.forEach(walk)
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(document)
        // The one list is BrokerKind's own first branch.
        #expect(closedLists == [["alpaca", "saxo", "tradeit", "tradeogre"]])
    }

    @Test func brokersListsTheAdaptersTheGatewayWasBuiltWithAndAFifthKindIsServed() async throws {
        let kraken = BrokerKind("kraken")
        let state = FakeBrokerState()
        try await APIHarness.with(brokerState: state, moreFactories: [FakeBrokerFactory(kind: kraken, state: state)]) { harness, client in
            let brokers = try await client.call(.get, "/v1/brokers", headers: harness.auth)
            #expect(brokers.status == 200)
            #expect(brokers.body.dataList.compactMap { $0["kind"] as? String } == ["alpaca", "kraken", "saxo"])

            let linked = try await client.call(
                .post,
                "/v1/connections",
                headers: harness.auth,
                json: #"{"broker":"kraken","credentials":{"token":"good"}}"#
            )
            #expect(linked.status == 201)
            #expect(linked.body.dataObject["broker"] as? String == "kraken")
            try await harness.link(.alpaca, baseURL: "https://alpaca.fake")

            let accounts = try await client.call(.get, "/v1/accounts?broker=kraken", headers: harness.auth)
            #expect(accounts.status == 200)
            let sources = accounts.body["sources"] as? [[String: Any]] ?? []
            #expect(sources.compactMap { $0["broker"] as? String } == ["kraken"])
        }
    }

    @Test func aWellFormedKindWithoutAnAdapterIsA422NamingBroker() async throws {
        try await APIHarness.with { harness, client in
            try await harness.link(.alpaca, baseURL: "https://alpaca.fake")
            for path in ["/v1/accounts?broker=kraken", "/v1/positions?broker=tradeogre", "/v1/orders?broker=kraken"] {
                let read = try await client.call(.get, path, headers: harness.auth)
                #expect(read.status == 422, "\(path)")
                #expect(read.body.errorCode == "unprocessable", "\(path)")
                #expect(read.body.detailFields == ["broker"], "\(path)")
                let problem = (read.body.error?["details"] as? [[String: Any]])?.first?["problem"] as? String ?? ""
                #expect(problem.contains("alpaca, saxo"), "the problem lists this gateway's kinds: \(problem)")
            }
            let link = try await client.call(
                .post,
                "/v1/connections",
                headers: harness.auth,
                json: #"{"broker":"kraken","credentials":{"token":"good"}}"#
            )
            #expect(link.status == 422)
            #expect(link.body.errorCode == "unprocessable")
            #expect(link.body.detailFields == ["broker"])
        }
    }

    @Test(arguments: ["Alpaca", "", "a%20b", "1broker", "kraken.", String(repeating: "k", count: 33), "caf%C3%A9"])
    func aMalformedKindInAFilterIsA400NamingBroker(_ kind: String) async throws {
        try await APIHarness.with { harness, client in
            let read = try await client.call(.get, "/v1/accounts?broker=\(kind)", headers: harness.auth)
            #expect(read.status == 400)
            #expect(read.body.errorCode == "invalid_request")
            #expect(read.body.detailFields == ["broker"])
            let problem = (read.body.error?["details"] as? [[String: Any]])?.first?["problem"] as? String
            #expect(problem == BrokerKind.problem(with: "A"))
        }
    }

    @Test(arguments: [#""Alpaca""#, #""""#, #""a b""#, #""kraken\n""#, #""\#(String(repeating: "k", count: 33))""#])
    func aMalformedKindInALinkIsA400NamingBroker(_ kind: String) async throws {
        try await APIHarness.with { harness, client in
            let link = try await client.call(
                .post,
                "/v1/connections",
                headers: harness.auth,
                json: #"{"broker":\#(kind),"credentials":{"token":"good"}}"#
            )
            #expect(link.status == 400)
            #expect(link.body.errorCode == "invalid_request")
            #expect(link.body.detailFields == ["broker"])
            #expect(try await harness.store.connections(tenantId: harness.tenant.id).isEmpty)
        }
    }

    @Test func anAdapterWhoseKindIsMalformedIsLeftOutAndSaidSo() throws {
        let (logger, log) = LogCapture.logger()
        let state = FakeBrokerState()
        let registry = AdapterRegistry(
            factories: [FakeBrokerFactory(kind: .alpaca, state: state), FakeBrokerFactory(kind: BrokerKind("Kraken Pro"), state: state)],
            transport: ScriptedTransport.unused(),
            logger: logger
        )
        #expect(registry.kinds == [BrokerKind.alpaca])
        let said = log.entries(at: .error)
        #expect(said.count == 1)
        #expect(said.first?.metadataText("kind") == "Kraken Pro")
    }
}
