import Foundation
import GatewayCore
import NIOCore
import NIOHTTP1

/// Guards one HTTP/1 connection below Hummingbird: a request head that does not arrive within the header timeout
/// once its first byte has (a half-sent or trickled head), a body that does not arrive within the body timeout once
/// its head has, and a request the HTTP parser refuses (a request line or headers over the limit, garbage) are
/// answered with the API's JSON error (408, 408, 431 or 400) and the connection is closed. Without it, Hummingbird
/// answers a parse error with an empty 400 and waits for a slow client as long as it keeps sending.
///
/// It sits between NIO's HTTP/1 codec and Hummingbird's, so it sees decoded request parts and the response parts
/// on their way out; ``RequestGuard/RawBytes`` sits in front of the decoder and tells it when the first byte of a
/// request arrives. Both run on the connection's event loop.
///
/// It also keeps the connection's place in the server's ``ConnectionRegistry``: it joins when the connection becomes
/// active (and closes it at once when the registry refuses it), tells the registry when the connection is idle or
/// busy (idle: no byte of a next request and no response under way), drops a request whose connection the registry
/// closed to make room, and ends a connection older than ``ServerLimits/maxConnectionAge`` after its response.
final class RequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Inbound {
        /// Between requests: no byte of the next one yet.
        case idle
        /// Bytes of a request head have arrived, the head is not complete.
        case readingHead
        /// The head arrived, the body has not ended.
        case readingBody
    }

    private let limits: ServerLimits
    private let registry: ConnectionRegistry
    /// The connection's ticket in the registry; `nil` before it joins, or when it was refused.
    private var ticket: Int?
    private var joined = false
    /// The registry was last told the connection is idle.
    private var reportedIdle = false
    /// When the connection was set up, for its maximum age.
    private let openedAt = NIODeadline.now()
    /// The response under way says `Connection: close`: the connection ends with it.
    private var closeAfterResponse = false
    private var inbound = Inbound.idle
    /// Requests whose head arrived and whose response has not ended.
    private var pendingResponses = 0
    /// The oldest pending response has started (its head was written).
    private var responseStarted = false
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    private var answered = false

    init(limits: ServerLimits, registry: ConnectionRegistry) {
        self.limits = limits
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { join(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        join(context: context)
        context.fireChannelActive()
    }

    /// Takes the connection's place in the registry, or closes it at once when there is none for it.
    private func join(context: ChannelHandlerContext) {
        guard !joined else { return }
        joined = true
        if let ticket = registry.admit(context.channel) {
            self.ticket = ticket
            reportedIdle = true
        } else {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        if let ticket { registry.remove(ticket) }
        ticket = nil
        context.fireChannelInactive()
    }

    /// The first bytes of a request arrived (from ``RawBytes``): the head must be complete within the header timeout.
    /// `false` when they must not be read: the connection was refused, or closed to make room for another.
    func bytesArrived() -> Bool {
        guard inbound == .idle, let context else { return true }
        guard let ticket, !reportedIdle || registry.markBusy(ticket) else {
            context.close(promise: nil)
            return false
        }
        reportedIdle = false
        inbound = .readingHead
        schedule(limits.headerTimeout, .head, on: context)
        return true
    }

    /// Tells the registry the connection is idle once nothing is under way: the request was read and its response
    /// sent (in either order: a response may end before its request's body has).
    private func becomeIdleIfQuiet() {
        guard inbound == .idle, pendingResponses == 0, !reportedIdle, let ticket else { return }
        reportedIdle = true
        registry.markIdle(ticket)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            cancelTimer()
            inbound = .readingBody
            pendingResponses += 1
            schedule(limits.bodyTimeout, .body, on: context)
        case .body:
            break
        case .end:
            cancelTimer()
            inbound = .idle
            becomeIdleIfQuiet()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            responseStarted = true
            // An informational (1xx) head is not the response: the final one carries the connection's fate.
            if head.status.code >= 200, closeAfterResponse || isPastMaximumAge {
                closeAfterResponse = true
                head.headers.replaceOrAdd(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
        case .body:
            break
        case .end:
            pendingResponses = max(0, pendingResponses - 1)
            responseStarted = false
            // The connection is idle (or ends) once the response's last byte left, not when it was queued: a
            // connection closed to make room must not lose the end of a response.
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in handler.value.responseEnded() }
            context.write(data, promise: written)
            return
        }
        context.write(data, promise: promise)
    }

    private var isPastMaximumAge: Bool {
        NIODeadline.now() - openedAt >= TimeAmount(limits.maxConnectionAge)
    }

    private func responseEnded() {
        if closeAfterResponse {
            context?.close(promise: nil)
        } else {
            becomeIdleIfQuiet()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, pendingResponses == 0 else {
            context.fireErrorCaught(error)
            return
        }
        // A request the parser refused before any response is under way: answer it here, as JSON, and close (the
        // parser cannot go on after an error).
        cancelTimer()
        let answer: GatewayError =
            switch parserError {
            case .headerOverflow:
                GatewayError(
                    .headersTooLarge,
                    "the request line or headers are larger than \(limits.maxHeaderBytes) bytes (or there are too many headers)"
                )
            default:
                GatewayError(.invalidRequest, "the request is not valid HTTP/1.1")
            }
        respondAndClose(answer, context: context)
    }

    private func headTimedOut() {
        guard inbound == .readingHead, let context else { return }
        if pendingResponses == 0 {
            respondAndClose(
                GatewayError(.requestTimeout, "the request's head did not arrive within \(Self.describe(limits.headerTimeout))"),
                context: context
            )
        } else {
            context.close(promise: nil)
        }
    }

    private func bodyTimedOut() {
        guard inbound == .readingBody, let context else { return }
        if pendingResponses == 1, !responseStarted {
            respondAndClose(
                GatewayError(.requestTimeout, "the request's body did not arrive within \(Self.describe(limits.bodyTimeout))"),
                context: context
            )
        } else {
            context.close(promise: nil)
        }
    }

    private func respondAndClose(_ error: GatewayError, context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let body = APIError.json(error, requestId: RandomIdentifier.prefixed("req_", byteCount: 8))
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Content-Security-Policy", value: SecurityHeadersMiddleware<APIContext>.contentSecurityPolicy)
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        let head = HTTPResponseHead(
            version: .http1_1,
            status: HTTPResponseStatus(statusCode: error.code.httpStatus),
            headers: headers
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }

    private enum Deadline: Sendable {
        case head, body
    }

    private func schedule(_ delay: Duration, _ deadline: Deadline, on context: ChannelHandlerContext) {
        cancelTimer()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
            handler.value.timer = nil
            switch deadline {
            case .head: handler.value.headTimedOut()
            case .body: handler.value.bodyTimedOut()
            }
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }

    static func describe(_ duration: Duration) -> String {
        let milliseconds = Int(duration.milliseconds.rounded())
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    /// In front of the HTTP decoder: tells the guard when bytes of a request arrive.
    final class RawBytes: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer

        private let guardHandler: RequestGuard

        init(_ guardHandler: RequestGuard) {
            self.guardHandler = guardHandler
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if unwrapInboundIn(data).readableBytes > 0, !guardHandler.bytesArrived() { return }
            context.fireChannelRead(data)
        }
    }
}
