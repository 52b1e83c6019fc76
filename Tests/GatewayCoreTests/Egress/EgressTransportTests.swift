import Foundation
import GatewayModel
import HTTPTypes
import HostileBroker
import Logging
import Synchronization
import Testing

@testable import GatewayCore

/// The real transport (AsyncHTTPClient) against a broker the test controls: what the egress policy lets out, where
/// the call really goes, and what a hostile answer becomes.
@Suite("Egress: the transport against a hostile broker")
struct EgressTransportTests {
    static let loopback = EgressPolicy(allowing: ["127.0.0.0/8", "::1"].compactMap(IPRange.init))
    static let ok: HostileBroker.Script = { _ in .json(200, #"{"ok":true}"#) }

    /// A GET with a timeout no test reaches unless a deadline is its subject (those name theirs): under CI's load a
    /// name's resolution alone, on NIO's blocking pool, has taken over 5 s.
    static func get(_ url: String, timeout: Duration = .seconds(60), headers: HTTPFields = [:]) -> BrokerRequest {
        BrokerRequest(method: .get, url: url, headers: headers, timeout: timeout, loggedPath: "GET /test")
    }

    /// The error `body` throws, as a `GatewayError` (a test failure otherwise).
    static func gatewayError(_ body: () async throws -> BrokerResponse) async -> GatewayError? {
        do {
            let response = try await body()
            Issue.record("expected an error, got HTTP \(response.status)")
            return nil
        } catch let error as GatewayError {
            return error
        } catch {
            Issue.record("expected a GatewayError, got \(error)")
            return nil
        }
    }

    @Test("the default policy refuses a loopback broker before anything is sent; an explicit rule lets it through")
    func loopbackNeedsAnExplicitRule() async throws {
        try await HostileBroker.withBroker(Self.ok) { broker in
            let refused = await Self.gatewayError { try await HTTPClientTransport().send(Self.get(broker.url + "/v2/account")) }
            #expect(refused?.code == .egressRefused)
            #expect(refused?.code.httpStatus == 403)
            #expect(refused?.retryable == false)
            #expect(refused?.message.contains("127.0.0.1") == true)
            #expect(broker.requests.isEmpty)

            let allowed = try await HTTPClientTransport(policy: Self.loopback).send(Self.get(broker.url + "/v2/account"))
            #expect(allowed.status == 200)
            #expect(broker.requests.map(\.path) == ["/v2/account"])
        }
    }

    @Test(
        "names and numeric spellings that resolve to loopback are refused on the resolved address",
        arguments: [
            "localhost", "2130706433", "0x7f000001", "127.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
        ]
    )
    func resolvedAddressesAreChecked(_ host: String) async throws {
        try await HostileBroker.withBroker(Self.ok) { broker in
            let error = await Self.gatewayError {
                try await HTTPClientTransport().send(Self.get("http://\(host):\(broker.port)/v2/account"))
            }
            #expect(error?.code == .egressRefused, "\(host): \(String(describing: error))")
            #expect(broker.requests.isEmpty)
        }
    }

    @Test("a name is connected to the address that was checked (pinned), with its own Host header")
    func connectionGoesToTheCheckedAddress() async throws {
        // A name no public resolver knows: only the test's name server answers it. Had the client resolved the name
        // again itself, it would have failed; reaching the broker proves the call went to the checked address.
        let names = HostResolver(blockingLookUp: { host in
            guard host == "broker.pinned.invalid" else { throw GatewayError(.upstreamUnavailable, "unknown") }
            return [IPAddress("127.0.0.1")].compactMap { $0 }
        })
        let transport = HTTPClientTransport(policy: Self.loopback, clients: PinnedClients(capacity: 4), resolver: names)
        try await HostileBroker.withBroker(Self.ok) { broker in
            let response = try await transport.send(Self.get("http://broker.pinned.invalid:\(broker.port)/v2/account"))
            #expect(response.status == 200)
            #expect(broker.requests.first?.header("Host") == "broker.pinned.invalid:\(broker.port)")
        }
    }

    @Test("a name with any refused address is refused (DNS rebinding gains nothing), whatever it resolves to first")
    func everyResolvedAddressIsChecked() async throws {
        let names = HostResolver(blockingLookUp: { _ in ["93.184.216.34", "10.0.0.7"].compactMap(IPAddress.init) })
        let transport = HTTPClientTransport(policy: EgressPolicy(), clients: PinnedClients(capacity: 4), resolver: names)
        let error = await Self.gatewayError { try await transport.send(Self.get("https://rebinding.example/v2/account")) }
        #expect(error?.code == .egressRefused)
        #expect(error?.message.contains("rebinding.example") == true)
        #expect(error?.message.contains("10.0.0.7") == false)
    }

    @Test(
        "user-info and non-http schemes are refused even where the address is allowed",
        arguments: [
            "http://key:secret@127.0.0.1:PORT/v2/account", "http+unix://%2Ftmp%2Fgateway.sock/v2/account",
        ]
    )
    func refusedForms(_ template: String) async throws {
        try await HostileBroker.withBroker(Self.ok) { broker in
            let url = template.replacingOccurrences(of: "PORT", with: String(broker.port))
            let error = await Self.gatewayError { try await HTTPClientTransport(policy: Self.loopback).send(Self.get(url)) }
            #expect(error?.code == .egressRefused)
            #expect(error?.message.contains("secret") == false)
            #expect(broker.requests.isEmpty)
        }
    }

    @Test(
        "a '.' or '..' path segment, plain or percent-encoded, never leaves",
        arguments: [
            "/v2/orders/..", "/v2/orders/%2E%2E", "/v2/orders/%2e", "/v2/../_sandbox/prices", "/v2/orders/./x",
        ]
    )
    func dotSegments(_ path: String) async throws {
        try await HostileBroker.withBroker(Self.ok) { broker in
            let error = await Self.gatewayError {
                try await HTTPClientTransport(policy: Self.loopback).send(Self.get(broker.url + path))
            }
            #expect(error?.code == .invalidRequest)
            #expect(broker.requests.isEmpty)
        }
    }

    @Test("no redirect is followed: not to another origin (no credential arrives there), not to metadata, not even home")
    func redirectsAreNotFollowed() async throws {
        try await HostileBroker.withBroker(host: "127.0.0.2", { _ in .json(200, "{}") }) { other in
            let targets = [other.url + "/steal", "http://169.254.169.254/latest/meta-data/", "/v2/account"]
            for (index, location) in targets.enumerated() {
                for status in [301, 302, 303, 307, 308] {
                    try await HostileBroker.withBroker({ _ in .respond(status: status, headers: [("Location", location)]) }) { broker in
                        let request = Self.get(
                            broker.url + "/v2/positions",
                            headers: HTTPFields(pairs: [
                                (name: "APCA-API-KEY-ID", value: "KEY-\(index)"), (name: "APCA-API-SECRET-KEY", value: "SECRET"),
                            ])
                        )
                        let response = try await HTTPClientTransport(policy: Self.loopback).send(request)
                        #expect(response.status == status)
                        #expect(response.header("Location") == location)
                        #expect(broker.requests.count == 1)
                    }
                }
            }
            #expect(other.requests.isEmpty, "the other origin got \(other.requests.map { $0.headers.map(\.name) })")
        }
    }

    @Test("a sandbox grant opens exactly its origin under the default policy, never its /_sandbox/ admin paths")
    func sandboxGrant() async throws {
        try await HostileBroker.withBroker(Self.ok) { sandbox in
            try await HostileBroker.withBroker(Self.ok) { other in
                let origin = try #require(EgressOrigin(url: sandbox.url))
                let transport = HTTPClientTransport()
                var granted = Self.get(sandbox.url + "/v2/account")
                granted.sandboxOrigin = origin
                #expect(try await transport.send(granted).status == 200)

                for path in ["/_sandbox/prices", "/%5Fsandbox/faults", "/_SANDBOX/clock", "/v2/_sandbox"] {
                    var admin = Self.get(sandbox.url + path)
                    admin.sandboxOrigin = origin
                    let error = await Self.gatewayError { try await transport.send(admin) }
                    #expect(error?.code == .egressRefused, "\(path)")
                }
                // The grant is for one origin: another port on the same address meets the policy.
                var elsewhere = Self.get(other.url + "/v2/account")
                elsewhere.sandboxOrigin = origin
                #expect(await Self.gatewayError { try await transport.send(elsewhere) }?.code == .egressRefused)
                // And without the grant, the sandbox itself is a loopback address like any other.
                #expect(await Self.gatewayError { try await transport.send(Self.get(sandbox.url + "/v2/account")) }?.code == .egressRefused)

                #expect(sandbox.requests.map(\.path) == ["/v2/account"])
                #expect(other.requests.isEmpty)
            }
        }
    }

    @Test("hostile answers become clean errors: a lying Content-Length, a huge body, a half-sent body, silence")
    func hostileAnswers() async throws {
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: BrokerRequest.defaultMaxResponseBytes + 1)
        let cases: [(HostileBroker.Answer, GatewayError.Code)] = [
            (.respond(status: 200, headers: [("Content-Length", "99999999999999")], body: Array("{}".utf8)), .malformedResponse),
            (.respond(status: 200, body: huge), .malformedResponse),
            (.raw(Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"partial\":".utf8)), .upstreamUnavailable),
            (.raw(Array("NOT HTTP AT ALL\r\n\r\n".utf8)), .upstreamUnavailable),
            (.silence, .upstreamTimeout),
            (.stalledBody(status: 200, headers: [], body: Array(repeating: 0x20, count: 100), sent: 10), .upstreamTimeout),
        ]
        for (answer, code) in cases {
            try await HostileBroker.withBroker({ _ in answer }) { broker in
                // Only silence and the stalled body end at this deadline (they test it); 5 s leaves the other answers
                // room to be read and refused for what they are on a loaded machine (500 ms timed them out first).
                let error = await Self.gatewayError {
                    try await HTTPClientTransport(policy: Self.loopback).send(Self.get(broker.url + "/v2/account", timeout: .seconds(5)))
                }
                #expect(error?.code == code, "\(answer): \(String(describing: error))")
                #expect(error?.code != .internalError)
            }
        }
    }

    @Test("hostile numbers in headers pass through the pipeline without trapping, and come out bounded")
    func hostileHeadersThroughThePipeline() async throws {
        let headerSets: [[(String, String)]] = [
            [("Retry-After", "inf"), ("X-RateLimit-Limit", "1e300"), ("X-RateLimit-Remaining", "-5"), ("X-RateLimit-Reset", "1e300")],
            [("Retry-After", "1e300"), ("X-RateLimit-Limit", "nan"), ("X-RateLimit-Remaining", "inf"), ("X-RateLimit-Reset", "-inf")],
            [
                ("Retry-After", "-5"), ("X-RateLimit-Limit", "0x10"), ("X-RateLimit-Remaining", "99999999999999999999999"),
                ("X-RateLimit-Reset", "nan"),
            ],
            [("Retry-After", "nan"), ("X-RateLimit-Reset", "Fri, 31 Dec 9999 23:59:59 GMT")],
            [("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")],
        ]
        for headers in headerSets {
            for status in [429, 503] {
                try await HostileBroker.withBroker({ _ in .respond(status: status, headers: headers, body: Array("{}".utf8)) }) { broker in
                    let connection = ConnectionDescriptor(
                        id: "conn_hostile",
                        tenantId: "t",
                        broker: .alpaca,
                        displayName: "hostile",
                        baseURL: broker.url,
                        createdAt: Date(),
                        updatedAt: Date()
                    )
                    let pipeline = BrokerPipeline(
                        settings: PipelineSettings(
                            maxRetries: 1,
                            retryBaseDelay: .milliseconds(1),
                            retryAfterLimit: .milliseconds(100)
                        )
                    )
                    let rules = [RateLimitRule(name: "requests", limit: 200, per: .seconds(60), headers: .alpaca)]
                    let transport = pipeline.transport(
                        wrapping: HTTPClientTransport(policy: Self.loopback),
                        connection: connection,
                        limits: rules,
                        logger: .init(label: "test")
                    )
                    let response = try await transport.send(Self.get(broker.url + "/v2/account", timeout: .seconds(20)))
                    #expect(response.status == status)
                    let seconds = BrokerNumber.retryAfter(response.headers, now: Date())
                    if let seconds { #expect(seconds.isFinite && seconds >= 0 && seconds <= 86_400) }
                    var error = GatewayError(.rateLimited, "slow down")
                    error.retryAfter = seconds
                    #expect(try JSONEncoder().encode(["retryAfter": error.retryAfter]).count > 0)
                }
            }
        }
    }
}
