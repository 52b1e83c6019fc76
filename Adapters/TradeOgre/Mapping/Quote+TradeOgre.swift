import Foundation
import GatewayModel

extension Quote {
    /*
     {"success":true,"initialprice":"68244.43002928","price":"68392.46369987","high":"68486.46918063",
      "low":"64690.69000000","volume":"434035.66968030","bid":"68128.17000000","ask":"68392.46369986"}
     */
    /// `last` is `price`, `open` is `initialprice` (the price 24 hours ago), so the change is measured over 24 hours;
    /// `volume` is passed on as TradeOgre reports it. A zero price means "none" (an empty side, a market that never
    /// traded) and is left out. TradeOgre gives no time.
    init(tradeOgre ticker: TradeOgreTicker, instrument: Instrument, connectionId: String) {
        func positive(_ value: Decimal?) -> Decimal? { value.flatMap { $0 > 0 ? $0 : nil } }
        let last = positive(ticker.price)
        let open = positive(ticker.initialPrice)
        let (netChange, percentChange) = Quote.change(from: open, to: last)
        self.init(
            instrument: instrument,
            connectionId: connectionId,
            bid: positive(ticker.bid),
            ask: positive(ticker.ask),
            last: last,
            open: open,
            high: positive(ticker.high),
            low: positive(ticker.low),
            netChange: netChange,
            percentChange: percentChange,
            volume: ticker.volume
        )
    }
}
