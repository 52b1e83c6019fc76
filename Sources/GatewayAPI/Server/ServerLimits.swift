/// What one HTTP connection to the gateway may hold, whoever opens it: a client that sends half a request, sends it
/// a byte at a time, or opens thousands of connections must not hold the server's resources for long.
public struct ServerLimits: Sendable, Hashable {
    /// How long a request's head (request line and headers) may take to arrive once its first byte has: a
    /// half-sent or trickled head is answered 408 and the connection closed.
    public var headerTimeout: Duration
    /// How long a connection may stay open without a request (keep-alive between requests, or nothing sent at all).
    public var idleTimeout: Duration
    /// How long a request's body may take to arrive once its head has.
    public var bodyTimeout: Duration
    /// Connections open at once; beyond it the server accepts no more until one closes (the kernel's backlog holds
    /// them meanwhile).
    public var maxConnections: Int
    /// The largest request line or header section, and the largest single header field; larger is answered 431.
    public var maxHeaderBytes: Int

    public init(
        headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60), bodyTimeout: Duration = .seconds(30),
        maxConnections: Int = 1024, maxHeaderBytes: Int = 16 * 1024
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.bodyTimeout = bodyTimeout
        self.maxConnections = max(1, maxConnections)
        self.maxHeaderBytes = max(1024, maxHeaderBytes)
    }
}
