import Foundation
import SandboxKit

/// Kraken's JSON shapes, as the sandbox writes them. Money and volumes are strings at the asset's or pair's precision;
/// times are JSON numbers (unix seconds with a fraction), as SPEC's examples have them.
enum KrakenWire {
    /// `value` with exactly `decimals` fraction digits.
    static func fixed(_ value: Decimal, _ decimals: Int) -> JSON {
        .string(DecimalText.format(DecimalText.round(value, scale: decimals), minimumFractionDigits: decimals))
    }

    static func seconds(_ date: Date) -> JSON {
        let millis = (date.timeIntervalSince1970 * 10_000).rounded() / 10_000
        return .number(String(format: "%.4f", millis))
    }

    static func success(_ result: JSON) -> JSON { ["error": [], "result": result] }

    /// The `descr.order` sentence ccxt splits on spaces: `buy 1.25000000 XBTUSD @ limit 27500.0`,
    /// `sell 0.25000000 XBTUSD @ market`.
    static func sentence(side: TradeSide, volume: Decimal, listing: KrakenListing, ordertype: String, limit: Decimal?) -> String {
        let volumeText = DecimalText.format(DecimalText.round(volume, scale: 8), minimumFractionDigits: 8)
        var text = "\(side.rawValue) \(volumeText) \(listing.altname) @ \(ordertype)"
        if ordertype == "limit", let limit {
            text += " " + DecimalText.format(DecimalText.round(limit, scale: listing.pairDecimals), minimumFractionDigits: listing.pairDecimals)
        }
        return text
    }

    /*
     SPEC OpenOrders example, one order:
     {"refid": null, "userref": 0, "status": "open", "opentm": 1688666559.8974, "starttm": 0, "expiretm": 0,
      "descr": {"pair": "XBTUSD", "type": "buy", "ordertype": "limit", "price": "30010.0", "price2": "0",
                "leverage": "none", "order": "buy 1.25000000 XBTUSD @ limit 30010.0", "close": ""},
      "vol": "1.25000000", "vol_exec": "0.37500000", "cost": "11253.7", "fee": "0.00000", "price": "30010.0",
      "stopprice": "0.00000", "limitprice": "0.00000", "misc": "", "oflags": "fciq", "trades": [...]}
     */
    static func order(_ order: KrakenSandboxOrder, listing: KrakenListing, trades: Bool) -> JSON {
        let quoteDecimals = listing.pairDecimals
        var members: [JSON.Member] = [
            .init(key: "refid", value: .null),
            .init(key: "userref", value: .int64(order.userref ?? 0)),
        ]
        if let id = order.clientOrderId { members.append(.init(key: "cl_ord_id", value: .string(id))) }
        members += [
            .init(key: "status", value: .string(order.status.rawValue)),
            .init(key: "opentm", value: seconds(order.opened)),
            .init(key: "starttm", value: 0),
            .init(key: "expiretm", value: 0),
        ]
        if let closed = order.closed {
            members.append(.init(key: "closetm", value: seconds(closed)))
            members.append(.init(key: "reason", value: .string(order.reason)))
        }
        let price: JSON = order.limit.map { fixed($0, quoteDecimals) } ?? "0"
        members += [
            .init(
                key: "descr",
                value: [
                    "pair": .string(listing.altname), "type": .string(order.side.rawValue), "ordertype": .string(order.ordertype),
                    "price": price, "price2": "0", "leverage": "none",
                    "order": .string(
                        sentence(side: order.side, volume: order.volume, listing: listing, ordertype: order.ordertype, limit: order.limit)
                    ),
                    "close": "",
                ]
            ),
            .init(key: "vol", value: fixed(order.volume, 8)),
            .init(key: "vol_exec", value: fixed(order.executed, 8)),
            .init(key: "cost", value: fixed(order.cost, 5)),
            .init(key: "fee", value: fixed(0, 5)),
            .init(key: "price", value: fixed(order.average ?? 0, quoteDecimals)),
            .init(key: "stopprice", value: fixed(0, 5)),
            .init(key: "limitprice", value: fixed(0, 5)),
            .init(key: "misc", value: ""),
            .init(key: "oflags", value: .string(order.side == .buy ? "fciq" : "fcib")),
        ]
        if trades, !order.trades.isEmpty { members.append(.init(key: "trades", value: .array(order.trades.map(JSON.string)))) }
        return .object(members)
    }

    /*
     SPEC Ticker: {"a": [price, whole lot volume, lot volume], "b": [...], "c": [price, lot volume], "v": [today, 24h],
                   "p": [today, 24h], "t": [today, 24h], "l": [...], "h": [...], "o": "30502.80000"}
     */
    static func ticker(_ quote: MarketQuote, listing: KrakenListing) -> JSON {
        let d = listing.pairDecimals
        func size(_ value: Decimal) -> JSON { fixed(value, 3) }
        let volume = fixed(quote.bidSize * 1000, 8)
        return [
            "a": [fixed(quote.ask, d), .string(DecimalText.format(quote.askSize)), size(quote.askSize)],
            "b": [fixed(quote.bid, d), .string(DecimalText.format(quote.bidSize)), size(quote.bidSize)],
            "c": [fixed(quote.last, d), fixed(quote.lastSize, 8)],
            "v": [volume, volume],
            "p": [fixed(quote.mid, d), fixed(quote.mid, d)],
            "t": [.int(1000), .int(1000)],
            "l": [fixed(quote.low, d), fixed(quote.low, d)],
            "h": [fixed(quote.high, d), fixed(quote.high, d)],
            "o": fixed(quote.open, d),
        ]
    }

    /*
     SPEC AssetPairs XXBTZUSD entry (the fields ccxt reads, and SPEC's fixed ones)
     */
    static func pair(_ listing: KrakenListing) -> JSON {
        [
            "altname": .string(listing.altname), "wsname": .string(listing.wsname), "aclass_base": "currency",
            "base": .string(listing.base), "aclass_quote": "currency", "quote": .string(listing.quote), "lot": "unit",
            "cost_decimals": 5, "pair_decimals": .int(listing.pairDecimals), "lot_decimals": .int(listing.lotDecimals),
            "lot_multiplier": 1, "leverage_buy": [], "leverage_sell": [],
            "fees": [[0, .number("0.26")]], "fees_maker": [[0, .number("0.16")]],
            "fee_volume_currency": "ZUSD", "margin_call": 80, "margin_stop": 40,
            "ordermin": .string(DecimalText.format(listing.ordermin)), "costmin": "0.5",
            "tick_size": .string(DecimalText.format(listing.tickSize)), "status": "online",
        ]
    }

    static func asset(_ asset: KrakenListedAsset) -> JSON {
        [
            "aclass": "currency", "altname": .string(asset.altname), "decimals": .int(asset.decimals),
            "display_decimals": .int(asset.displayDecimals), "collateral_value": 1, "status": "enabled",
        ]
    }
}
