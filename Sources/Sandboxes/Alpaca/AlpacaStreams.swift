import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import SandboxKit

/// Alpaca's two WebSocket streams, on the sandbox's own port next to the REST routes:
///
/// | path | Alpaca's host | what |
/// |---|---|---|
/// | `/stream` | `wss://paper-api.alpaca.markets/stream` | `trade_updates` of the authenticated account |
/// | `/v2/{feed}` (`iex`, `sip`, `delayed_sip`, `test`, `boats`, `overnight`, `otc`) | `wss://stream.data.alpaca.markets/v2/{feed}` | stock quotes and trades |
/// | `/v1beta3/crypto/{loc}` (`us`) | `wss://stream.data.alpaca.markets/v1beta3/crypto/us` | crypto quotes and trades |
///
/// Credentials travel in-band (an `auth` message), checked against the same keys as the REST API. A client that
/// sends `Content-Type: application/msgpack` on the upgrade request (alpaca-py's data streams do) is answered in
/// msgpack, binary frames; otherwise JSON: text frames on the data streams, binary frames on the trading stream (as
/// Alpaca's own servers send them). A plain GET of a stream path (no upgrade) is a 404, as before the streams existed.
struct AlpacaStreams: Sendable {
    let sandbox: AlpacaSandbox

    static let stockFeeds = ["iex", "sip", "delayed_sip", "test", "boats", "overnight", "otc"]

    /// Largest inbound message taken (a subscription of a few thousand symbols); larger ones end the connection.
    static let maximumMessageSize = 1 << 20

    func register(on router: Router<SandboxRequestContext>) {
        let sandbox = self.sandbox
        router.ws("stream", shouldUpgrade: { request, _ in try Self.upgradeOnly(request) }) { inbound, outbound, context in
            let session = AlpacaTradingStream(sandbox: sandbox, codec: StreamCodec(context.request, jsonFrames: .binary))
            try await session.run(inbound: inbound, outbound: outbound)
        }
        for feed in Self.stockFeeds {
            router.ws(RouterPath(stringLiteral: "v2/\(feed)"), shouldUpgrade: { request, _ in try Self.upgradeOnly(request) }) {
                inbound, outbound, context in
                let session = AlpacaDataStream(sandbox: sandbox, kind: .stocks, codec: StreamCodec(context.request, jsonFrames: .text))
                try await session.run(inbound: inbound, outbound: outbound)
            }
        }
        router.ws(
            "v1beta3/crypto/:loc",
            shouldUpgrade: { request, context in
                guard context.parameters.get("loc") == "us" else { throw AlpacaAPIError.forStatus(404) }
                return try Self.upgradeOnly(request)
            }
        ) { inbound, outbound, context in
            let session = AlpacaDataStream(sandbox: sandbox, kind: .crypto, codec: StreamCodec(context.request, jsonFrames: .text))
            try await session.run(inbound: inbound, outbound: outbound)
        }
    }

    /// Only a WebSocket upgrade reaches a stream: a plain GET of the path is the 404 of an unknown route it always was.
    static func upgradeOnly(_ request: Request) throws -> RouterShouldUpgrade {
        guard request.headers[.upgrade]?.lowercased() == "websocket" else { throw AlpacaAPIError.forStatus(404) }
        return .upgrade([:])
    }
}

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

/// Runs a stream connection: `handle` answers each inbound message (through `send`) and returns the tasks it
/// wants to live as long as the connection (a subscription's forwarder), which push through the same `send`. One
/// writer task writes everything in order; when the client closes (or the server shuts down) the inbound sequence
/// ends and every task of the connection is cancelled. Nothing a client sends can end more than its connection.
func runStreamConnection(
    inbound: WebSocketInboundStream,
    outbound: WebSocketOutboundWriter,
    codec: StreamCodec,
    greeting: MessagePack?,
    handle: @Sendable (MessagePack?, _ send: @escaping @Sendable (MessagePack) -> Void) async -> [@Sendable () async -> Void]
) async throws {
    let (messages, continuation) = AsyncStream.makeStream(of: MessagePack.self, bufferingPolicy: .bufferingNewest(10_000))
    let send: @Sendable (MessagePack) -> Void = { continuation.yield($0) }
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
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
            }
        } catch {
            // A message over the size limit or a broken connection: the connection ends, the sandbox goes on.
        }
        continuation.finish()
        group.cancelAll()
    }
}
