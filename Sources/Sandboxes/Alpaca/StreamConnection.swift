import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import SandboxKit
import Synchronization

/// How one stream connection writes and reads: msgpack when the upgrade asked for it, else JSON.
struct StreamCodec: Sendable {
    enum Format: Sendable { case json, msgpack }
    enum Frames: Sendable { case text, binary }

    let format: Format
    /// The frame type of JSON messages (msgpack is always binary).
    let jsonFrames: Frames

    init(_ request: Request, jsonFrames: Frames) {
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        self.format = contentType.contains("msgpack") ? .msgpack : .json
        self.jsonFrames = jsonFrames
    }

    init(format: Format, jsonFrames: Frames) {
        self.format = format
        self.jsonFrames = jsonFrames
    }

    func frame(_ message: MessagePack) -> WebSocketOutboundWriter.OutboundFrame {
        switch format {
        case .msgpack:
            return .binary(ByteBuffer(bytes: message.encoded))
        case .json:
            let text = message.json.serialized
            return jsonFrames == .text ? .text(text) : .binary(ByteBuffer(string: text))
        }
    }

    /// One inbound message: a binary frame of a msgpack connection is msgpack; anything else is JSON text.
    /// Nil when it is neither.
    func decode(_ message: WebSocketMessage) -> MessagePack? {
        switch message {
        case .text(let text):
            return (try? JSON(parsing: text)).map(MessagePack.init(json:))
        case .binary(let buffer):
            let bytes = Array(buffer: buffer)
            if format == .msgpack, let value = try? MessagePack(decoding: bytes) { return value }
            return (try? JSON(parsing: bytes)).map(MessagePack.init(json:))
        }
    }
}

/// What a stream connection sends, in order: messages, then possibly the end of the connection.
struct StreamOutput: Sendable {
    let continuation: AsyncStream<MessagePack>.Continuation
    let closing: StreamClosing

    func callAsFunction(_ message: MessagePack) { continuation.yield(message) }

    /// Ends the connection once everything sent before is written (the server's close frame follows).
    func close() { closing.request() }
}

/// Whether a handler asked to end its connection.
final class StreamClosing: Sendable {
    private let requested = Mutex(false)
    func request() { requested.withLock { $0 = true } }
    var isRequested: Bool { requested.withLock { $0 } }
}

/// Runs a stream connection: `handle` answers each inbound message (through `send`) and returns the tasks it
/// wants to live as long as the connection (a subscription's forwarder), which push through the same `send`. One
/// writer task writes everything in order; when the client closes (or the server shuts down) the inbound sequence
/// ends and every task of the connection is cancelled. Nothing a client sends can end more than its connection.
func runStreamConnection(
    inbound: WebSocketInboundStream,
    outbound: WebSocketOutboundWriter,
    codec: StreamCodec,
    greeting: MessagePack?,
    handle: @Sendable (MessagePack?, _ send: StreamOutput) async -> [@Sendable () async -> Void]
) async throws {
    let (messages, continuation) = AsyncStream.makeStream(of: MessagePack.self, bufferingPolicy: .bufferingNewest(10_000))
    let (written, writerDone) = AsyncStream.makeStream(of: Void.self)
    let closing = StreamClosing()
    let send = StreamOutput(continuation: continuation, closing: closing)
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            defer { writerDone.finish() }
            for await message in messages {
                do {
                    try await outbound.write(codec.frame(message))
                } catch {
                    return  // the connection is gone; the reader sees its end too
                }
            }
        }
        if let greeting { send(greeting) }
        do {
            for try await message in inbound.messages(maxSize: AlpacaStreams.maximumMessageSize) {
                for task in await handle(codec.decode(message), send) {
                    group.addTask { await task() }
                }
                if closing.isRequested { break }
            }
        } catch {
            // A message over the size limit or a broken connection: the connection ends, the sandbox goes on.
        }
        continuation.finish()
        if closing.isRequested {
            // The server ends the connection: what was sent before goes out first.
            for await _ in written {}
        }
        group.cancelAll()
    }
}
