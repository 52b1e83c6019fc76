import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// HTTP/1 with the WebSocket upgrade, whose connections that never sent a byte close on graceful shutdown.
///
/// hummingbird-websocket's upgrading channel waits for a connection's first request before its HTTP handling (and
/// with it the graceful shutdown) starts, so a client's idle connection that never sent one (a connection pool's
/// spare, made for a request another connection took) held the server's stop until the client closed it: 60 s for
/// the gateway's pool, and under a cancellation past the service lifecycle's bound. This wraps that channel: a
/// marker at the front of each connection's pipeline records the first byte read, and on graceful shutdown a
/// connection with none is closed; one with a request under way finishes it as before (the HTTP handler registers
/// its own shutdown handler once the request is read, and runs it at once if the stop has begun).
struct QuiescingUpgradeChannel: ServerChildChannel {
    let inner: HTTP1WebSocketUpgradeChannel

    struct Value: ServerChildChannelValue {
        let inner: HTTP1WebSocketUpgradeChannel.Value
        let marker: FirstReadMarker
        var channel: any Channel { inner.channel }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let marker = FirstReadMarker()
        do {
            try channel.pipeline.syncOperations.addHandler(marker, position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).map { Value(inner: $0, marker: marker) }
    }

    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        let marker = value.marker
        await withGracefulShutdownHandler {
            await inner.handle(value: value.inner, logger: logger)
        } onGracefulShutdown: {
            channel.eventLoop.execute {
                if !marker.hasRead { channel.close(promise: nil) }
            }
        }
    }
}

/// Records, on the channel's event loop, whether the connection has read anything; passes every read on unchanged.
final class FirstReadMarker: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Only read and written on the channel's event loop.
    private(set) var hasRead = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        hasRead = true
        context.fireChannelRead(data)
    }
}

extension HTTPServerBuilder {
    /// ``QuiescingUpgradeChannel``: HTTP/1 with `webSocketRouter`'s WebSocket upgrade, stopping promptly.
    static func quiescingHTTP1WebSocketUpgrade<WSResponderBuilder: HTTPResponderBuilder>(
        webSocketRouter: WSResponderBuilder,
        configuration: HTTP1WebSocketUpgradeChannel.Configuration
    ) -> HTTPServerBuilder where WSResponderBuilder.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            QuiescingUpgradeChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder,
                    webSocketResponder: webSocketResponder,
                    configuration: configuration
                )
            )
        }
    }
}
