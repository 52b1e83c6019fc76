public import Hummingbird
public import NIOCore

/// The request context of every sandbox simulator.
///
/// It keeps the connection's channel so fault injection can close a connection without answering,
/// and a slot for the simulator's authenticated principal.
public struct SandboxRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    public let channel: any Channel
    /// Set by a simulator's authentication middleware (for Alpaca: the account id).
    package var principal: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
        self.principal = nil
    }

    /// Bodies larger than this are refused with 413.
    public var maxUploadSize: Int { 1024 * 1024 }
}
