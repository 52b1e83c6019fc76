import Foundation
import GatewayModel

extension Candle {
    /*
     FX:     {"CloseAsk": 1.6321, "CloseBid": 1.6302, "HighAsk": 1.633, "HighBid": 1.63091, "LowAsk": 1.6316,
              "LowBid": 1.62974, "OpenAsk": 1.63237, "OpenBid": 1.6306, "Time": "2019-09-05T21:00:00.000000Z"}
     Listed: {"Time": "…", "Open": …, "High": …, "Low": …, "Close": …, "Volume": …, "Interest": …}
     */
    /// An exchange-traded sample maps field by field; an FX sample becomes mid prices ((bid + ask) / 2 for each of
    /// open, high, low, close; the mid of the highs is the high of the mids only approximately, which is how
    /// charting front ends show FX). `nil` for a sample with neither form complete.
    init?(saxo sample: SaxoChart.Sample) {
        guard let time = SaxoTimestamp.parse(sample.time) else { return nil }
        if let open = sample.open, let high = sample.high, let low = sample.low, let close = sample.close {
            self.init(time: time, open: open, high: high, low: low, close: close, volume: sample.volume)
            return
        }
        func mid(_ bid: Decimal?, _ ask: Decimal?) -> Decimal? {
            guard let bid, let ask else { return nil }
            return (bid + ask) / 2
        }
        guard let open = mid(sample.openBid, sample.openAsk), let high = mid(sample.highBid, sample.highAsk),
            let low = mid(sample.lowBid, sample.lowAsk), let close = mid(sample.closeBid, sample.closeAsk)
        else { return nil }
        self.init(time: time, open: open, high: high, low: low, close: close)
    }
}

extension CandleInterval {
    /// Saxo's `Horizon` (minutes); every canonical interval is one Saxo offers.
    var saxoHorizon: Int { minutes }
}
