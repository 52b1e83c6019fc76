import Foundation
import GatewayCore
import HTTPTypes
import HostileBroker
import Testing

/// The response budget and the `feed` setting through the unified API, with the real Alpaca adapter and transport.
extension HostileBrokerEndToEndTests {
    @Test(
        "twelve connections to a broker with endless position lists: the gateway never holds more than its 4 MiB budget, each read is the budget's retryable 503, tried once, nothing is held after, and the sandbox still answers"
    )
    func responseBudget() async throws {
        let budget = ResponseBudget(limit: 4 * 1024 * 1024)
        let chunk = [UInt8](repeating: 0x20, count: 64 * 1024)
        let script: HostileBroker.Script = { request in
            request.path == "/v2/account"
                ? .json(200, Self.account)
                : .streamed(status: 200, headers: [("Content-Type", "application/json")], chunk: chunk, count: nil)
        }
        try await HostileBroker.withBroker(host: "127.0.0.2", script) { hostile in
            let egress = try EgressPolicy(allowList: "127.0.0.2/32")
            try await Self.withWorld(egress: egress, responseBudget: budget) { world, client in
                let sandbox = try #require(Self.id(try await Self.link(client, key: world.keyA, baseURL: "sandbox://alpaca").body))
                var connections: [String] = []
                for _ in 0..<12 {
                    let linked = try await Self.link(client, key: world.keyA, baseURL: hostile.url)
                    #expect(linked.status == 201, "\(linked.body)")
                    connections.append(try #require(Self.id(linked.body)))
                }
                let read = try await Self.call(client, .get, "/v1/positions", key: world.keyA)
                #expect(read.status == 200)
                #expect(Self.source(read.body, sandbox)?["status"] as? String == "ok")
                for connection in connections {
                    let error = Self.source(read.body, connection)?["error"] as? [String: Any]
                    #expect(error?["code"] as? String == "upstream_unavailable", "\(String(decoding: read.raw, as: UTF8.self).prefix(2000))")
                    #expect(error?["retryable"] as? Bool == true)
                }
                #expect(budget.highWater <= 4 * 1024 * 1024)
                #expect(budget.highWater > 0)
                #expect(budget.inFlight == 0)
                // A refusal is the gateway's load, not the broker's failure: the pipeline does not send the call again.
                #expect(hostile.requests.filter { $0.path == "/v2/positions" }.count == 12)
            }
        }
    }

    @Test("feed: a value that is not one of Alpaca's feeds is refused at link with 422 naming settings.feed; feed=sip links and reads")
    func feedSetting() async throws {
        try await Self.withWorld(egress: EgressPolicy()) { world, client in
            for feed in ["bogus", "iex/../../v2/account", "sip?x=1"] {
                let refused = try await Self.link(client, key: world.keyA, baseURL: "sandbox://alpaca", settings: #"{"feed":"\#(feed)"}"#)
                #expect(refused.status == 422, "\(feed): \(refused.body)")
                #expect(Self.fields(refused.body) == ["settings.feed"], "\(feed)")
            }
            let sip = try await Self.link(client, key: world.keyA, baseURL: "sandbox://alpaca", settings: #"{"feed":"sip"}"#)
            #expect(sip.status == 201, "\(sip.body)")
            let connection = try #require(Self.id(sip.body))
            let quotes = try await Self.call(client, .get, "/v1/quotes?symbols=AAPL", key: world.keyA)
            #expect(quotes.status == 200)
            #expect(Self.source(quotes.body, connection)?["status"] as? String == "ok", "\(quotes.body)")
        }
    }
}
