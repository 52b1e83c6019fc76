import Foundation

/// What a URL makes AsyncHTTPClient connect to, read the way AsyncHTTPClient reads it (Foundation's `URL`, its
/// `host` without IPv6 brackets, an address literal when `inet_pton` takes it, else a name to resolve), so the
/// policy judges exactly the destination the client will use.
public struct EgressTarget: Sendable, Hashable {
    /// `http` or `https`.
    public var scheme: String
    /// The host as the client sees it: a name, or an address literal without brackets.
    public var host: String
    /// The port connected to: the URL's, else 443 for `https` and 80 for `http`.
    public var port: Int
    /// The address, when the host is a literal (no name resolution happens then).
    public var literal: IPAddress?
    /// The path's segments, percent-decoded.
    public var pathSegments: [String]

    /// The scheme, host and port, the way origins compare.
    public var origin: EgressOrigin { EgressOrigin(scheme: scheme, host: host.lowercased(), port: port) }

    /// Reads an absolute URL as the client will. Throws `invalid_request` for a URL that is not absolute or has no
    /// host, and `egress_refused` for a scheme other than http(s) or for user information (`user:password@`).
    public init(url text: String) throws(GatewayError) {
        guard let url = URL(string: text), let rawScheme = url.scheme else {
            throw GatewayError(.invalidRequest, "the broker URL is not an absolute URL", retryable: false)
        }
        let scheme = rawScheme.lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw GatewayError(
                .egressRefused,
                "the egress policy refuses the URL scheme '\(BrokerText.sanitized(rawScheme, limit: 20))': only http and https",
                retryable: false
            )
        }
        guard var host = url.host, !host.isEmpty else {
            throw GatewayError(.invalidRequest, "the broker URL has no host", retryable: false)
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard url.user == nil, url.password == nil else {
            throw GatewayError(
                .egressRefused,
                "the egress policy refuses URLs with user information (user:password@): \(BrokerText.sanitized(host, limit: 100))",
                retryable: false
            )
        }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
        self.literal = IPAddress(host)
        self.pathSegments = url.path(percentEncoded: true).split(separator: "/", omittingEmptySubsequences: false)
            .dropFirst().map { $0.removingPercentEncoding ?? String($0) }
    }

    /// Whether a path segment is `.` or `..` (after percent-decoding, so `%2E%2E` counts): such a segment walks a
    /// broker's path, and no adapter builds one on purpose.
    public var hasDotSegment: Bool {
        pathSegments.contains { $0 == "." || $0 == ".." }
    }
}

/// Scheme, host and port: what a sandbox grant names.
public struct EgressOrigin: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`, lower-cased.
    public var scheme: String
    /// The host name or address literal (no brackets), lower-cased so origins compare as names do.
    public var host: String
    /// The explicit or default port, so `http://h` and `http://h:80` are one origin.
    public var port: Int

    /// An origin from its parts; scheme and host are lower-cased.
    public init(scheme: String, host: String, port: Int) {
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port
    }

    /// The origin of an absolute http(s) URL (`http://127.0.0.1:8123/x` → `http://127.0.0.1:8123`).
    public init?(url text: String) {
        guard let target = try? EgressTarget(url: text) else { return nil }
        self = target.origin
    }

    /// `scheme://host:port`, an IPv6 host in brackets, for logs and messages.
    public var description: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed):\(port)"
    }
}
