import Foundation
import SandboxKit

/// `/chart/{interval}/{market}[/{timestamp}]`: candles `[time, open, high, low, close, volume]` as JSON numbers,
/// oldest first, the last one containing `end`.
///
/// Prices come from the shared market's price path, sampled five times per candle (the current candle also takes
/// the live price); volume is the base quantity the venue's own history traded in the candle plus a deterministic
/// background, so quiet markets still draw bars.
enum TradeOgreChart {
    static let intervals: [String: Int64] = [
        "1m": 60, "15m": 900, "1h": 3600, "4h": 14_400, "1d": 86_400, "1w": 604_800,
    ]
    static let candleCount = 100

    static func candles(
        listing: TradeOgreListing,
        intervalSeconds: Int64,
        end: Date,
        now: Date,
        livePrice: Decimal?,
        trades: [TradeOgreTrade],
        seed: UInt64,
        bucketSeconds: Int
    ) -> JSON {
        let nowSeconds = Timestamp.unixSeconds(now)
        let endSeconds = min(Timestamp.unixSeconds(end), nowSeconds)
        let lastStart = Timestamp.floorDiv(endSeconds, intervalSeconds) * intervalSeconds
        var rows: [JSON] = []
        for index in stride(from: candleCount - 1, through: 0, by: -1) {
            let start = lastStart - Int64(index) * intervalSeconds
            let close = min(start + intervalSeconds - 1, nowSeconds)
            var prices: [Decimal] = []
            for step in 0...4 {
                let at = min(start + intervalSeconds * Int64(step) / 4, close)
                prices.append(listing.path.price(bucket: Timestamp.floorDiv(at, Int64(bucketSeconds))))
            }
            if close == nowSeconds, let livePrice { prices[prices.count - 1] = livePrice }
            var volume: Decimal = 0
            for trade in trades {
                let at = Timestamp.unixSeconds(trade.date)
                if at >= start, at <= close {
                    volume += trade.quantity
                    prices.insert(trade.price, at: prices.count - 1)
                }
            }
            let word = StableHash.combine(seed, StableHash.fnv1a(listing.symbol), UInt64(bitPattern: start))
            volume += listing.instrument.sizeUnit * Decimal(Int(word % 20))
            rows.append([
                .int64(start),
                number(prices[0]), number(prices.max()!), number(prices.min()!), number(prices[prices.count - 1]),
                number(volume),
            ])
        }
        return .array(rows)
    }

    private static func number(_ value: Decimal) -> JSON {
        .number(DecimalText.format(DecimalText.round(value, scale: TradeOgreExchange.scale)))
    }
}
