import Foundation
import SandboxKit

/// TradeOgre's JSON: every price and amount an 8-decimal string, dates unix seconds.
enum TradeOgreWire {
    /// `"0.02500000"`.
    static func amount(_ value: Decimal) -> JSON {
        .string(text(value))
    }

    static func text(_ value: Decimal) -> String {
        let rounded = DecimalText.round(value, scale: TradeOgreExchange.scale)
        return DecimalText.format(rounded.isZero ? 0 : rounded, minimumFractionDigits: TradeOgreExchange.scale)
    }

    static func seconds(_ date: Date) -> Int64 { Timestamp.unixSeconds(date) }

    /// The names the venue showed next to a market (`basename`).
    static let currencyNames: [String: String] = [
        "BTC": "Bitcoin", "XMR": "Monero", "LTC": "Litecoin", "USDT": "Tether", "ETH": "Ethereum",
    ]

    /// 24-hour statistics of one market.
    struct Statistics {
        var initialPrice: Decimal
        var price: Decimal
        var high: Decimal
        var low: Decimal
        /// Quote-currency volume of the last 24 hours (TradeOgre's `volume` looks like a quote volume).
        var volume: Decimal
        var bid: Decimal?
        var ask: Decimal?
    }

    /// `initialprice` is the shared market's price 24 hours ago; `price` the last trade (or the market's price if there
    /// was none); `high`/`low` the market's UTC-day range widened by the trades and prices of the last 24 hours;
    /// `bid`/`ask` the book's best prices.
    static func statistics(
        listing: TradeOgreListing,
        exchange: TradeOgreExchange,
        quote: MarketQuote,
        bucketSeconds: Int,
        now: Date
    ) -> Statistics {
        let dayAgo = Timestamp.unixSeconds(now) - 86_400
        let initial = listing.path.price(bucket: Timestamp.floorDiv(dayAgo, Int64(bucketSeconds)))
        let recent = (exchange.trades[listing.symbol] ?? []).filter { Timestamp.unixSeconds($0.date) > dayAgo }
        let price = recent.last?.price ?? quote.last
        var high = max(quote.high, initial, price)
        var low = min(quote.low, initial, price)
        var volume: Decimal = 0
        for trade in recent {
            high = max(high, trade.price)
            low = min(low, trade.price)
            volume += trade.quantity * trade.price
        }
        let book = exchange.books[listing.symbol]
        return Statistics(
            initialPrice: initial,
            price: price,
            high: high,
            low: low,
            volume: volume,
            bid: book?.bestBid,
            ask: book?.bestAsk
        )
    }

    /// The members `/markets` and `/ticker/{market}` share; `bid`/`ask` are left out when that side is empty.
    static func statisticsMembers(_ statistics: Statistics) -> [JSON.Member] {
        var members: [JSON.Member] = [
            .init(key: "initialprice", value: amount(statistics.initialPrice)),
            .init(key: "price", value: amount(statistics.price)),
            .init(key: "high", value: amount(statistics.high)),
            .init(key: "low", value: amount(statistics.low)),
            .init(key: "volume", value: amount(statistics.volume)),
        ]
        if let bid = statistics.bid { members.append(.init(key: "bid", value: amount(bid))) }
        if let ask = statistics.ask { members.append(.init(key: "ask", value: amount(ask))) }
        return members
    }

    /// `{"uuid":s,"date":int,"type":"buy","price":s,"quantity":s,"market":"XMR-BTC"}`: `quantity` is what remains.
    static func openOrder(_ order: TradeOgreOrderRecord, listing: TradeOgreListing) -> JSON {
        [
            "uuid": .string(order.id.uuidString.lowercased()),
            "date": .int64(seconds(order.date)),
            "type": .string(order.side.rawValue),
            "price": amount(order.price),
            "quantity": amount(order.remaining),
            "market": .string(listing.wireName),
        ]
    }

    /// `{"success":true,"date":"1710696146","type":"sell","market":"LTC-USDT","price":s,"quantity":s,"fulfilled":s}`:
    /// the date as a string (as in ccxt's recorded fixture), `quantity` what remains, `fulfilled` what traded.
    static func order(_ order: TradeOgreOrderRecord, listing: TradeOgreListing) -> JSON {
        [
            "success": true,
            "date": .string(String(seconds(order.date))),
            "type": .string(order.side.rawValue),
            "market": .string(listing.wireName),
            "price": amount(order.price),
            "quantity": amount(order.remaining),
            "fulfilled": amount(order.filled),
        ]
    }

    /// `{"date":int,"type":"sell","price":s,"quantity":s}`.
    static func trade(_ trade: TradeOgreTrade) -> JSON {
        [
            "date": .int64(seconds(trade.date)),
            "type": .string(trade.side.rawValue),
            "price": amount(trade.price),
            "quantity": amount(trade.quantity),
        ]
    }

    /// A map of price to quantity, lowest price first (as TradeOgre listed both sides).
    static func bookSide(_ levels: [(price: Decimal, quantity: Decimal)]) -> JSON {
        .object(levels.sorted { $0.price < $1.price }.map { .init(key: text($0.price), value: amount($0.quantity)) })
    }
}
