import Foundation
import SandboxKit

/// `brokermarketdata/getCryptoQuote`.
extension TradeItRoutes {
    func cryptoQuote(_ body: TradeItFields) throws -> JSON {
        let token = body.string("token")
        guard let pair = body.string("pair"), !pair.isEmpty else { throw TradeItAPIError.parameter("pair is required.") }
        // Only to check the session and the account: quotes are the market's, not the account's.
        _ = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { _ in 0 }
        guard let instrument = market.instrument(symbol: pair.uppercased()), instrument.assetClass == .crypto,
            let quote = market.quote(symbol: instrument.symbol)
        else {
            throw TradeItAPIError.execution("The pair \(pair) was not found.")
        }
        return TradeItWire.cryptoQuote(quote, token: token)
    }
}
