import Foundation
import GatewayModel

extension Quote {
    /*
     {"AssetType": "FxSpot", "DisplayAndFormat": {"Currency": "AUD", "Decimals": 4,
      "Description": "British Pound/Australian Dollar", "Symbol": "GBPAUD", ...},
      "LastUpdated": "0001-01-01T00:00:00Z",
      "PriceInfo": {"High": 1.09117, "Low": 1.08853, "NetChange": 0.00048, "PercentChange": 0.04},
      "PriceInfoDetails": {"AskSize": 1000000.0, "BidSize": 1000000.0, "LastClose": 1.08932, "LastTraded": 0.0,
                           "LastTradedSize": 0.0, "Open": 0.0, "Volume": 0.0},
      "Quote": {"Amount": 100000, "Ask": 1.74948, "Bid": 1.74858, "DelayedByMinutes": 15, "ErrorCode": "None",
                "Mid": 1.74903, "PriceTypeAsk": "Indicative", "PriceTypeBid": "Indicative"},
      "Uic": 22}
     */
    /// Saxo writes 0 for "none" in `LastTraded`, `Open` and `Volume` (FX has no trades): a zero there reads as
    /// absent. `LastUpdated` of `0001-01-01T00:00:00Z` is .NET's "no value".
    init(saxo price: SaxoInfoPrice, instrument: Instrument, connectionId: String) {
        func nonZero(_ value: Decimal?) -> Decimal? { value.flatMap { $0 == 0 ? nil : $0 } }
        self.init(
            instrument: instrument,
            connectionId: connectionId,
            bid: price.quote?.bid,
            ask: price.quote?.ask,
            last: nonZero(price.priceInfoDetails?.lastTraded),
            open: nonZero(price.priceInfoDetails?.open),
            high: price.priceInfo?.high,
            low: price.priceInfo?.low,
            previousClose: price.priceInfoDetails?.lastClose,
            netChange: price.priceInfo?.netChange,
            percentChange: price.priceInfo?.percentChange,
            volume: nonZero(price.priceInfoDetails?.volume),
            time: price.lastUpdated.flatMap(SaxoTimestamp.parse)
        )
    }
}
