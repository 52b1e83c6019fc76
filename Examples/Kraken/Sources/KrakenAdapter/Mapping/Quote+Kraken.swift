import Foundation
import GatewayModel

extension Quote {
    /*
     {"a": ["30300.10000", "1", "1.000"], "b": ["30300.00000", "1", "1.000"], "c": ["30303.20000", "0.00067643"],
      "v": ["4083.67001100", "4412.73601799"], "l": ["29868.30000", ...], "h": ["31631.00000", ...], "o": "30502.80000"}
     → bid 30300.00000, ask 30300.10000, last 30303.20000, open 30502.80000, high 31631, low 29868.3, volume 4083.67001100
     */
    /// Today's figures (Kraken's day starts at midnight UTC): open, high, low and volume are `o`, `h[0]`, `l[0]` and
    /// `v[0]`, so the change is since midnight UTC. A zero price means none and is left out. Kraken gives no time.
    init(kraken ticker: KrakenTicker, instrument: Instrument, connectionId: String) {
        func positive(_ value: KrakenText?) -> Decimal? { value?.decimal.flatMap { $0 > 0 ? $0 : nil } }
        let last = positive(ticker.c?.first)
        let open = positive(ticker.o)
        let (netChange, percentChange) = Quote.change(from: open, to: last)
        self.init(
            instrument: instrument,
            connectionId: connectionId,
            bid: positive(ticker.b?.first),
            ask: positive(ticker.a?.first),
            last: last,
            open: open,
            high: positive(ticker.h?.first),
            low: positive(ticker.l?.first),
            netChange: netChange,
            percentChange: percentChange,
            volume: ticker.v?.first?.decimal
        )
    }
}
