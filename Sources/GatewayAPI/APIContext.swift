public import Hummingbird
public import NIOCore

/// The per-request context of the unified API's Hummingbird router. Who is calling travels as a task-local
/// (`RequestIdentity`), set by the OpenAPI authentication middleware, since the generated handlers see no context;
/// so does the client's address (``ClientAddressMiddleware``), which logins are limited by.
public struct APIContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's own per-request state (logger, request id, allocator), which every `RequestContext` carries.
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection the request came on (`nil` in in-process tests).
    public let remoteAddress: SocketAddress?

    /// Made by the router for each request: reads the peer's address from the channel the request came on.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
