#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as its network-order bytes: what the egress policy judges.
///
/// Parsed with `inet_pton`, the parser AsyncHTTPClient (through NIO's `SocketAddress(ipAddress:port:)`) uses to
/// decide that a URL's host is an address literal, so the gateway and the client never disagree on what a host is.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 bytes (IPv6), network order.
    public let bytes: [UInt8]

    /// Whether this is a 4-byte IPv4 address; an IPv4-mapped IPv6 address is not (see ``embeddedIPv4``).
    public var isIPv4: Bool { bytes.count == 4 }

    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// For the constant tables, whose byte counts are right by construction.
    init(validBytes bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// An address literal (`127.0.0.1`, `::1`, `[::1]`); `nil` for anything else, host names included.
    public init?(_ text: String) {
        var literal = Substring(text)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        guard !literal.isEmpty, literal.utf8.count <= 64 else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(literal), &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, String(literal), &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// The IPv4 address an IPv6 address carries in its last four bytes when it is IPv4-mapped (`::ffff:a.b.c.d`),
    /// IPv4-compatible (`::a.b.c.d`, deprecated) or NAT64 (`64:ff9b::a.b.c.d`): these reach, or are translated to,
    /// that IPv4 address, so they are judged as it.
    public var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let head = bytes[0..<12]
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
        let compatible: [UInt8] = Array(repeating: 0, count: 12)
        let nat64: [UInt8] = [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]
        guard head.elementsEqual(mapped) || head.elementsEqual(compatible) || head.elementsEqual(nat64) else { return nil }
        return IPAddress(bytes: Array(bytes[12..<16]))
    }

    /// The text `inet_ntop` gives (`127.0.0.1`, `::1`), without brackets: what `dnsOverride` and
    /// `SocketAddress(ipAddress:port:)` take.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
