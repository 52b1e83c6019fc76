import Foundation
import SandboxKit
import Synchronization

/// One change of an order, as the trading stream's `trade_updates` sends it.
///
/// ```json
/// {"stream":"trade_updates","data":{"event":"fill","execution_id":"…","order":{…the REST order…},
///  "position_qty":"2","price":"187.43","qty":"2","timestamp":"2025-01-06T15:00:00.000000Z"}}
/// ```
/// `price`, `qty` and `position_qty` (decimal strings, as in the REST objects) come with fills only; alpaca-py's
/// `TradeUpdate` parses them as optional floats.
struct AlpacaTradeUpdate: Sendable {
    /// Alpaca's event names: the order's new status, except `fill` and `partial_fill` for the filled statuses.
    var event: String
    var order: AlpacaOrder
    var timestamp: Date
    var executionID: UUID?
    var price: Decimal?
    var qty: Decimal?
    var positionQty: Decimal?

    /// The events an order's move from `old` (nil: just placed) to `new` sends, in order: a `fill` or
    /// `partial_fill` when it filled more (a second part fill is an event though the status stays
    /// `partially_filled`), then its new status when that changed and is not a fill status (an IOC order's rest
    /// cancelled after a part fill sends `partial_fill`, then `canceled`). Nothing when neither changed (a trailing
    /// stop's watermark moving is no event).
    static func events(from old: AlpacaOrder?, to new: AlpacaOrder) -> [String] {
        var events: [String] = []
        if new.filledQty > (old?.filledQty ?? 0) {
            events.append(new.status == .filled ? "fill" : "partial_fill")
        }
        if old?.status != new.status, new.status != .filled, new.status != .partially_filled {
            events.append(new.status.rawValue)
        }
        return events
    }

    var data: JSON {
        var members: [JSON.Member] = [.init(key: "event", value: .string(event))]
        if let executionID { members.append(.init(key: "execution_id", value: AlpacaWire.uuid(executionID))) }
        members.append(.init(key: "order", value: AlpacaWire.order(order)))
        if let positionQty { members.append(.init(key: "position_qty", value: AlpacaWire.decimal(positionQty))) }
        if let price { members.append(.init(key: "price", value: AlpacaWire.decimal(price))) }
        if let qty { members.append(.init(key: "qty", value: AlpacaWire.decimal(qty))) }
        members.append(.init(key: "timestamp", value: AlpacaWire.time(timestamp)))
        return .object(members)
    }
}

extension AlpacaAccountBook {
    /// Notes the trade updates an order's insertion or change sends (called by `insert` and `update`). Alpaca's
    /// trade_updates documentation (docs.alpaca.markets, "Websocket Streaming", order updates): `partial_fill` carries
    /// "the average price per share at which the shares were filled" (this execution's shares), `fill` "the average
    /// price per share at which the order was filled" (the order's `filled_avg_price`); both the quantity of this
    /// execution and `position_qty`, the position after it.
    mutating func recordChange(of order: AlpacaOrder, from old: AlpacaOrder?) {
        for event in AlpacaTradeUpdate.events(from: old, to: order) {
            var update = AlpacaTradeUpdate(event: event, order: order, timestamp: order.updatedAt)
            if event == "fill" || event == "partial_fill" {
                let qty = order.filledQty - (old?.filledQty ?? 0)
                update.executionID = UUID()
                update.qty = qty
                update.price =
                    event == "fill"
                    ? order.filledAvgPrice
                    : AlpacaAccountBook.averagePrice(value: order.filledValue - (old?.filledValue ?? 0), qty: qty)
                // The position after the fill: the book moves it before the order is stored.
                update.positionQty = positions[order.instrument.symbol]?.qty ?? 0
            }
            pendingUpdates.append(update)
        }
    }

    /// The trade updates noted since the last call.
    mutating func drainUpdates() -> [AlpacaTradeUpdate] {
        defer { pendingUpdates.removeAll() }
        return pendingUpdates
    }
}
