public import GatewayCore

extension EgressPolicy {
    /// The default policy plus loopback (`127.0.0.0/8`, `::1`): for tests and tools whose brokers (the sandboxes,
    /// fakes, the hostile broker) listen on this machine, allowed explicitly where they are used. The gateway never
    /// uses it: an operator allows ranges with `--egress-allow`, and `gateway serve` reaches its own sandboxes
    /// through `sandbox://<name>` under the default policy.
    public static var loopbackForTests: EgressPolicy {
        EgressPolicy(allowing: ["127.0.0.0/8", "::1"].compactMap(IPRange.init))
    }
}

extension HTTPClientTransport {
    /// A transport under ``GatewayCore/EgressPolicy/loopbackForTests``.
    public static var loopbackForTests: HTTPClientTransport {
        HTTPClientTransport(policy: .loopbackForTests)
    }
}
