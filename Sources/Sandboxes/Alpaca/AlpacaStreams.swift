import Foundation
import Hummingbird
import HummingbirdWebSocket
import SandboxKit

/// Alpaca's two WebSocket streams, on the sandbox's own port next to the REST routes:
///
/// | path | Alpaca's host | what |
/// |---|---|---|
/// | `/stream` | `wss://paper-api.alpaca.markets/stream` | `trade_updates` of the authenticated account |
/// | `/v2/{feed}` (`iex`, `sip`, `delayed_sip`, `test`, `boats`, `overnight`, `otc`) | `wss://stream.data.alpaca.markets/v2/{feed}` | stock quotes, trades and minute bars |
/// | `/v1beta3/crypto/{loc}` (`us`) | `wss://stream.data.alpaca.markets/v1beta3/crypto/us` | crypto quotes, trades and minute bars |
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
                inbound,
                outbound,
                context in
                let session = AlpacaDataStream(
                    sandbox: sandbox,
                    kind: .stocks,
                    endpoint: "v2/\(feed)",
                    codec: StreamCodec(context.request, jsonFrames: .text)
                )
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
            let session = AlpacaDataStream(
                sandbox: sandbox,
                kind: .crypto,
                endpoint: "v1beta3/crypto/us",
                codec: StreamCodec(context.request, jsonFrames: .text)
            )
            try await session.run(inbound: inbound, outbound: outbound)
        }
    }

    /// Only a WebSocket upgrade reaches a stream: a plain GET of the path is the 404 of an unknown route it always was.
    static func upgradeOnly(_ request: Request) throws -> RouterShouldUpgrade {
        guard request.headers[.upgrade]?.lowercased() == "websocket" else { throw AlpacaAPIError.forStatus(404) }
        return .upgrade([:])
    }
}
