import Foundation
import Hummingbird
import SandboxKit

/// Latest stock quotes and trades (`/v2/stocks/...`) and crypto quotes, trades and books (`/v1beta3/crypto/us/latest/...`).
extension AlpacaRoutes {
    // MARK: Market data

    enum LatestKind: String, Sendable {
        case quotes, trades, orderbooks
    }

    static let feeds: Set<String> = ["iex", "sip", "delayed_sip", "otc", "boats", "overnight"]

    /// Market-data validation errors are 400s with only a message.
    static func badRequest(_ message: String) -> AlpacaAPIError {
        .data(.badRequest, message)
    }

    func latestStock(_ request: Request, symbol: String?, kind: LatestKind) throws -> Response {
        let query = request.queryParameters
        if let feed = query["feed"], !feed.isEmpty, !Self.feeds.contains(feed) { throw Self.badRequest("invalid feed") }
        let market = sandbox.market
        func render(_ instrument: MarketInstrument) -> JSON? {
            guard let quote = market.quote(symbol: instrument.symbol) else { return nil }
            return kind == .quotes ? AlpacaWire.stockQuote(quote, instrument: instrument) : AlpacaWire.stockTrade(quote, instrument: instrument)
        }
        let single = kind == .quotes ? "quote" : "trade"
        if let symbol {
            guard let instrument = sandbox.assets.resolve(symbol), instrument.assetClass == .equity, let body = render(instrument) else {
                throw AlpacaAPIError.data(.notFound, "no \(single) found for \(symbol.uppercased())")
            }
            return .json(.object([.init(key: "symbol", value: .string(instrument.symbol)), .init(key: single, value: body)]))
        }
        guard let list = query["symbols"], !list.isEmpty else { throw Self.badRequest("missing symbols") }
        var members: [JSON.Member] = []
        for raw in list.split(separator: ",") {
            let requested = raw.trimmingCharacters(in: .whitespaces).uppercased()
            guard let instrument = sandbox.assets.resolve(requested), instrument.assetClass == .equity, let body = render(instrument) else {
                continue
            }
            members.append(.init(key: instrument.symbol, value: body))
        }
        return .json(.object([.init(key: kind.rawValue, value: .object(members))]))
    }

    /// `^[A-Z]+/[A-Z]+$`, as the crypto data API checks.
    static func isCryptoPair(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) } }
    }

    func latestCrypto(_ request: Request, _ context: SandboxRequestContext, kind: LatestKind) throws -> Response {
        guard context.pathParameter("loc") == "us" else { throw AlpacaAPIError.data(.notFound, "not found") }
        guard let list = request.queryParameters["symbols"], !list.isEmpty else { throw Self.badRequest("missing symbols") }
        let requestedSymbols = list.split(separator: ",").map(String.init)
        let malformed = requestedSymbols.filter { !Self.isCryptoPair($0) }
        if !malformed.isEmpty {
            throw Self.badRequest("Invalid symbol(s): \(malformed.joined(separator: ",")) does not match ^[A-Z]+/[A-Z]+$")
        }
        var members: [JSON.Member] = []
        for requested in requestedSymbols {
            guard let instrument = sandbox.assets.resolve(requested), instrument.assetClass == .crypto,
                let quote = sandbox.market.quote(symbol: instrument.symbol)
            else { continue }
            let body: JSON =
                switch kind {
                case .quotes: AlpacaWire.cryptoQuote(quote)
                case .trades: AlpacaWire.cryptoTrade(quote)
                case .orderbooks: AlpacaWire.cryptoOrderbook(quote, instrument: instrument)
                }
            members.append(.init(key: instrument.symbol, value: body))
        }
        return .json(.object([.init(key: kind.rawValue, value: .object(members))]))
    }
}
