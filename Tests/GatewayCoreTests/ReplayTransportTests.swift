import Foundation
import GatewayCore
import GatewayTesting
import HTTPTypes
import Testing

@Suite("Replay transport")
struct ReplayTransportTests {
    @Test func answersRecordedExchangesAndRefusesOthers() async throws {
        let transport = ReplayTransport(
            baseURL: "https://broker.test",
            exchanges: [
                RecordedExchange(
                    request: RecordedRequest(method: "GET", path: "/v2/orders", query: ["status": "open"]),
                    response: RecordedResponse(status: 200, body: .array([]))
                ),
                RecordedExchange(
                    request: RecordedRequest(method: "POST", path: "/v2/orders", body: .object(["qty": .string("1")])),
                    response: RecordedResponse(status: 200, headers: ["X-Test": "1"], body: .object(["id": .string("o1")]))
                ),
            ]
        )
        let first = try await transport.send(BrokerRequest(method: .get, url: "https://broker.test/v2/orders?status=open&limit=5"))
        #expect(first.status == 200)
        await #expect(throws: ReplayMismatch.self) {
            _ = try await transport.send(BrokerRequest(method: .post, url: "https://broker.test/v2/orders", body: Data(#"{"qty":"2"}"#.utf8)))
        }
        let second = try await transport.send(
            BrokerRequest(method: .post, url: "https://broker.test/v2/orders", body: Data(#"{ "qty" : "1" }"#.utf8))
        )
        #expect(second.header("x-test") == "1")
        #expect(JSONValue(data: second.body)?["id"] == .string("o1"))
        #expect(transport.unusedExchanges.isEmpty)
        #expect(transport.mismatches.count == 1)
    }

    @Test func formBodiesCompareAsFields() {
        #expect(ReplayTransport.parseForm("market=XMR-BTC&quantity=1.5&price=0.0025") == ["market": "XMR-BTC", "quantity": "1.5", "price": "0.0025"])
        #expect(ReplayTransport.parseForm("a=x%20y&b=c+d") == ["a": "x y", "b": "c d"])
    }
}
