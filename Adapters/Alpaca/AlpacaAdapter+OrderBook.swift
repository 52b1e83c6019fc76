import Foundation
import GatewayCore
import GatewayModel

extension AlpacaAdapter {
    /// The latest crypto order book (`/v1beta3/crypto/us/latest/orderbooks`), Alpaca's whole book cut to `depth`
    /// levels a side. Alpaca has no stock order book: an equity is refused, and a pair Alpaca does not list is
    /// `not_found` (Alpaca leaves it out of the answer).
    func cryptoOrderBook(_ reference: InstrumentReference, depth: Int) async throws -> OrderBook {
        guard reference.impliedAssetClass == .crypto else {
            throw GatewayError.unprocessable([
                FieldProblem(field: "symbol", problem: "Alpaca has order books for crypto pairs only (BASE/QUOTE)")
            ]).with(broker: .alpaca)
        }
        let symbol = reference.alpacaSymbol
        let answer = try await fetch(AlpacaLatestOrderbooks.self, .cryptoOrderbooks(symbols: [symbol]))
        guard let book = answer.orderbooks[symbol] else {
            throw GatewayError(.notFound, "Alpaca has no order book for \(symbol)", broker: .alpaca)
        }
        let instrument = Instrument(alpacaSymbol: symbol, assetClass: "crypto", assetId: nil, exchange: nil, name: nil)
        return OrderBook(
            instrument: instrument,
            connectionId: connectionId,
            broker: .alpaca,
            bids: book.bids,
            asks: book.asks,
            time: book.time
        ).normalized(depth: depth)
    }
}
