import Foundation
import GatewayCore
import Testing

@Suite("Egress policy: which addresses a broker call may reach")
struct EgressPolicyTests {
    @Test(
        "the default policy refuses every address that is not public unicast, IPv6 forms of IPv4 ones included",
        arguments: [
            ("127.0.0.1", IPRange.Kind.loopback), ("127.255.255.254", .loopback), ("::1", .loopback),
            ("10.1.2.3", .private), ("172.16.0.1", .private), ("172.31.255.255", .private), ("192.168.1.1", .private),
            ("fc00::1", .private), ("fd12:3456::1", .private),
            ("169.254.169.254", .metadata), ("fd00:ec2::254", .metadata), ("169.254.1.1", .linkLocal), ("fe80::1", .linkLocal),
            ("100.64.0.1", .sharedAddressSpace), ("100.100.100.200", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
            ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("ff02::1", .multicast),
            ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified), ("255.255.255.255", .broadcast),
            ("240.0.0.1", .reserved), ("198.18.0.1", .reserved), ("192.0.0.8", .reserved), ("192.0.2.1", .documentation),
            ("2001:db8::1", .documentation), ("2001::1", .reserved), ("2002:7f00:1::1", .reserved), ("64:ff9b:1::1", .reserved),
            ("::ffff:127.0.0.1", .loopback), ("::ffff:10.0.0.1", .private), ("::ffff:169.254.169.254", .metadata),
            ("::127.0.0.1", .loopback), ("64:ff9b::a9fe:a9fe", .metadata), ("64:ff9b::192.168.0.1", .private),
        ]
    )
    func refusesSpecialPurposeAddresses(_ text: String, _ kind: IPRange.Kind) throws {
        let address = try #require(IPAddress(text))
        #expect(EgressPolicy().refusal(for: address) == kind)
    }

    @Test(
        "public unicast addresses pass, whichever form they come in",
        arguments: [
            "8.8.8.8", "1.1.1.1", "93.184.216.34", "100.63.255.255", "100.128.0.1", "172.32.0.1", "192.169.0.1",
            "223.255.255.254", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808",
        ]
    )
    func allowsPublicAddresses(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(EgressPolicy().refusal(for: address) == nil)
    }

    @Test("an operator's ranges open exactly those addresses, mapped forms included; metadata needs its own entry")
    func allowedRanges() throws {
        let local = try EgressPolicy(allowList: " 127.0.0.0/8 , ::1,10.20.0.0/16")
        #expect(local.refusal(for: try #require(IPAddress("127.0.0.1"))) == nil)
        #expect(local.refusal(for: try #require(IPAddress("::1"))) == nil)
        #expect(local.refusal(for: try #require(IPAddress("::ffff:127.0.0.1"))) == nil)
        #expect(local.refusal(for: try #require(IPAddress("10.20.3.4"))) == nil)
        #expect(local.refusal(for: try #require(IPAddress("10.21.0.1"))) == .private)
        #expect(local.refusal(for: try #require(IPAddress("192.168.0.1"))) == .private)

        let linkLocal = try EgressPolicy(allowList: "169.254.0.0/16")
        #expect(linkLocal.refusal(for: try #require(IPAddress("169.254.10.10"))) == nil)
        #expect(linkLocal.refusal(for: try #require(IPAddress("169.254.169.254"))) == .metadata)
        let metadata = try EgressPolicy(allowList: "169.254.169.254/32")
        #expect(metadata.refusal(for: try #require(IPAddress("169.254.169.254"))) == nil)
    }

    @Test(
        "an allow list that is not CIDR blocks or addresses is refused, naming the entry",
        arguments: ["10.0.0.1/8", "300.1.1.1", "example.com", "10.0.0.0/33", "::1/129", "10.0.0.0/-1", "10.0.0.0/8x"]
    )
    func badAllowLists(_ entry: String) {
        #expect(throws: EgressPolicyError.self) { try EgressPolicy(allowList: "127.0.0.0/8,\(entry)") }
    }

    @Test(
        "URLs: only http(s), no user-info; literals are judged without any lookup",
        arguments: [
            ("http+unix://%2Ftmp%2Fbroker.sock/v2/account", "egress_refused"),
            ("gopher://broker.example/", "egress_refused"),
            ("file:///etc/passwd", "egress_refused"),
            ("ftp://broker.example/", "egress_refused"),
            ("https://user:secret@broker.example/", "egress_refused"),
            ("https://user@broker.example/", "egress_refused"),
            ("http://127.0.0.1:8080/", "egress_refused"),
            ("http://[::1]:8080/", "egress_refused"),
            ("http://[::ffff:7f00:1]/", "egress_refused"),
            ("http://169.254.169.254/latest/meta-data/", "egress_refused"),
            ("not a url", "invalid_request"),
            ("/relative/path", "invalid_request"),
        ]
    )
    func urlChecks(_ url: String, _ code: String) {
        #expect(throws: GatewayError.self) { try EgressPolicy().check(url: url) }
        do {
            _ = try EgressPolicy().check(url: url)
        } catch {
            #expect(error.code.rawValue == code, "\(url): \(error)")
            #expect(error.code.httpStatus < 500)
            #expect(!error.retryable)
            #expect(!error.message.contains("secret"))
        }
    }

    @Test("a public URL passes the checks that need no lookup, and names its destination")
    func publicURL() throws {
        let target = try EgressPolicy().check(url: "https://Paper-API.alpaca.markets/v2/orders/%2E%2E?x=1")
        #expect(target.scheme == "https")
        #expect(target.port == 443)
        #expect(target.literal == nil)
        #expect(target.hasDotSegment)
        #expect(target.origin == EgressOrigin(scheme: "https", host: "paper-api.alpaca.markets", port: 443))
    }

    @Test("egress_refused is a 403 that is never retried")
    func errorCode() {
        #expect(GatewayError.Code.egressRefused.httpStatus == 403)
        #expect(!GatewayError(.egressRefused, "no").retryable)
    }
}
