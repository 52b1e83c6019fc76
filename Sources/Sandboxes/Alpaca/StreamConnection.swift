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
    let events: AsyncStream<StreamEvent>.Continuation

    func callAsFunction(_ message: MessagePack) { continuation.yield(message) }

    /// Ends the connection once everything sent before is written (the server's close frame follows).
    func close() { events.yield(.close) }
}

/// What the connection's loop acts on, in order: each inbound message (nil when unreadable), or a close.
enum StreamEvent: Sendable {
    case message(MessagePack?)
    case close
}

/// Runs a stream connection. A reader task turns inbound frames into events; the connection's loop answers each
/// message with `handle` (through `send`) and starts the tasks it returns, which live as long as the connection (a
/// subscription's forwarder, a timer) and push through the same `send`; `start` gives the first such tasks. One
/// writer task writes everything in order. When the client closes (or the server shuts down) the events end and
/// every task of the connection is cancelled; when a handler or task asks to close, what was sent before is written
/// first. Nothing a client sends can end more than its connection.
func runStreamConnection(
    inbound: WebSocketInboundStream,
    outbound: WebSocketOutboundWriter,
    codec: StreamCodec,
    greeting: MessagePack?,
    start: (_ send: StreamOutput) -> [@Sendable () async -> Void] = { _ in [] },
    handle: @Sendable (MessagePack?, _ send: StreamOutput) async -> [@Sendable () async -> Void]
) async throws {
    let (messages, continuation) = AsyncStream.makeStream(of: MessagePack.self, bufferingPolicy: .bufferingNewest(10_000))
    let (written, writerDone) = AsyncStream.makeStream(of: Void.self)
    let (events, eventSink) = AsyncStream.makeStream(of: StreamEvent.self)
    let send = StreamOutput(continuation: continuation, events: eventSink)
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
        group.addTask {
            defer { eventSink.finish() }
            do {
                for try await message in inbound.messages(maxSize: AlpacaStreams.maximumMessageSize) {
                    eventSink.yield(.message(codec.decode(message)))
                }
            } catch {
                // A message over the size limit or a broken connection: the connection ends, the sandbox goes on.
            }
        }
        if let greeting { send(greeting) }
        for task in start(send) { group.addTask { await task() } }
        var closing = false
        for await event in events {
            guard case .message(let message) = event else {
                closing = true
                break
            }
            for task in await handle(message, send) { group.addTask { await task() } }
        }
        continuation.finish()
        if closing {
            // The server ends the connection: what was sent before goes out first.
            for await _ in written {}
        }
        group.cancelAll()
    }
}
