import Foundation
import GatewayModel

extension Quote {
    /*
     quote: {"t": "2022-03-18T14:02:43.651613184Z", "ax": "P", "ap": 161.11, "as": 13, "bx": "K", "bp": 161.1,
             "bs": 2, "c": ["R"], "z": "C"}
     trade: {"t": "2022-03-18T14:02:09.722539521Z", "x": "D", "p": 161.2958, "s": 100, "c": ["@"], "i": 22730,
             "z": "C"}
     */
    /// Bid and ask from the latest quote, `last` from the latest trade; `time` is the later of the two.
    /// Alpaca sends a zero price for an empty side of the book: that side is left out.
    init(alpaca quote: AlpacaQuote?, trade: AlpacaTrade?, instrument: Instrument, connectionId: String) {
        let times = [quote?.time, trade?.time].compactMap { $0 }
        self.init(
            instrument: instrument,
            connectionId: connectionId,
            bid: quote?.bidPrice.flatMap { $0 > 0 ? $0 : nil },
            ask: quote?.askPrice.flatMap { $0 > 0 ? $0 : nil },
            last: trade.flatMap { $0.price > 0 ? $0.price : nil },
            time: times.max()
        )
    }
}
