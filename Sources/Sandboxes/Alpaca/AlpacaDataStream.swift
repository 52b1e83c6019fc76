import Foundation
import HummingbirdWebSocket
import SandboxKit
import Synchronization

/// One connection to a market-data stream (`/v2/{feed}` for stocks, `/v1beta3/crypto/us` for crypto). Every
/// message, both ways, is an array of objects tagged by `T` (inbound: one object with `action`):
///
/// ```
/// ← [{"T":"success","msg":"connected"}]
/// → {"action":"auth","key":"…","secret":"…"}
/// ← [{"T":"success","msg":"authenticated"}]          ([{"T":"error","code":402,"msg":"auth failed"}] for bad keys)
/// → {"action":"subscribe","quotes":["AAPL"],"trades":["AAPL"]}
/// ← [{"T":"subscription","trades":["AAPL"],"quotes":["AAPL"],"bars":[],…}]
/// ← [{"T":"q","S":"AAPL","bx":"V","bp":187.41,"bs":3,"ax":"V","ap":187.45,"as":2,"c":["R"],"z":"C","t":…}]
/// ```
/// Errors, as Alpaca numbers them: 400 `invalid syntax` (not JSON/msgpack, no known action, a channel that is
/// not a list of strings), 401 `not authenticated` (a subscription before `auth`), 402 `auth failed`, 403
/// `already authenticated`, 404 `auth timeout` (no `auth` within ``AlpacaSandboxConfiguration/streamAuthTimeout``;
/// the connection is then closed), 406 `connection limit exceeded` (one connection per account and endpoint by default,
/// ``AlpacaSandboxConfiguration/streamConnectionsPerEndpoint``; the connection is then closed). Quotes and trades are pushed when the sandbox's market moves (a pin, an admin clock move,
/// with the wall clock each price bucket) and only for a changed value: a subscription starts from the price
/// at the time it is made. Minute bars (`{"T":"b","S","o","h","l","c","v","t","n","vw"}`, the REST API's bars from the
/// same sampler) are pushed as each minute ends, the one in progress when subscribing included, at most the latest 60
/// when the clock jumps. `updatedBars`, `dailyBars`, statuses and the other channels are acknowledged and never pushed.
final class AlpacaDataStream: Sendable {
    enum Kind: Sendable { case stocks, crypto }

    let sandbox: AlpacaSandbox
    let kind: Kind
    /// The path, without its slash: connections are counted per account and endpoint.
    let endpoint: String
    let codec: StreamCodec

    private struct State {
        var account: UUID?
        /// Channel → symbols, in the order subscribed (`*` is every symbol of the stream's asset class).
        var channels: [String: [String]] = [:]
        var lastQuotes: [String: MarketQuote] = [:]
        var lastTrades: [String: MarketQuote] = [:]
        /// Per bar-subscribed symbol, the start (unix seconds) of the first minute whose bar is not sent yet.
        var nextBarMinutes: [String: Int64] = [:]
    }
    private let state = Mutex(State())

    init(sandbox: AlpacaSandbox, kind: Kind, endpoint: String, codec: StreamCodec) {
        self.sandbox = sandbox
        self.kind = kind
        self.endpoint = endpoint
        self.codec = codec
    }

    /// The channels each stream acknowledges, in Alpaca's order (stocks also echo `corrections` and `cancelErrors`,
    /// which follow `trades`).
    var channelNames: [String] {
        switch kind {
        case .stocks: ["trades", "quotes", "bars", "updatedBars", "dailyBars", "statuses", "lulds"]
        case .crypto: ["trades", "quotes", "orderbooks", "bars", "updatedBars", "dailyBars"]
        }
    }

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let greeting: MessagePack = .array([.object(["T": "success", "msg": "connected"])])
        defer {
            if let account = state.withLock({ $0.account }) {
                sandbox.streamConnections.release(account: account, endpoint: endpoint)
            }
        }
        let authTimeout = sandbox.configuration.streamAuthTimeout
        try await runStreamConnection(
            inbound: inbound,
            outbound: outbound,
            codec: codec,
            greeting: greeting,
            start: { send in
                [
                    {
                        guard (try? await Task.sleep(for: authTimeout)) != nil, self.state.withLock({ $0.account == nil }) else { return }
                        send(Self.error(404, "auth timeout"))
                        send.close()
                    }
                ]
            }
        ) { message, send in
            self.handle(message, send: send)
        }
    }

    func handle(_ message: MessagePack?, send: StreamOutput) -> [@Sendable () async -> Void] {
        guard let message, let action = message["action"]?.stringValue else {
            send(Self.error(400, "invalid syntax"))
            return []
        }
        switch action {
        case "auth":
            if state.withLock({ $0.account != nil }) {
                send(Self.error(403, "already authenticated"))
                return []
            }
            guard let key = message["key"]?.stringValue, let secret = message["secret"]?.stringValue,
                let account = sandbox.account(keyID: key, secret: secret)
            else {
                send(Self.error(402, "auth failed"))
                return []
            }
            let limit = sandbox.configuration.streamConnectionsPerEndpoint
            guard sandbox.streamConnections.acquire(account: account, endpoint: endpoint, limit: limit) else {
                send(Self.error(406, "connection limit exceeded"))
                send.close()
                return []
            }
            // Registered before the answer: a move right after authenticating is not missed.
            let wakeups = MarketWakeups(market: sandbox.market)
            state.withLock { $0.account = account }
            send(.array([.object(["T": "success", "msg": "authenticated"])]))
            return wakeups.tasks { self.pushMoves(send: send) }
        case "subscribe", "unsubscribe":
            guard state.withLock({ $0.account != nil }) else {
                send(Self.error(401, "not authenticated"))
                return []
            }
            guard let changes = channelChanges(message) else {
                send(Self.error(400, "invalid syntax"))
                return []
            }
            let acknowledgement = apply(changes, subscribe: action == "subscribe")
            send(.array([acknowledgement]))
            return []
        default:
            send(Self.error(400, "invalid syntax"))
            return []
        }
    }

    /// The channels a (un)subscribe names, each a list of strings; nil when one is not.
    private func channelChanges(_ message: MessagePack) -> [String: [String]]? {
        var changes: [String: [String]] = [:]
        for name in channelNames {
            guard let value = message[name], value != .null else { continue }
            guard let items = value.arrayValue else { return nil }
            var symbols: [String] = []
            for item in items {
                guard let symbol = item.stringValue, !symbol.isEmpty else { return nil }
                symbols.append(symbol)
            }
            changes[name] = symbols
        }
        return changes
    }

    /// Updates the subscription and answers with the whole of it. A newly subscribed symbol's quote and trade are
    /// remembered as they are now, so what is pushed later is a change.
    private func apply(_ changes: [String: [String]], subscribe: Bool) -> MessagePack {
        let market = sandbox.market
        return state.withLock { state in
            for (channel, symbols) in changes {
                var current = state.channels[channel] ?? []
                if subscribe {
                    for symbol in symbols where !current.contains(symbol) { current.append(symbol) }
                } else {
                    current.removeAll { symbols.contains($0) }
                }
                state.channels[channel] = current
            }
            let barred = Set(resolve(state.channels["bars"] ?? []).map(\.symbol))
            state.nextBarMinutes = state.nextBarMinutes.filter { barred.contains($0.key) }
            let minute = Timestamp.floorDiv(Timestamp.unixSeconds(market.now), 60) * 60
            for symbol in barred where state.nextBarMinutes[symbol] == nil { state.nextBarMinutes[symbol] = minute }
            let quoted = Set(resolve(state.channels["quotes"] ?? []).map(\.symbol))
            let traded = Set(resolve(state.channels["trades"] ?? []).map(\.symbol))
            state.lastQuotes = state.lastQuotes.filter { quoted.contains($0.key) }
            state.lastTrades = state.lastTrades.filter { traded.contains($0.key) }
            for symbol in quoted where state.lastQuotes[symbol] == nil { state.lastQuotes[symbol] = market.quote(symbol: symbol) }
            for symbol in traded where state.lastTrades[symbol] == nil { state.lastTrades[symbol] = market.quote(symbol: symbol) }

            var entries: [MessagePack.Entry] = [.init("T", "subscription")]
            for name in channelNames {
                entries.append(.init(.string(name), .array((state.channels[name] ?? []).map(MessagePack.string))))
            }
            if kind == .stocks {
                let trades = MessagePack.array((state.channels["trades"] ?? []).map(MessagePack.string))
                entries.append(.init("corrections", trades))
                entries.append(.init("cancelErrors", trades))
            }
            return .map(entries)
        }
    }

    /// The instruments `symbols` name on this stream (`*`: all of its asset class); unknown symbols name none.
    private func resolve(_ symbols: [String]) -> [MarketInstrument] {
        let assetClass: MarketInstrument.AssetClass = kind == .stocks ? .equity : .crypto
        if symbols.contains("*") { return sandbox.assets.instruments.filter { $0.assetClass == assetClass } }
        return symbols.compactMap { symbol in
            guard let instrument = sandbox.assets.resolve(symbol), instrument.assetClass == assetClass else { return nil }
            return instrument
        }
    }

    /// Sends, in one message, every subscribed quote and trade that changed since it was last sent.
    func pushMoves(send: StreamOutput) {
        let market = sandbox.market
        state.withLock { state in
            var batch: [MessagePack] = []
            for instrument in resolve(state.channels["quotes"] ?? []) {
                guard let quote = market.quote(symbol: instrument.symbol) else { continue }
                let last = state.lastQuotes[instrument.symbol]
                if let last, last.bid == quote.bid, last.ask == quote.ask, last.bidSize == quote.bidSize, last.askSize == quote.askSize {
                    continue
                }
                state.lastQuotes[instrument.symbol] = quote
                batch.append(self.quoteMessage(quote, instrument: instrument))
            }
            for instrument in resolve(state.channels["trades"] ?? []) {
                guard let quote = market.quote(symbol: instrument.symbol) else { continue }
                let last = state.lastTrades[instrument.symbol]
                if let last, last.last == quote.last, last.tradeID == quote.tradeID, last.lastSize == quote.lastSize { continue }
                state.lastTrades[instrument.symbol] = quote
                batch.append(self.tradeMessage(quote, instrument: instrument))
            }
            let now = market.now
            let currentMinute = Timestamp.floorDiv(Timestamp.unixSeconds(now), 60) * 60
            for instrument in resolve(state.channels["bars"] ?? []) {
                guard var next = state.nextBarMinutes[instrument.symbol], next < currentMinute else { continue }
                next = max(next, currentMinute - 60 * 60)
                let sampler = MarketBars(instrument: instrument, market: market, now: now)
                while next < currentMinute {
                    if let bar = sampler.bar(start: next, end: next + 60) { batch.append(self.barMessage(bar, instrument: instrument)) }
                    next += 60
                }
                state.nextBarMinutes[instrument.symbol] = next
            }
            // Sent under the lock, so two wake-ups never interleave their batches out of order.
            if !batch.isEmpty { send(.array(batch)) }
        }
    }

    // MARK: Wire

    static func error(_ code: Int64, _ text: String) -> MessagePack {
        .array([.object(["T": "error", "code": .int(code), "msg": .string(text)])])
    }

    /// Market data carries numbers (not strings): integral values as ints, others as float64.
    static func number(_ value: Decimal) -> MessagePack {
        MessagePack(json: .number(DecimalText.format(value)))
    }

    /// Stock: `{"T":"q","S","bx","bp","bs","ax","ap","as","c","z","t"}`; crypto: `{"T":"q","S","bp","bs","ap","as","t"}`.
    func quoteMessage(_ quote: MarketQuote, instrument: MarketInstrument) -> MessagePack {
        switch kind {
        case .stocks:
            .object([
                "T": "q", "S": .string(instrument.symbol),
                "bx": "V", "bp": Self.number(quote.bid), "bs": Self.number(quote.bidSize),
                "ax": "V", "ap": Self.number(quote.ask), "as": Self.number(quote.askSize),
                "c": .array(["R"]), "z": .string(Self.tape(instrument)), "t": .timestamp(quote.timestamp),
            ])
        case .crypto:
            .object([
                "T": "q", "S": .string(instrument.symbol),
                "bp": Self.number(quote.bid), "bs": Self.number(quote.bidSize),
                "ap": Self.number(quote.ask), "as": Self.number(quote.askSize), "t": .timestamp(quote.timestamp),
            ])
        }
    }

    /// Stock: `{"T":"t","S","i","x","p","s","c","z","t"}`; crypto: `{"T":"t","S","p","s","t","i","tks"}`.
    func tradeMessage(_ quote: MarketQuote, instrument: MarketInstrument) -> MessagePack {
        switch kind {
        case .stocks:
            .object([
                "T": "t", "S": .string(instrument.symbol), "i": .int(quote.tradeID), "x": "V",
                "p": Self.number(quote.last), "s": Self.number(quote.lastSize), "c": .array(["@"]),
                "z": .string(Self.tape(instrument)), "t": .timestamp(quote.timestamp),
            ])
        case .crypto:
            .object([
                "T": "t", "S": .string(instrument.symbol), "p": Self.number(quote.last), "s": Self.number(quote.lastSize),
                "t": .timestamp(quote.timestamp), "i": .int(quote.tradeID), "tks": "B",
            ])
        }
    }

    /// `{"T":"b","S","o","h","l","c","v","t","n","vw"}`, stocks and crypto alike.
    func barMessage(_ bar: MarketBars.Bar, instrument: MarketInstrument) -> MessagePack {
        .object([
            "T": "b", "S": .string(instrument.symbol),
            "o": Self.number(bar.open), "h": Self.number(bar.high), "l": Self.number(bar.low), "c": Self.number(bar.close),
            "v": Self.number(bar.volume), "t": .timestamp(bar.time), "n": .int(Int64(bar.trades)), "vw": Self.number(bar.vwap),
        ])
    }

    static func tape(_ instrument: MarketInstrument) -> String { instrument.exchange == "NASDAQ" ? "C" : "B" }
}
