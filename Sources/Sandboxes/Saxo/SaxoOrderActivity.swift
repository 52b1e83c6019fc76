import Foundation
import SandboxKit

/// `OrderLogStatus`, the `Status` of an entry in `GET cs/v1/audit/orderactivities` (Saxo's spelling), from Saxo's
/// reference (developer.saxo/openapi/referencedocs/cs/v1/audit-orderactivities/…/schema-orderlogstatus): `Cancelled`
/// (by client or dealer), `Changed`, `DoneForDay` (external OMS), `Expired`, `Fill` (a partial fill), `FinalFill`
/// (the fill that completes an open order), `Placed`, `Working` (external OMS). There is no `Rejected` status: a
/// refused request is the `SubStatus` (below). The sandbox writes every value but `DoneForDay` and `Working`.
enum SaxoOrderLogStatus: String, Sendable, Codable, CaseIterable {
    case Cancelled, Changed, DoneForDay, Expired, Fill, FinalFill, Placed, Working
}

/// `OrderSubStatus` (schema-ordersubstatus): what became of the request the entry logs. The sandbox confirms or
/// rejects at once, so it writes `Confirmed` and `Rejected` only (Saxo also logs `Requested`, `RouteRequested`,
/// `RouteRequestPending` and `WaitCondition` on the way).
enum SaxoOrderSubStatus: String, Sendable, Codable, CaseIterable {
    case Confirmed, Rejected, Requested, RouteRequested, RouteRequestPending, WaitCondition
}

/// One entry of the order-activity audit log: an event in an order's life, with the order as it stood after it.
///
/// Saxo's `GET cs/v1/audit/orderactivities` keeps these for 2+ years, long after the order has left
/// `port/v1/orders` (developer.saxo/openapi/learn/audit-orderactivities: "by looking at the latest order activity of
/// an order, we can tell its status"). A market order that fills at once usually leaves two entries, `Placed` then
/// `FinalFill`. Entries measured on Saxo's SIM (dd-jp/samurai-trading-system, docs `saxo-order-idempotency`,
/// 2026-09): `(Status, SubStatus)` pairs `Placed/Requested`, `Placed/Confirmed`, `FinalFill/Confirmed`,
/// `Cancelled/Confirmed`, `Changed/Confirmed`; a fill row carries `FillAmount`, `FilledAmount`, `AveragePrice`,
/// `ExecutionPrice` and `PositionId`; a placement the venue refused still leaves a `Placed`/`Rejected` row with an
/// `OrderId` and the `ExternalReference`.
///
/// Stored as plain values (no instrument object) so that the book stays `Codable`; the instrument is looked up by
/// `Uic` and `AssetType` when `DisplayAndFormat` is asked for.
struct SaxoOrderActivity: Sendable, Codable, Equatable {
    /// Who handled the request: the client's user (`HandledBy` = its UserId) or the system (a fill, an expiry).
    enum Handler: String, Sendable, Codable {
        case user, system
    }

    /// `LogId`: increasing, so that an entry with a higher id was logged later.
    var logId: Int
    var orderId: String
    var activityTime: Date
    var status: SaxoOrderLogStatus
    var subStatus: SaxoOrderSubStatus
    var handledBy: Handler
    var uic: Int
    var assetType: String
    var side: TradeSide
    var amount: Decimal
    /// `SaxoOrderType` raw value (`Market`, `Limit`, …).
    var orderType: String
    var price: Decimal?
    var stopLimitPrice: Decimal?
    var durationType: String
    var expirationText: String?
    var expirationContainsTime: Bool?
    var externalReference: String?
    var correlationKey: String
    /// The amount filled so far (after this entry).
    var filledAmount: Decimal = 0
    /// Fills only: this fill's amount and price, the average price of everything filled, the position it opened.
    var fillAmount: Decimal?
    var executionPrice: Decimal?
    var averagePrice: Decimal?
    var positionId: String?
}

extension SaxoAccountBook {
    /// Appends an entry for `order` as it stands now. `fill` is this fill's amount and price (fills only).
    mutating func logActivity(
        _ order: SaxoOrder,
        _ status: SaxoOrderLogStatus,
        _ subStatus: SaxoOrderSubStatus = .Confirmed,
        by handler: SaxoOrderActivity.Handler,
        at time: Date,
        fill: (amount: Decimal, price: Decimal)? = nil,
        positionId: String? = nil
    ) {
        var entry = SaxoOrderActivity(
            logId: makeLogID(),
            orderId: order.id,
            activityTime: time,
            status: status,
            subStatus: subStatus,
            handledBy: handler,
            uic: order.instrument.uic,
            assetType: order.instrument.assetType,
            side: order.side,
            amount: order.amount,
            orderType: order.type.rawValue,
            price: order.type.needsPrice ? order.price : nil,
            stopLimitPrice: order.type == .StopLimit ? order.stopLimitPrice : nil,
            durationType: order.duration.type.rawValue,
            expirationText: order.duration.expirationText,
            expirationContainsTime: order.duration.expirationContainsTime,
            externalReference: order.externalReference,
            correlationKey: order.correlationKey
        )
        let previous = activities.last { $0.orderId == order.id }
        entry.filledAmount = previous?.filledAmount ?? 0
        entry.averagePrice = previous?.averagePrice
        if let fill {
            let before = entry.filledAmount
            entry.filledAmount = before + fill.amount
            entry.fillAmount = fill.amount
            entry.executionPrice = fill.price
            // The average of all fills, weighted by amount (one fill: its price).
            entry.averagePrice = ((entry.averagePrice ?? 0) * before + fill.price * fill.amount) / entry.filledAmount
            entry.positionId = positionId
        }
        activities.append(entry)
    }
}
