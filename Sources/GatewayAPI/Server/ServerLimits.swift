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
    /// Connections open at once. At the cap a new connection still gets in when some connection is idle (between
    /// requests): the one idle the longest is closed for it. Only when every open connection has a request under
    /// way is the new one closed at once, so a client is never left waiting in the kernel's backlog behind others'
    /// keep-alives.
    public var maxConnections: Int
    /// Connections open at once from one client address (an IPv4 address, an IPv6 /64, or every Unix-socket client
    /// together); past it a new connection from that address is closed at once, before it is read. The default,
    /// 128 of the default 1024, is far above what honest clients hold (a browser opens 6 per host, HTTP client
    /// pools tens) and still leaves seven eighths of the server to everyone else. Behind a reverse proxy every
    /// connection comes from the proxy: raise it to `maxConnections` there.
    public var maxConnectionsPerClient: Int
    /// How long one connection may be reused: the first response that ends after it says `Connection: close` and
    /// the connection closes once it is sent. A keep-alive that sends a request every few seconds never reaches
    /// the idle timeout; this bounds it anyway. Ten minutes by default: a client's pool reconnects rarely enough
    /// that the handshake costs nothing, and no connection's slot (or its pinning to one instance behind a load
    /// balancer) is held for good.
    public var maxConnectionAge: Duration
    /// The largest request line or header section, and the largest single header field; larger is answered 431.
    public var maxHeaderBytes: Int

    /// The limits a deployment sets; each default is the one README's configuration table lists.
    public init(
        headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        bodyTimeout: Duration = .seconds(30),
        maxConnections: Int = 1024,
        maxConnectionsPerClient: Int = 128,
        maxConnectionAge: Duration = .seconds(600),
        maxHeaderBytes: Int = 16 * 1024
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.bodyTimeout = bodyTimeout
        self.maxConnections = max(1, maxConnections)
        self.maxConnectionsPerClient = min(max(1, maxConnectionsPerClient), self.maxConnections)
        self.maxConnectionAge = max(.zero, maxConnectionAge)
        self.maxHeaderBytes = max(1024, maxHeaderBytes)
    }
}
