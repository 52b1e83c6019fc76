import Foundation
import HummingbirdWebSocket
import SandboxKit
import Synchronization

/// One connection to the trading stream (`/stream`): in-band authentication, then `trade_updates` of that account.
///
/// ```
/// → {"action":"auth","key":"…","secret":"…"}     (or alpaca-py's {"action":"authenticate","data":{"key_id","secret_key"}},
///                                                or {"action":"authenticate","data":{"oauth_token":"…"}})
/// ← {"stream":"authorization","data":{"action":"authenticate","status":"authorized"}}   ("unauthorized" for bad keys)
/// → {"action":"listen","data":{"streams":["trade_updates"]}}
/// ← {"stream":"listening","data":{"streams":["trade_updates"]}}
/// ← {"stream":"trade_updates","data":{"event":"new",…}}  {"stream":"trade_updates","data":{"event":"fill",…}} …
/// ```
/// A listen before authenticating is answered `{"stream":"authorization","data":{"action":"listen","status":"unauthorized"}}`;
/// `listen` names the whole set (an empty list stops the updates), and unknown streams are left out of the answer.
/// A message that is not JSON (or msgpack, on a msgpack connection) or names no known action is answered
/// `{"stream":"error","data":{"error_message":"invalid syntax"}}` (the sandbox's wording: Alpaca documents none).
///
/// While authenticated, every market move (a pinned price, an admin clock move, and with the wall clock every
/// price bucket) runs the account's matching tick, so a resting order the price reaches fills and is streamed
/// without waiting for a REST request.
final class AlpacaTradingStream: Sendable {
    let sandbox: AlpacaSandbox
    let codec: StreamCodec

    private struct State {
        var account: UUID?
        /// Ends the `trade_updates` subscription; nil while not listening.
        var stopListening: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    init(sandbox: AlpacaSandbox, codec: StreamCodec) {
        self.sandbox = sandbox
        self.codec = codec
    }

    static let knownStreams: Set<String> = ["trade_updates"]

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        try await runStreamConnection(inbound: inbound, outbound: outbound, codec: codec, greeting: nil) { message, send in
            self.handle(message, send: send)
        }
    }

    /// Answers one message; returns the tasks it starts (the market wake-ups on authenticating, the forwarder of
    /// `trade_updates` on listening).
    func handle(_ message: MessagePack?, send: StreamOutput) -> [@Sendable () async -> Void] {
        guard let message, let action = message["action"]?.stringValue else {
            send(Self.error("invalid syntax"))
            return []
        }
        switch action {
        case "auth", "authenticate":
            // {"action":"auth","key","secret"}, the older {"action":"authenticate","data":{"key_id","secret_key"}}, or
            // an OAuth token {"action":"authenticate","data":{"oauth_token"}}.
            let key = message["key"]?.stringValue ?? message["data"]?["key_id"]?.stringValue
            let secret = message["secret"]?.stringValue ?? message["data"]?["secret_key"]?.stringValue
            let token = message["data"]?["oauth_token"]?.stringValue
            let account =
                if let key, let secret { sandbox.account(keyID: key, secret: secret) } else { token.flatMap(sandbox.account(oauthToken:)) }
            guard let account else {
                send(Self.authorization(action: "authenticate", authorized: false))
                return []
            }
            let first = state.withLock { (state: inout State) -> Bool in
                guard state.account == nil else { return false }
                state.account = account
                return true
            }
            guard first else {
                send(Self.authorization(action: "authenticate", authorized: true))
                return []
            }
            // Registered before the answer is sent: a move right after it is not missed.
            let wakeups = MarketWakeups(market: sandbox.market)
            send(Self.authorization(action: "authenticate", authorized: true))
            let sandbox = self.sandbox
            return wakeups.tasks { sandbox.evaluate(account: account) }
        case "listen":
            guard let account = state.withLock({ $0.account }) else {
                send(Self.authorization(action: "listen", authorized: false))
                return []
            }
            guard let requested = message["data"]?["streams"]?.arrayValue else {
                send(Self.error("invalid syntax"))
                return []
            }
            let streams = requested.compactMap(\.stringValue).filter(Self.knownStreams.contains)
            var unique: [String] = []
            for stream in streams where !unique.contains(stream) { unique.append(stream) }
            // The listener is added (or removed) before the answer: every change after it is sent (or none is).
            var tasks: [@Sendable () async -> Void] = []
            if unique.contains("trade_updates") {
                if state.withLock({ $0.stopListening == nil }) {
                    let (updates, stop) = sandbox.tradeUpdates.listen(account: account)
                    state.withLock { $0.stopListening = stop }
                    tasks.append {
                        for await update in updates { send(Self.tradeUpdate(update)) }
                    }
                }
            } else {
                state.withLock { state in
                    state.stopListening?()
                    state.stopListening = nil
                }
            }
            send(.object(["stream": "listening", "data": .object(["streams": .array(unique.map(MessagePack.string))])]))
            return tasks
        default:
            send(Self.error("invalid syntax"))
            return []
        }
    }

    static func authorization(action: String, authorized: Bool) -> MessagePack {
        .object([
            "stream": "authorization",
            "data": .object(["action": .string(action), "status": .string(authorized ? "authorized" : "unauthorized")]),
        ])
    }

    static func error(_ text: String) -> MessagePack {
        .object(["stream": "error", "data": .object(["error_message": .string(text)])])
    }

    static func tradeUpdate(_ update: AlpacaTradeUpdate) -> MessagePack {
        .object(["stream": "trade_updates", "data": MessagePack(json: update.data)])
    }
}
