import Foundation
import SandboxKit

/// The part of the sandbox market Alpaca trades, and Alpaca's spellings of it.
struct AlpacaAssets: Sendable {
    let market: MarketEngine

    /// US equities and USD-quoted crypto pairs.
    var instruments: [MarketInstrument] {
        market.instruments.filter(Self.isListed)
    }

    static func isListed(_ instrument: MarketInstrument) -> Bool {
        instrument.assetClass == .equity || (instrument.assetClass == .crypto && instrument.currency == "USD")
    }

    /// Finds an instrument from what a client may send: `AAPL`, `aapl`, an asset id, `BTC/USD` or `BTCUSD`.
    func resolve(_ symbolOrID: String) -> MarketInstrument? {
        let text = symbolOrID.trimmingCharacters(in: .whitespaces)
        if let id = UUID(uuidString: text), let instrument = market.instrument(id: id), Self.isListed(instrument) {
            return instrument
        }
        let upper = text.uppercased()
        if let instrument = market.instrument(symbol: upper), Self.isListed(instrument) { return instrument }
        return instruments.first { $0.assetClass == .crypto && Self.positionSymbol($0) == upper }
    }

    /// `BTC/USD` for assets and orders; positions drop the slash.
    static func positionSymbol(_ instrument: MarketInstrument) -> String {
        // Only pairs have a slash: the rest (an account's thousands of equities) skip Foundation's replacement.
        instrument.symbol.utf8.contains(UInt8(ascii: "/")) ? instrument.symbol.replacingOccurrences(of: "/", with: "") : instrument.symbol
    }

    static func assetClass(_ instrument: MarketInstrument) -> String {
        instrument.assetClass == .crypto ? "crypto" : "us_equity"
    }
}
