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

    /// The event an order's move from `old` (nil: just placed) to its current status sends, or nil when its status
    /// did not change (a trailing stop's watermark moving is no event).
    static func event(from old: AlpacaOrderStatus?, to new: AlpacaOrderStatus) -> String? {
        guard old != new else { return nil }
        switch new {
        case .filled: return "fill"
        case .partially_filled: return "partial_fill"
        default: return new.rawValue
        }
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
    /// Notes the trade update an order's insertion or change sends (called by `insert` and `update`).
    mutating func recordChange(of order: AlpacaOrder, from old: AlpacaOrder?) {
        guard let event = AlpacaTradeUpdate.event(from: old?.status, to: order.status) else { return }
        var update = AlpacaTradeUpdate(event: event, order: order, timestamp: order.updatedAt)
        if order.status == .filled || order.status == .partially_filled {
            update.executionID = UUID()
            update.price = order.filledAvgPrice
            update.qty = order.filledQty - (old?.filledQty ?? 0)
            // The position after the fill: the book moves it before the order is stored.
            update.positionQty = positions[order.instrument.symbol]?.qty ?? 0
        }
        pendingUpdates.append(update)
    }

    /// The trade updates noted since the last call.
    mutating func drainUpdates() -> [AlpacaTradeUpdate] {
        defer { pendingUpdates.removeAll() }
        return pendingUpdates
    }
}
