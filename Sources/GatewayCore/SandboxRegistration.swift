public import GatewayModel

/// An in-process sandbox: the broker it simulates, where it listens, and the path its adapter takes as the base.
public struct SandboxRegistration: Sendable, Hashable {
    public var broker: BrokerKind
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var url: String
    public var basePath: String
}
