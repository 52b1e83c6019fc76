import Crypto
import Foundation
import GatewayModel

extension Order {
    /*
     "OQCLML-BW3P3-BUCMWZ": {"userref": 0, "status": "open", "opentm": 1688666559.8974, "starttm": 0, "expiretm": 0,
       "descr": {"pair": "XBTUSD", "type": "buy", "ordertype": "limit", "price": "30010.0", "price2": "0", ...},
       "vol": "1.25000000", "vol_exec": "0.37500000", "cost": "11253.7", "fee": "0.00000", "price": "30010.0", ...}
     → BTC/USD buy limit 1.25 @ 30010.0, partially_filled 0.375, average 30010.0
     */
    /// An order of OpenOrders, ClosedOrders or QueryOrders (`txid` is its map key).
    ///
    /// - status: `pending` → pending_new; `open` → open, or partially_filled once `vol_exec` > 0; `closed` → filled;
    ///   `canceled` → canceled; `expired` → expired; anything else → unknown. `brokerStatus` keeps Kraken's word.
    /// - type: `market`, `limit`; `stop-loss`/`take-profit` (and trailing-stop) → stop; `*-limit` → stop_limit;
    ///   `iceberg` → limit. For a stop, `descr.price` is the trigger; for a stop-limit, `descr.price2` the limit.
    /// - time in force: `time_in_force` when Kraken gives it, else gtd with an `expiretm`, else gtc.
    /// - clientOrderId: `cl_ord_id`, else the txid. averageFillPrice: `price` once something filled.
    init(kraken order: KrakenOrder, txid: String, markets: KrakenMarkets, connectionId: String, accountId: String) throws {
        let side: OrderSide
        switch order.descr.type.lowercased() {
        case "buy": side = .buy
        case "sell": side = .sell
        default: throw KrakenErrors.malformed("an order whose type is neither buy nor sell")
        }
        let price = order.descr.price?.decimal.flatMap { $0 > 0 ? $0 : nil }
        let price2 = order.descr.price2?.decimal.flatMap { $0 > 0 ? $0 : nil }
        let type: OrderType
        var limitPrice: Decimal?
        var stopPrice: Decimal?
        switch order.descr.ordertype.lowercased() {
        case "market", "settle-position": type = .market
        case "limit", "iceberg":
            type = .limit
            limitPrice = price
        case "stop-loss", "take-profit", "trailing-stop":
            type = .stop
            stopPrice = price
        case "stop-loss-limit", "take-profit-limit", "trailing-stop-limit":
            type = .stopLimit
            stopPrice = price
            limitPrice = price2
        default: throw KrakenErrors.malformed("an order type Kraken does not document (\(order.descr.ordertype))")
        }
        let status: OrderStatus
        switch order.status.lowercased() {
        case "pending": status = .pendingNew
        case "open": status = order.volExec > 0 ? .partiallyFilled : .open
        case "closed": status = .filled
        case "canceled", "cancelled": status = .canceled
        case "expired": status = .expired
        default: status = .unknown
        }
        let timeInForce: TimeInForce =
            switch order.timeInForce?.lowercased() ?? "" {
            case "ioc": .ioc
            case "gtd": .gtd
            case "gtc": .gtc
            default: order.expiretm == nil ? .gtc : .gtd
            }
        self.init(
            id: txid,
            brokerOrderId: txid,
            clientOrderId: order.clOrdId.flatMap { $0.isEmpty ? nil : $0 } ?? txid,
            connectionId: connectionId,
            broker: .kraken,
            accountId: accountId,
            instrument: markets.instrument(orderPair: order.descr.pair),
            side: side,
            type: type,
            timeInForce: timeInForce,
            quantity: order.vol,
            limitPrice: limitPrice,
            stopPrice: stopPrice,
            status: status,
            filledQuantity: order.volExec,
            averageFillPrice: order.volExec > 0 ? order.price.flatMap { $0 > 0 ? $0 : nil } : nil,
            createdAt: order.opentm,
            updatedAt: order.closetm,
            expiresAt: order.expiretm,
            brokerStatus: order.status,
            filledAt: status == .filled ? order.closetm : nil,
            canceledAt: status == .canceled ? order.closetm : nil,
            expiredAt: status == .expired ? order.closetm : nil
        )
    }
}

/// The gateway's client order id as Kraken's `cl_ord_id`, which takes a UUID (with or without dashes) or free text of
/// at most 18 ASCII characters (SPEC `AddOrder`):
///
/// - the gateway's own ids, `gw-` + 32 hex digits: the 32 hex digits (a short UUID);
/// - a UUID, 32 hex digits, or up to 18 printable ASCII characters: as they are;
/// - anything else (`conformance-1f2e3d4c5b6a`, 24 characters): the first 32 hex digits of its SHA-256, so the same id
///   always travels the same way and ``KrakenAdapter/order(clientOrderId:accountId:)`` finds what it placed.
enum KrakenClientOrderId {
    static func wire(_ id: String) -> String {
        let hex = id.hasPrefix("gw-") ? String(id.dropFirst(3)) : id
        if hex.count == 32, hex.allSatisfy(\.isHexDigit) { return hex.lowercased() }
        if UUID(uuidString: id) != nil { return id.lowercased() }
        if id.count <= 18, !id.isEmpty, id.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) { return id }
        return SHA256.hash(data: Data(id.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
