import Foundation

/// Where broker calls may go. Any tenant chooses the URL the gateway calls (a connection's base URL and URL-valued
/// settings), so without a policy a tenant could make the gateway call its own network (the cloud metadata
/// service, an admin port on loopback, a database on a private address) and read the answer back.
///
/// The rules: `http` and `https` only, no user-info in the URL, and the address connected to must be a public
/// unicast one: loopback, private (RFC 1918, `fc00::/7`), link-local, carrier-grade NAT, multicast, unspecified,
/// broadcast, reserved and documentation blocks, cloud metadata addresses and the IPv6 forms of any of them
/// (IPv4-mapped, IPv4-compatible, NAT64) are refused, unless the operator allows a range (`--egress-allow`).
/// Metadata addresses stay refused inside a wider allowed range; only an allowed range of exactly that address
/// opens them.
///
/// The transport (``HTTPClientTransport``) applies it to the address it actually connects to, after resolving the
/// host itself, so a name that resolves to a public address when checked and to a private one when connecting
/// (DNS rebinding) cannot slip past. Linking applies ``check(url:)`` to every URL a connection holds, so a plain
/// mistake is a 422 naming the field before anything is saved.
public struct EgressPolicy: Sendable, Hashable {
    /// Ranges the operator allows despite the rules (a broker on the local network, a local test broker).
    public var allowed: [IPRange]

    /// The default: nothing but public unicast addresses.
    public init(allowing allowed: [IPRange] = []) {
        self.allowed = allowed
    }

    /// A comma-separated list of CIDR blocks or addresses (`127.0.0.0/8,::1`), as `--egress-allow` takes it.
    public init(allowList text: String) throws(EgressPolicyError) {
        var ranges: [IPRange] = []
        for item in text.split(separator: ",") {
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let range = IPRange(trimmed) else { throw EgressPolicyError(entry: String(trimmed.prefix(64))) }
            ranges.append(range)
        }
        self.init(allowing: ranges)
    }

    /// Why the policy refuses to connect to `address`, or `nil` when it may.
    public func refusal(for address: IPAddress) -> IPRange.Kind? {
        let judged = address.embeddedIPv4 ?? address
        let candidates = judged == address ? [address] : [address, judged]
        if let metadata = IPRange.metadata.first(where: { range in candidates.contains { range.contains($0) } }) {
            return allowed.contains { $0.isSingleAddress && $0 == metadata } ? nil : .metadata
        }
        if allowed.contains(where: { range in candidates.contains { range.contains($0) } }) { return nil }
        return Self.kind(of: address)
    }

    /// What an address is when it is not a public unicast one; `nil` for public unicast.
    public static func kind(of address: IPAddress) -> IPRange.Kind? {
        if address.isIPv4 {
            return IPRange.refusedIPv4.first { $0.0.contains(address) }?.1
        }
        if let exact = IPRange.ipv6Outside.prefix(2).first(where: { $0.0.contains(address) }) { return exact.1 }
        if let embedded = address.embeddedIPv4 {
            return IPRange.refusedIPv4.first { $0.0.contains(embedded) }?.1
        }
        guard IPRange.globalUnicastIPv6.contains(address) else {
            return IPRange.ipv6Outside.first { $0.0.contains(address) }?.1 ?? .reserved
        }
        return IPRange.refusedIPv6.first { $0.0.contains(address) }?.1
    }

    /// The checks that need no name resolution: an absolute `http(s)` URL with a host, no user-info, and a host
    /// that, when it is an address literal, the policy allows. Returns the target the client will connect to.
    public func check(url text: String) throws(GatewayError) -> EgressTarget {
        let target = try EgressTarget(url: text)
        if let address = target.literal, let kind = refusal(for: address) {
            throw EgressPolicy.refused(host: target.host, kind)
        }
        return target
    }

    /// The error of a refused call: 403 `egress_refused`, never retryable; it names the host (the tenant's own
    /// input) and the kind of address, never the address a name resolved to or anything the target sent.
    public static func refused(host: String, _ kind: IPRange.Kind) -> GatewayError {
        GatewayError(
            .egressRefused,
            "the egress policy refuses \(BrokerText.sanitized(host, limit: 100)): \(kind.withArticle) address (an operator allows ranges with --egress-allow)",
            retryable: false
        )
    }
}

/// An `--egress-allow` entry that is not a CIDR block or an address.
public struct EgressPolicyError: Error, Sendable, CustomStringConvertible {
    /// The entry as given (at most its first 64 characters), so the operator sees which one to fix.
    public var entry: String
    /// Names the entry and the forms accepted; shown when the gateway refuses to start.
    public var description: String { "'\(entry)' is not an IP address or a CIDR block such as 10.1.0.0/16 or fd12::/64" }
}
