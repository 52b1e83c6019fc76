import Foundation
import GatewayModel
import Testing

@Suite("Canonical order request encoding (the idempotency digest's input)")
struct OrderRequestCanonicalTests {
    static func request(quantity: Decimal = 1, expiresAt: Date? = nil) -> OrderRequest {
        OrderRequest(
            connectionId: "conn",
            accountId: "acc",
            instrument: InstrumentReference(symbol: "AAPL"),
            side: .buy,
            type: .limit,
            timeInForce: expiresAt == nil ? .day : .gtd,
            quantity: quantity,
            limitPrice: 10,
            expiresAt: expiresAt
        )
    }

    @Test("the same fields give the same bytes; different fields, different bytes")
    func stable() throws {
        #expect(try Self.request().canonicalJSON() == Self.request().canonicalJSON())
        #expect(try Self.request(quantity: 1).canonicalJSON() != Self.request(quantity: 2).canonicalJSON())
        let text = String(decoding: try Self.request().canonicalJSON(), as: UTF8.self)
        #expect(text.hasPrefix(#"{"accountId":"acc","connectionId":"conn""#))
    }

    @Test("a request that cannot be encoded throws instead of encoding as nothing")
    func unencodable() {
        let infinite = Self.request(expiresAt: Date(timeIntervalSince1970: .infinity))
        let nan = Self.request(expiresAt: Date(timeIntervalSince1970: .nan))
        #expect(throws: (any Error).self) { try infinite.canonicalJSON() }
        #expect(throws: (any Error).self) { try nan.canonicalJSON() }
    }
}
