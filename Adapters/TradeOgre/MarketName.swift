import GatewayModel

/// Canonical `XMR/BTC` ⇄ TradeOgre's `XMR-BTC` (or `BTC-XMR` with the older quote-first naming).
struct MarketName: Sendable, Hashable {
    var base: String
    var quote: String

    init(base: String, quote: String) {
        self.base = base
        self.quote = quote
    }

    /// From a canonical pair (`XMR/BTC`); nil for anything that is not `BASE/QUOTE`.
    init?(symbol: String) {
        let parts = symbol.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, Self.isCode(parts[0]), Self.isCode(parts[1]) else { return nil }
        self.init(base: parts[0].uppercased(), quote: parts[1].uppercased())
    }

    /// From a wire name in the connection's naming; nil when it is not two codes joined by `-`.
    init?(wire: String, naming: TradeOgreMarketNaming) {
        let parts = wire.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, Self.isCode(parts[0]), Self.isCode(parts[1]) else { return nil }
        switch naming {
        case .baseQuote: self.init(base: parts[0].uppercased(), quote: parts[1].uppercased())
        case .quoteBase: self.init(base: parts[1].uppercased(), quote: parts[0].uppercased())
        }
    }

    var symbol: String { "\(base)/\(quote)" }

    func wire(_ naming: TradeOgreMarketNaming) -> String {
        switch naming {
        case .baseQuote: "\(base)-\(quote)"
        case .quoteBase: "\(quote)-\(base)"
        }
    }

    static func isCode(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 12 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}
