import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// Broker sockets over SwiftNIO's WebSocket client, under the same rules as calls: the URL's checks, then a checked
/// address of the host name (``HTTPClientTransport/destination(_:granted:)``), connected to directly, so the address
/// the egress policy judged is the one connected to; TLS still checks the host name's certificate, and the upgrade
/// request names the host. Pings are answered; a message over the size limit closes the socket.
extension HTTPClientTransport: BrokerSocketTransport {
    private enum Upgrade: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused
    }

    private static let tls: Result<NIOSSLContext, any Error> = Result {
        try NIOSSLContext(configuration: .makeClientConfiguration())
    }

    /// Opens the socket under the egress policy and runs `body` with it; a URL that is not `ws://`/`wss://` is an
    /// `invalid_request`, a destination the policy refuses `egress_refused`, a refused or unreachable upgrade
    /// `upstream_unavailable`, a slow one `upstream_timeout` (`connectTimeout`). The socket is closed when `body`
    /// returns or throws.
    public func withSocket<Output: Sendable>(
        _ request: BrokerSocketRequest,
        _ body: @Sendable (BrokerSocket) async throws -> Output
    ) async throws -> Output {
        guard let httpURL = request.httpURL, let components = URLComponents(string: httpURL) else {
            throw GatewayError(
                .invalidRequest,
                "a broker stream URL must be ws:// or wss:// (\(request.loggedPath))",
                retryable: false
            )
        }
        var asCall = BrokerRequest(method: .get, url: httpURL, loggedPath: request.loggedPath)
        asCall.sandboxOrigin = request.sandboxOrigin
        let target = try checkedTarget(asCall)
        let host = BrokerText.sanitized(target.host, limit: 100)
        let upgrade: Upgrade
        do {
            upgrade = try await withDeadline(request.connectTimeout) {
                let key = try await destination(target, granted: request.sandboxOrigin == target.origin)
                let address = key == .literal ? (target.literal?.description ?? target.host) : key.address
                return try await Self.connect(
                    address: address,
                    target: target,
                    components: components,
                    headers: request.headers,
                    maxFrame: request.maxMessageBytes
                )
            }
        } catch let error as GatewayError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw GatewayError(.upstreamUnavailable, "\(host)'s stream could not be reached (\(type(of: error)))")
        }
        guard case .websocket(let channel) = upgrade else {
            throw GatewayError(.upstreamUnavailable, "\(host) refused to open its stream (\(request.loggedPath))")
        }
        let limit = request.maxMessageBytes
        return try await channel.executeThenClose { inbound, outbound in
            let (messages, continuation) = AsyncThrowingStream.makeStream(of: BrokerSocketMessage.self)
            let socket = BrokerSocket(messages: messages) { text in
                try await outbound.write(
                    WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
                )
            }
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        try await Self.read(inbound, outbound, limit: limit, host: host, into: continuation)
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                defer { group.cancelAll() }
                return try await body(socket)
            }
        }
    }

    private static func connect(
        address: String,
        target: EgressTarget,
        components: URLComponents,
        headers: HTTPFields,
        maxFrame: Int
    ) async throws -> Upgrade {
        let tlsContext: NIOSSLContext? = target.scheme == "https" ? try tls.get() : nil
        let serverName = target.literal == nil ? target.host : nil
        let defaultPort = target.scheme == "https" ? 443 : 80
        let hostHeader = target.port == defaultPort ? target.host : "\(target.host):\(target.port)"
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let uri = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
        var head = HTTPHeaders()
        head.add(name: "Host", value: hostHeader)
        for field in headers { head.add(name: field.name.rawName, value: field.value) }
        head.add(name: "Content-Length", value: "0")
        let requestHead = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: head)
        let negotiated: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: address, port: target.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tlsContext {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tlsContext, serverHostname: serverName)
                        )
                    }
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
                        maxFrameSize: maxFrame,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                .websocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                            }
                        }
                    )
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: requestHead,
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.eventLoop.makeCompletedFuture { .refused }
                        }
                    )
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration)
                    )
                }
            }
        return try await negotiated.get()
    }

    /// Turns frames into messages (joining fragments), answers pings, and ends at the broker's close.
    private static func read(
        _ inbound: NIOAsyncChannelInboundStream<WebSocketFrame>,
        _ outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>,
        limit: Int,
        host: String,
        into continuation: AsyncThrowingStream<BrokerSocketMessage, any Error>.Continuation
    ) async throws {
        var fragments: (opcode: WebSocketOpcode, data: ByteBuffer)?
        func deliver(_ opcode: WebSocketOpcode, _ data: ByteBuffer) {
            if opcode == .text {
                continuation.yield(.text(String(decoding: data.readableBytesView, as: UTF8.self)))
            } else {
                continuation.yield(.binary(Data(data.readableBytesView)))
            }
        }
        for try await frame in inbound {
            switch frame.opcode {
            case .ping:
                try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData))
            case .text, .binary:
                if frame.fin {
                    deliver(frame.opcode, frame.unmaskedData)
                } else {
                    fragments = (frame.opcode, frame.unmaskedData)
                }
            case .continuation:
                guard var joined = fragments else {
                    throw GatewayError(.malformedResponse, "\(host)'s stream sent a continuation without a message")
                }
                var part = frame.unmaskedData
                guard joined.data.readableBytes + part.readableBytes <= limit else {
                    throw GatewayError(.malformedResponse, "\(host)'s stream sent a message over \(limit) bytes")
                }
                joined.data.writeBuffer(&part)
                if frame.fin {
                    fragments = nil
                    deliver(joined.opcode, joined.data)
                } else {
                    fragments = joined
                }
            case .connectionClose:
                try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer()))
                return
            default:
                break
            }
        }
    }
}
