/// A CIDR block (`10.0.0.0/8`, `fc00::/7`): an operator's allowed range, or one of the special-purpose blocks the
/// egress policy refuses.
public struct IPRange: Sendable, Hashable, CustomStringConvertible {
    /// The block's first address, host bits zero.
    public let network: IPAddress
    /// How many leading bits an address must share with `network` (0 to 32 for IPv4, 0 to 128 for IPv6).
    public let prefixLength: Int

    /// `address/prefix`, or a bare address (a range of one). `nil` unless the text is exactly that, with host bits
    /// zero (`10.0.0.1/8` is refused rather than silently widened).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        let bits = address.bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), parts[1].allSatisfy(\.isASCII), (0...bits).contains(parsed) else { return nil }
            length = parsed
        }
        guard Self.masked(address.bytes, length) == address.bytes else { return nil }
        self.network = address
        self.prefixLength = length
    }

    /// Only for the constant tables below, whose entries are well formed.
    init(_ bytes: [UInt8], _ prefixLength: Int) {
        self.network = IPAddress(validBytes: bytes)
        self.prefixLength = prefixLength
    }

    /// Whether `address` lies in the block; an address of the other family never does (the policy judges an
    /// IPv6 address that embeds an IPv4 one by ``IPAddress/embeddedIPv4`` itself).
    public func contains(_ address: IPAddress) -> Bool {
        address.bytes.count == network.bytes.count && Self.masked(address.bytes, prefixLength) == network.bytes
    }

    /// Whether the range is a single address (`/32`, `/128`).
    public var isSingleAddress: Bool { prefixLength == network.bytes.count * 8 }

    /// `network/prefixLength`, as an operator writes it.
    public var description: String { "\(network)/\(prefixLength)" }

    static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let keep = min(8, max(0, length - index * 8))
            return keep == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xff << (8 - keep))
        }
    }
}

extension IPRange {
    /// Why an address is not a public unicast one, for the refusal message.
    public enum Kind: String, Sendable {
        /// `0.0.0.0/8`, `::`, loopback (this host) and private networks (RFC 1918, IPv6 unique local): the
        /// gateway's own machine and internal network.
        case unspecified, loopback, `private`
        /// `169.254.0.0/16`, `fe80::/10`: reachable only on the local link.
        case linkLocal = "link-local"
        /// `100.64.0.0/10` (RFC 6598): a provider's internal network.
        case sharedAddressSpace = "carrier-grade NAT"
        /// Multicast, the limited broadcast, blocks reserved by the IETF, and the documentation examples: never a
        /// broker's address.
        case multicast, broadcast, reserved, documentation
        /// A cloud instance-metadata service (``IPRange/metadata``), which can hand out the machine's cloud credentials.
        case metadata = "cloud metadata"

        /// `a loopback`, `an unspecified`.
        public var withArticle: String {
            ("aeiou".contains(rawValue.first ?? "x") ? "an " : "a ") + rawValue
        }
    }

    /// Cloud instance-metadata services (AWS, GCP, Azure, OpenStack, … at 169.254.169.254; AWS's IPv6 one). Refused
    /// even inside an allowed range, unless the allowed range is exactly that address.
    public static let metadata: [IPRange] = [
        IPRange([169, 254, 169, 254], 32),
        IPRange([0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54], 128),
    ]

    /// IPv4 special-purpose blocks (RFC 6890 and its updates) that are not public unicast destinations.
    public static let refusedIPv4: [(IPRange, Kind)] = [
        (IPRange([0, 0, 0, 0], 8), .unspecified),
        (IPRange([10, 0, 0, 0], 8), .private),
        (IPRange([100, 64, 0, 0], 10), .sharedAddressSpace),
        (IPRange([127, 0, 0, 0], 8), .loopback),
        (IPRange([169, 254, 0, 0], 16), .linkLocal),
        (IPRange([172, 16, 0, 0], 12), .private),
        (IPRange([192, 0, 0, 0], 24), .reserved),
        (IPRange([192, 0, 2, 0], 24), .documentation),
        (IPRange([192, 88, 99, 0], 24), .reserved),
        (IPRange([192, 168, 0, 0], 16), .private),
        (IPRange([198, 18, 0, 0], 15), .reserved),
        (IPRange([198, 51, 100, 0], 24), .documentation),
        (IPRange([203, 0, 113, 0], 24), .documentation),
        (IPRange([224, 0, 0, 0], 4), .multicast),
        (IPRange([255, 255, 255, 255], 32), .broadcast),
        (IPRange([240, 0, 0, 0], 4), .reserved),
    ]

    /// IPv6 blocks refused inside global unicast (`2000::/3`); everything outside `2000::/3` that is not an IPv4
    /// form (judged as its IPv4 address) is refused too.
    public static let refusedIPv6: [(IPRange, Kind)] = [
        (IPRange([0x20, 0x01] + Array(repeating: 0, count: 14), 23), .reserved),  // IETF protocol assignments, Teredo
        (IPRange([0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 12), 32), .documentation),
        (IPRange([0x20, 0x02] + Array(repeating: 0, count: 14), 16), .reserved),  // 6to4 (deprecated, RFC 7526)
        (IPRange([0x3f, 0xff] + Array(repeating: 0, count: 14), 20), .documentation),
    ]

    /// What IPv6 space outside `2000::/3` is, for the message.
    static let ipv6Outside: [(IPRange, Kind)] = [
        (IPRange(Array(repeating: 0, count: 16), 128), .unspecified),
        (IPRange(Array(repeating: 0, count: 15) + [1], 128), .loopback),
        (IPRange([0xfc] + Array(repeating: 0, count: 15), 7), .private),
        (IPRange([0xfe, 0x80] + Array(repeating: 0, count: 14), 10), .linkLocal),
        (IPRange([0xff] + Array(repeating: 0, count: 15), 8), .multicast),
    ]

    static let globalUnicastIPv6 = IPRange([0x20] + Array(repeating: 0, count: 15), 3)
}
