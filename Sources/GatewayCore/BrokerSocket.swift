public import Foundation
public import HTTPTypes

/// A WebSocket to a broker's own push stream (Alpaca's market data and trade updates), opened through the same
/// egress policy as every broker call: the address connected to is a checked one, a sandbox connection reaches only
/// its sandbox, and nothing else on loopback or a private network is reachable.
public struct BrokerSocketRequest: Sendable {
    /// `ws://` or `wss://`, path and query included.
    public var url: String
    /// Sent with the upgrade request; never logged, so they may carry a credential.
    public var headers: HTTPFields
    /// How long connecting and the upgrade may take.
    public var connectTimeout: Duration
    /// The largest message accepted (a larger one closes the socket as `malformed_response`).
    public var maxMessageBytes: Int
    /// What logs and errors may show of it.
    public var loggedPath: String
    /// As ``BrokerRequest/sandboxOrigin``: set by the adapter registry only.
    public var sandboxOrigin: EgressOrigin?

    /// A socket request with a 10 s connect timeout and 1 MiB messages unless told otherwise; `loggedPath` has no
    /// default because only the adapter knows which parts of its URL are safe to show.
    public init(
        url: String,
        headers: HTTPFields = [:],
        connectTimeout: Duration = .seconds(10),
        maxMessageBytes: Int = 1 << 20,
        loggedPath: String
    ) {
        self.url = url
        self.headers = headers
        self.connectTimeout = connectTimeout
        self.maxMessageBytes = maxMessageBytes
        self.loggedPath = loggedPath
    }

    /// The same URL with the HTTP scheme the egress policy judges (`ws` is `http`, `wss` is `https`).
    var httpURL: String? {
        if url.lowercased().hasPrefix("ws://") { return "http://" + url.dropFirst(5) }
        if url.lowercased().hasPrefix("wss://") { return "https://" + url.dropFirst(6) }
        return nil
    }
}

/// One message of a broker's socket.
public enum BrokerSocketMessage: Sendable, Hashable {
    /// A text frame's payload (JSON, for Alpaca), decoded as UTF-8.
    case text(String)
    /// A binary frame's payload, as the broker sent it.
    case binary(Data)

    /// The message's bytes (text as UTF-8).
    public var data: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .binary(let data): data
        }
    }
}

/// An open socket: its messages, and a way to send text. Valid only inside ``BrokerSocketTransport/withSocket``.
public struct BrokerSocket: Sendable {
    /// The broker's messages in arrival order (fragments joined, pings answered); ends when the broker closes the
    /// socket and throws `malformed_response` for a message over the size limit. Iterate it from one task.
    public let messages: AsyncThrowingStream<BrokerSocketMessage, any Error>
    let sendText: @Sendable (String) async throws -> Void

    /// A socket over the given stream and sender; transports make it, and tests make one over their own stream.
    public init(
        messages: AsyncThrowingStream<BrokerSocketMessage, any Error>,
        send: @escaping @Sendable (String) async throws -> Void
    ) {
        self.messages = messages
        self.sendText = send
    }

    /// Sends one text message (a subscription, an authentication); throws when the socket is closed.
    public func send(_ text: String) async throws {
        try await sendText(text)
    }
}

/// What can open broker sockets: ``HTTPClientTransport`` (the network, under the egress policy), and test doubles.
public protocol BrokerSocketTransport: Sendable {
    /// Opens the socket, runs `body` with it, and closes it when `body` returns or throws (or the task is cancelled).
    /// The socket's messages end when the broker closes it.
    func withSocket<Result: Sendable>(
        _ request: BrokerSocketRequest,
        _ body: @Sendable (BrokerSocket) async throws -> Result
    ) async throws -> Result
}

/// Marks each socket of a connection with the sandbox origin it may reach, as ``SandboxOriginTransport`` does calls.
struct SandboxOriginSocketTransport: BrokerSocketTransport {
    let wrapped: any BrokerSocketTransport
    let sandboxOrigin: EgressOrigin?

    func withSocket<Result: Sendable>(
        _ request: BrokerSocketRequest,
        _ body: @Sendable (BrokerSocket) async throws -> Result
    ) async throws -> Result {
        var request = request
        request.sandboxOrigin = sandboxOrigin
        return try await wrapped.withSocket(request, body)
    }
}
