public import Hummingbird
public import HummingbirdWebSocket
public import NIOCore

/// The request context of every sandbox simulator.
///
/// It keeps the connection's channel so fault injection can close a connection without answering,
/// and a slot for the simulator's authenticated principal. It can carry a WebSocket upgrade, so a simulator's
/// streaming endpoints are routes of its one router, behind the same middleware (error rendering, faults).
public struct SandboxRequestContext: RequestContext, WebSocketRequestContext {
    /// Hummingbird's own per-request storage (logger, request id, decoding).
    public var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    public let channel: any Channel
    /// Set by a simulator's authentication middleware (for Alpaca: the account id).
    public var principal: String?
    /// Where a WebSocket route leaves its handler for the upgrade.
    public let webSocket: WebSocketHandlerReference<SandboxRequestContext>

    /// Makes the context for one request on `source`'s channel, with no principal yet.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
        self.principal = nil
        self.webSocket = .init()
    }

    /// Bodies larger than this are refused with 413.
    public var maxUploadSize: Int { 1024 * 1024 }
}
