import Foundation
public import GatewayCore
public import GatewayModel
import HTTPTypes

/// Alpaca's two WebSockets: market data (`wss://stream.data.alpaca.markets/v2/{feed}` for stocks,
/// `/v1beta3/crypto/us` for crypto: `[{"T":"q",…}]` quotes and `[{"T":"t",…}]` trades, JSON) and trade updates
/// (`wss://<trading host>/stream`: `{"stream":"trade_updates","data":{"event":"fill","order":{…}}}`). Both
/// authenticate with the key pair; a connection that uses OAuth polls instead.
extension AlpacaAdapter: BrokerStreaming {
    /// True when the connection has a socket transport and authenticates with a key pair: Alpaca's streams take the key
    /// pair in their `auth` message, so OAuth connections poll instead.
    public var canStream: Bool {
        guard context.sockets != nil, case .keys = configuration.auth else { return false }
        return true
    }

    /// Streams quotes over the market data sockets (stocks on the connection's feed, else IEX; crypto on
    /// `/v1beta3/crypto/us`), calling `onSubscribed` once subscribed and `onQuote` for each update, until cancelled or the
    /// socket closes.
    public func streamQuotes(
        _ instruments: [InstrumentReference],
        onSubscribed: @escaping @Sendable () async -> Void,
        _ onQuote: @escaping @Sendable (Quote) async -> Void
    ) async throws {
        let stocks = Array(Set(instruments.filter { $0.impliedAssetClass != .crypto }.map(\.alpacaSymbol))).sorted()
        let crypto = Array(Set(instruments.filter { $0.impliedAssetClass == .crypto }.map(\.alpacaSymbol))).sorted()
        try await withThrowingTaskGroup(of: Void.self) { group in
            if !stocks.isEmpty {
                group.addTask {
                    // The connection's feed, else IEX: the one every Alpaca account may stream.
                    try await marketData(
                        path: "/v2/\(configuration.feed ?? "iex")",
                        symbols: stocks,
                        crypto: false,
                        onSubscribed,
                        onQuote
                    )
                }
            }
            if !crypto.isEmpty {
                group.addTask {
                    try await marketData(path: "/v1beta3/crypto/us", symbols: crypto, crypto: true, onSubscribed, onQuote)
                }
            }
            try await group.waitForAll()
        }
    }

    /// Listens to the trading host's `trade_updates` stream and calls `onChange` with each updated order's broker id, so
    /// the gateway reads that order instead of polling; a refused key is `unauthorized`.
    public func streamOrderChanges(_ onChange: @escaping @Sendable (String) async -> Void) async throws {
        guard let sockets = context.sockets, case .keys(let keyId, let secret) = configuration.auth else {
            throw GatewayError(.notSupported, "this Alpaca connection cannot stream trade updates", broker: .alpaca)
        }
        let request = BrokerSocketRequest(url: Self.socketURL(configuration.baseURL, path: "/stream"), loggedPath: "/stream")
        try await sockets.withSocket(request) { socket in
            let auth = AlpacaStreamAction(action: "auth", key: keyId, secret: secret)
            try await socket.send(String(decoding: try BrokerHTTPClient.json(auth), as: UTF8.self))
            var authorized = false
            for try await message in socket.messages {
                guard let update = try? JSONDecoder().decode(AlpacaTradeStreamMessage.self, from: message.data) else {
                    throw GatewayError(.malformedResponse, "Alpaca's trade update stream sent a message that does not read", broker: .alpaca)
                }
                switch update.stream {
                case "authorization":
                    guard update.data?.status == "authorized" else {
                        throw GatewayError(.unauthorized, "Alpaca refused the trade update stream's key", broker: .alpaca, retryable: false)
                    }
                    authorized = true
                    try await socket.send(#"{"action":"listen","data":{"streams":["trade_updates"]}}"#)
                case "trade_updates":
                    if authorized, let id = update.data?.order?.id { await onChange(id) }
                default:
                    continue
                }
            }
        }
    }

    /// One market data socket: connect, authenticate, subscribe to quotes and trades, then each message as a quote
    /// (bid and ask from the symbol's last quote, last from its last trade).
    private func marketData(
        path: String,
        symbols: [String],
        crypto: Bool,
        _ onSubscribed: @escaping @Sendable () async -> Void,
        _ onQuote: @escaping @Sendable (Quote) async -> Void
    ) async throws {
        guard let sockets = context.sockets, case .keys(let keyId, let secret) = configuration.auth else {
            throw GatewayError(.notSupported, "this Alpaca connection cannot stream market data", broker: .alpaca)
        }
        let base = Self.marketDataStreamBase(configuration.dataBaseURL)
        let request = BrokerSocketRequest(url: base + path, loggedPath: path)
        try await sockets.withSocket(request) { socket in
            var quotes: [String: AlpacaQuote] = [:]
            var trades: [String: AlpacaTrade] = [:]
            // Authenticated at once (Alpaca reads an auth sent before its `connected`; waiting for that first message
            // would hang on a server that sends it late or not at).
            let auth = AlpacaStreamAction(action: "auth", key: keyId, secret: secret)
            try await socket.send(String(decoding: try BrokerHTTPClient.json(auth), as: UTF8.self))
            for try await message in socket.messages {
                guard let items = try? JSONDecoder().decode([AlpacaStreamItem].self, from: message.data) else {
                    throw GatewayError(.malformedResponse, "Alpaca's market data stream sent a message that does not read", broker: .alpaca)
                }
                for item in items {
                    switch item.type {
                    case "success" where item.message == "authenticated":
                        let subscribe = AlpacaStreamSubscription(action: "subscribe", quotes: symbols, trades: symbols)
                        try await socket.send(String(decoding: try BrokerHTTPClient.json(subscribe), as: UTF8.self))
                    case "subscription":
                        await onSubscribed()
                    case "error":
                        throw Self.streamError(code: item.code, message: item.message)
                    case "q":
                        guard let symbol = item.symbol, let quote = item.quote else { continue }
                        quotes[symbol] = quote
                        await onQuote(quoteOf(symbol, crypto: crypto, quotes[symbol], trades[symbol]))
                    case "t":
                        guard let symbol = item.symbol, let trade = item.trade else { continue }
                        trades[symbol] = trade
                        await onQuote(quoteOf(symbol, crypto: crypto, quotes[symbol], trades[symbol]))
                    default:
                        continue
                    }
                }
            }
        }
    }

    private func quoteOf(_ symbol: String, crypto: Bool, _ quote: AlpacaQuote?, _ trade: AlpacaTrade?) -> Quote {
        let instrument = Instrument(
            alpacaSymbol: symbol,
            assetClass: crypto ? "crypto" : "us_equity",
            assetId: nil,
            exchange: nil,
            name: nil
        )
        return Quote(alpaca: quote, trade: trade, instrument: instrument, connectionId: connectionId)
    }

    /// Alpaca's documented stream errors (https://docs.alpaca.markets/docs/streaming-market-data#errors).
    static func streamError(code: Int?, message: String?) -> GatewayError {
        let text = BrokerText.sanitized(message ?? "error", limit: 200)
        switch code {
        case 401, 402, 404: return GatewayError(.unauthorized, "Alpaca's market data stream: \(text)", broker: .alpaca, retryable: false)
        case 406, 429, 405: return GatewayError(.rateLimited, "Alpaca's market data stream: \(text)", broker: .alpaca, retryable: true)
        case 409: return GatewayError(.forbidden, "Alpaca's market data stream: \(text)", broker: .alpaca, retryable: false)
        default: return GatewayError(.upstreamUnavailable, "Alpaca's market data stream: \(text)", broker: .alpaca)
        }
    }

    /// `https://host/...` as `wss://host/...` (`http` as `ws`).
    static func socketURL(_ base: String, path: String) -> String {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        if trimmed.lowercased().hasPrefix("https://") { return "wss://" + trimmed.dropFirst(8) + path }
        if trimmed.lowercased().hasPrefix("http://") { return "ws://" + trimmed.dropFirst(7) + path }
        return trimmed + path
    }

    /// Alpaca's market data streams live on `stream.data.alpaca.markets` (`stream.data.sandbox.alpaca.markets` for
    /// the broker sandbox) beside the REST host `data.alpaca.markets`; any other data host (a simulator) serves its
    /// streams itself.
    static func marketDataStreamBase(_ dataBaseURL: String) -> String {
        let url = socketURL(dataBaseURL, path: "")
        for host in ["data.alpaca.markets", "data.sandbox.alpaca.markets"] where url.lowercased().hasSuffix("://" + host) {
            return url.replacingOccurrences(of: "://" + host, with: "://stream." + host)
        }
        return url
    }
}
