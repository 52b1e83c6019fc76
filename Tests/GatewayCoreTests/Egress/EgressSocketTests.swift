import Foundation
import HTTPTypes
import HostileBroker
import Testing

@testable import GatewayCore

/// Broker sockets (WebSockets) meet the same egress policy as calls: the address connected to is checked, and a
/// broker that does not upgrade is an error, never a hang.
@Suite("Egress: broker sockets")
struct EgressSocketTests {
    static let ok: HostileBroker.Script = { _ in .json(200, #"{"ok":true}"#) }

    static func error(_ transport: HTTPClientTransport, _ url: String) async -> GatewayError? {
        do {
            try await transport.withSocket(BrokerSocketRequest(url: url, connectTimeout: .seconds(5), loggedPath: "/stream")) { _ in }
            Issue.record("expected an error, the socket opened")
            return nil
        } catch let error as GatewayError {
            return error
        } catch {
            Issue.record("expected a GatewayError, got \(error)")
            return nil
        }
    }

    @Test("the default policy refuses a loopback stream, by literal and by name, before anything is sent")
    func loopbackIsRefused() async throws {
        try await HostileBroker.withBroker(Self.ok) { broker in
            for host in ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]"] {
                let refused = await Self.error(HTTPClientTransport(), "ws://\(host):\(broker.port)/stream")
                #expect(refused?.code == .egressRefused, "\(host): \(String(describing: refused))")
            }
            #expect(broker.requests.isEmpty)
        }
    }

    @Test("only ws and wss URLs are sockets")
    func schemes() async {
        for url in ["http://example.com/stream", "ftp://example.com/", "wss://user:pw@example.com/stream"] {
            let refused = await Self.error(HTTPClientTransport(), url)
            #expect(refused?.code == .invalidRequest || refused?.code == .egressRefused, "\(url): \(String(describing: refused))")
        }
    }

    @Test("a broker that answers the upgrade with plain HTTP is refused as unavailable, after its one request")
    func noUpgrade() async throws {
        try await HostileBroker.withBroker(Self.ok) { broker in
            let loopback = EgressPolicy(allowing: ["127.0.0.0/8"].compactMap(IPRange.init))
            let refused = await Self.error(HTTPClientTransport(policy: loopback), "ws://127.0.0.1:\(broker.port)/stream?x=1")
            #expect(refused?.code == .upstreamUnavailable, "\(String(describing: refused))")
            #expect(broker.requests.map(\.path) == ["/stream?x=1"] || broker.requests.map(\.path) == ["/stream"])
        }
    }
}
