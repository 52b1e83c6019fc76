public import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A broker that attacks: an HTTP/1.1 server on loopback (port 0) whose every answer a test scripts byte for byte,
/// so it can send what no well-behaved library would: `Retry-After: inf`, a `Content-Length` it never honours, a
/// body cut short, a redirect to the cloud metadata address, an answer that never comes.
///
/// Each connection serves one request and is closed after its answer, so every request is counted and recorded
/// (method, target, headers, body) in arrival order. Test support only.
public final class HostileBroker: Sendable {
    /// A request as it arrived.
    public struct Request: Sendable {
        /// The method as sent (`GET`, `POST`, …).
        public var method: String
        /// The request target: path and query.
        public var uri: String
        /// The header fields in arrival order, names as the client spelled them, repeats kept.
        public var headers: [(name: String, value: String)]
        /// The request body's bytes (recording stops past about 1 MiB); empty for none.
        public var body: [UInt8]

        /// `uri` without its query, for scripts that answer by path.
        public var path: String { String(uri.split(separator: "?", maxSplits: 1).first ?? "") }

        /// The first value of a header, by case-insensitive name.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// What to send back.
    public indirect enum Answer: Sendable {
        /// A complete answer: status line, the headers given, `Content-Length` of the body unless the headers set
        /// one (a lie is allowed), `Connection: close`, then the body.
        case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])
        /// These bytes exactly, then the connection is closed (a half-sent answer, a malformed status line).
        case raw([UInt8])
        /// Nothing: the connection stays open and silent until the client gives up or the broker stops.
        case silence
        /// The answer after a delay.
        case delayed(TimeAmount, Answer)
        /// The head and the first `sent` bytes of the body at once, and the rest never (the connection stays open).
        case stalledBody(status: Int, headers: [(String, String)], body: [UInt8], sent: Int)
        /// A chunked body of `chunk` repeated `count` times, each chunk written once the one before has left (so
        /// the broker holds one chunk, not the body), then the end; with `count` `nil`, endless: chunks until the
        /// client closes the connection.
        case streamed(status: Int, headers: [(String, String)], chunk: [UInt8], count: Int?)
    }

    /// Chooses the answer to each request; called on the connection's event loop, for many requests at once, so
    /// it must not block and keeps any state of its own behind a lock.
    public typealias Script = @Sendable (Request) -> Answer

    let script: Script
    let recorded = Mutex<[Request]>([])
    let children = Mutex<[any Channel]>([])
    let server = Mutex<(any Channel)?>(nil)

    /// `http://<host>:PORT`, once it listens.
    public let url: String
    /// The ephemeral port the broker listens on.
    public let port: Int

    init(script: @escaping Script, host: String, port: Int) {
        self.script = script
        self.port = port
        self.url = "http://\(host):\(port)"
    }

    /// Every request received so far.
    public var requests: [Request] { recorded.withLock { $0 } }

    /// Runs `body` with a broker listening on `host` (a loopback address: 127.0.0.1 by default; on Linux any
    /// 127.x.y.z works, which lets a test put two "origins" on different addresses) and an ephemeral port, and stops
    /// it afterwards (open connections included), whether `body` returns or throws.
    public static func withBroker<T: Sendable>(
        host: String = "127.0.0.1",
        _ script: @escaping Script,
        _ body: (HostileBroker) async throws -> T
    ) async throws -> T {
        let holder = Mutex<HostileBroker?>(nil)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let broker = holder.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    broker.children.withLock { $0.append(channel) }
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes))
                    )
                    try channel.pipeline.syncOperations.addHandler(Handler(broker: broker))
                }
            }
        let channel = try await bootstrap.bind(host: host, port: 0).get()
        let broker = HostileBroker(script: script, host: host, port: channel.localAddress?.port ?? 0)
        holder.withLock { $0 = broker }
        broker.server.withLock { $0 = channel }
        do {
            let result = try await body(broker)
            await broker.stop()
            return result
        } catch {
            await broker.stop()
            throw error
        }
    }

    func stop() async {
        let server = self.server.withLock { $0 }
        try? await server?.close()
        for child in children.withLock({ $0 }) { try? await child.close() }
    }

    func record(_ request: Request) {
        recorded.withLock { $0.append(request) }
    }

    /// Reads one request, asks the script, writes the answer.
    final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = ByteBuffer

        let broker: HostileBroker
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(broker: HostileBroker) {
            self.broker = broker
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = []
            case .body(var buffer):
                if body.count < 1 << 20, let bytes = buffer.readBytes(length: buffer.readableBytes) { body += bytes }
            case .end:
                guard let head else { return }
                let request = Request(
                    method: head.method.rawValue,
                    uri: head.uri,
                    headers: head.headers.map { ($0.name, $0.value) },
                    body: body
                )
                broker.record(request)
                send(broker.script(request), context: context)
            }
        }

        func send(_ answer: Answer, context: ChannelHandlerContext) {
            switch answer {
            case .respond(let status, let headers, let body):
                var bytes = Self.head(status: status, headers: headers, bodyLength: body.count)
                bytes += body
                write(bytes, context: context, thenClose: true)
            case .raw(let bytes):
                write(bytes, context: context, thenClose: true)
            case .silence:
                break
            case .delayed(let delay, let later):
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: delay) {
                    let (handler, context) = loopBound.value
                    handler.send(later, context: context)
                }
            case .stalledBody(let status, let headers, let body, let sent):
                var bytes = Self.head(status: status, headers: headers, bodyLength: body.count)
                bytes += body.prefix(max(0, sent))
                write(bytes, context: context, thenClose: false)
            case .streamed(let status, let headers, let chunk, let count):
                var head = "HTTP/1.1 \(status) Hostile\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                head += "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                write(Array(head.utf8), context: context, thenClose: false)
                let frame = Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10]
                Self.stream(frame, remaining: count, channel: context.channel)
            }
        }

        /// Writes `frame` after the previous one has left, `remaining` more times (forever with `nil`), then the
        /// last chunk and the close; stops when the client has gone.
        static func stream(_ frame: [UInt8], remaining: Int?, channel: any Channel) {
            guard channel.isActive else { return }
            if let remaining, remaining <= 0 {
                let end = channel.allocator.buffer(bytes: Array("0\r\n\r\n".utf8))
                channel.writeAndFlush(end).whenComplete { _ in channel.close(promise: nil) }
                return
            }
            channel.writeAndFlush(channel.allocator.buffer(bytes: frame)).whenComplete { result in
                guard case .success = result else { return }
                // On the loop's next turn: a write that completes at once must not deepen the stack.
                channel.eventLoop.execute { stream(frame, remaining: remaining.map { $0 - 1 }, channel: channel) }
            }
        }

        func write(_ bytes: [UInt8], context: ChannelHandlerContext, thenClose: Bool) {
            let buffer = context.channel.allocator.buffer(bytes: bytes)
            let written = context.writeAndFlush(wrapOutboundOut(buffer))
            if thenClose {
                let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                written.whenComplete { _ in loopBound.value.close(promise: nil) }
            }
        }

        static func head(status: Int, headers: [(String, String)], bodyLength: Int) -> [UInt8] {
            var text = "HTTP/1.1 \(status) Hostile\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            if !headers.contains(where: { $0.0.lowercased() == "content-length" }) {
                text += "Content-Length: \(bodyLength)\r\n"
            }
            text += "Connection: close\r\n\r\n"
            return Array(text.utf8)
        }
    }
}

extension HostileBroker.Answer {
    /// A JSON answer.
    public static func json(_ status: Int = 200, _ text: String, headers: [(String, String)] = []) -> Self {
        .respond(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
    }
}
