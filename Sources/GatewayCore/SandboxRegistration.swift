public import GatewayModel

/// An in-process sandbox: the broker it simulates, where it listens, and the path its adapter takes as the base.
public struct SandboxRegistration: Sendable, Hashable {
    /// The dialect the sandbox speaks; a `sandbox://<name>` connection of another broker kind is refused.
    public var broker: BrokerKind
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var url: String
    /// Appended to `url` to make the adapter's base URL (`/sim/openapi` for Saxo's); empty when the API sits at the root.
    public var basePath: String
}
