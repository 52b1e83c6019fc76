import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The gateway's HTTP/1 connections: Hummingbird's `HTTP1Channel` with the server's limits applied (header, body and
/// idle timeouts, header size) and ``RequestGuard`` between NIO's HTTP codec and Hummingbird's, so that a slow or
/// malformed request gets the API's JSON error and a closed connection instead of an empty 400 or an open socket.
/// Every connection of one server shares one ``ConnectionRegistry``: the per-client share, the oldest idle closed
/// at the cap, and the maximum age are kept there and in ``RequestGuard``.
struct GatewayHTTPChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let limits: ServerLimits
    let connections: ConnectionRegistry

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limits = self.limits
        let connections = self.connections
        return channel.eventLoop.makeCompletedFuture {
            var decoderLimits = NIOHTTPDecoderLimitConfiguration()
            decoderLimits.maxHeaderFieldSize = limits.maxHeaderBytes
            decoderLimits.maxHeaderListSize = limits.maxHeaderBytes
            decoderLimits.maxHeaderFieldCount = 256
            let requestGuard = RequestGuard(limits: limits, registry: connections)
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(RequestGuard.RawBytes(requestGuard))
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false,  // NIOAsyncChannel serialises requests
                withErrorHandling: false,  // RequestGuard answers parse errors
                withOutboundHeaderValidation: false,  // swift-http-types validates headers
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: decoderLimits
            )
            try pipeline.addHandler(requestGuard)
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: limits.idleTimeout, logger: logger))
            return try NIOAsyncChannel(
                wrappingChannelSynchronously: channel,
                configuration: .init(isOutboundHalfClosureEnabled: true)
            )
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
