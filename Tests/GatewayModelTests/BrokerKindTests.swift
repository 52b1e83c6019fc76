import Foundation
import GatewayModel
import Testing

@Suite("Model: broker kinds")
struct BrokerKindTests {
    struct Holder: Codable, Equatable {
        var broker: BrokerKind
    }

    @Test(arguments: ["alpaca", "kraken", "k", "ib_gateway", "x-2", String(repeating: "a", count: 32)])
    func anyWellFormedNameDecodesKnownOrNot(_ name: String) throws {
        let holder = try JSONDecoder().decode(Holder.self, from: Data(#"{"broker":"\#(name)"}"#.utf8))
        #expect(holder.broker == BrokerKind(name))
        #expect(holder.broker.isWellFormed)
        #expect(try JSONDecoder().decode(Holder.self, from: try JSONEncoder().encode(holder)) == holder)
    }

    @Test(arguments: ["", "Alpaca", "1broker", "_x", "-x", "a b", "a.b", "kraken\\n", "caf\\u00e9", String(repeating: "a", count: 33)])
    func aMalformedNameIsRefusedWithTheRuleAndTheField(_ escaped: String) throws {
        do {
            _ = try JSONDecoder().decode(Holder.self, from: Data(#"{"broker":"\#(escaped)"}"#.utf8))
            Issue.record("\(escaped) decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["broker"])
            #expect(context.debugDescription == "must be 1 to 32 characters of a-z, 0-9, _ and -, starting with a letter")
        }
    }

    @Test func theRuleCountsBytesNotCharacters() {
        // 32 characters but more bytes: "é" is not in the set anyway, and no length check can be fooled by it.
        #expect(BrokerKind.problem(with: String(repeating: "\u{E9}", count: 16)) != nil)
        #expect(BrokerKind.problem(with: "a" + String(repeating: "\u{301}", count: 3)) != nil)
        #expect(!BrokerKind("Kraken").isWellFormed)
        #expect(BrokerKind.tradeogre.isWellFormed)
    }
}
