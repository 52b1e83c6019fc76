import Foundation
import GatewayModel

extension Order {
    /*
     GET cs/v1/audit/orderactivities?OrderId=1000001&EntryType=All (Saxo's guide, a market order filled at once):
     {"__count": 2, "Data": [
       {"ActivityTime": "2018-05-15T15:14:43.908000Z", "LogId": "34139673", "OrderId": "1000001", "Amount": 500,
        "OrderType": "Market", "Status": "Placed", "SubStatus": "Confirmed", ...},
       {"ActivityTime": "2018-05-15T15:14:44.588000Z", "LogId": "34139674", "OrderId": "1000001", "FillAmount": 500,
        "FilledAmount": 500, "AveragePrice": 99.9, "Status": "FinalFill", "SubStatus": "Confirmed", ...}]}
     */
    /// An order from its audit entries (any order, at least one entry of order `brokerOrderId`): its state is what
    /// the latest entry that took effect says, its terms are the order as that entry records it.
    ///
    /// A `Changed` or `Cancelled` entry whose request was `Rejected` left the order as it was, so it is passed over;
    /// a `Placed` one that was `Rejected` is the order's end (`rejected`). `FinalFill` → `filled`, `Fill` →
    /// `partially_filled`, `Cancelled` → `canceled` (`pending_cancel` while only requested), `Expired` → `expired`,
    /// `DoneForDay` → `expired` for a day order (else it works again tomorrow: `open`), `Placed`/`Changed`/`Working`
    /// → `open` (`pending_new` while the placement is only requested, `partially_filled` once something filled).
    /// Times: `createdAt`/`submittedAt` the placement's, `updatedAt` the latest entry's, and `filledAt`, `canceledAt`,
    /// `expiredAt` the end's. The instrument comes from `DisplayAndFormat`, else from `known`.
    init?(saxoActivities all: [SaxoOrderActivity], brokerOrderId: String, connectionId: String, known: Instrument?) throws {
        let entries = all.filter { $0.orderId == brokerOrderId }.sorted(by: SaxoOrderActivity.chronological)
        guard !entries.isEmpty else { return nil }
        let effective = entries.filter { entry in
            !(entry.subStatus == "Rejected" && (entry.status == "Changed" || entry.status == "Cancelled"))
        }
        guard let last = effective.last ?? entries.last, let rawStatus = last.status else {
            throw SaxoErrors.malformed("an order activity without a Status")
        }
        // Terms from the latest entry that has them (every entry should; fall back rather than fail on one that does not).
        func latest<T>(_ value: (SaxoOrderActivity) -> T?) -> T? { entries.reversed().lazy.compactMap(value).first }
        guard let assetType = latest(\.assetType) else { throw SaxoErrors.malformed("an order activity without an AssetType") }
        let instrument: Instrument
        if let symbol = latest({ $0.displayAndFormat?.symbol }) {
            let format = latest(\.displayAndFormat)
            instrument = Instrument(
                saxoSymbol: symbol,
                assetType: assetType,
                uic: latest(\.uic),
                name: format?.description,
                currency: format?.currency
            )
        } else if let known {
            instrument = known
        } else {
            throw SaxoErrors.malformed("an order activity without DisplayAndFormat for an instrument the gateway cannot name")
        }
        guard let amount = latest(\.amount) else { throw SaxoErrors.malformed("an order activity without an Amount") }
        guard let rawType = latest(\.orderType) else { throw SaxoErrors.malformed("an order activity without an OrderType") }
        guard let side = latest(\.buySell) else { throw SaxoErrors.malformed("an order activity without BuySell") }
        let type = try OrderType(saxo: rawType)
        let durationType = latest { $0.duration?.durationType } ?? "DayOrder"
        let filled = entries.compactMap(\.filledAmount).max() ?? 0
        let status = try OrderStatus(
            saxoActivity: rawStatus,
            subStatus: last.subStatus,
            filledAmount: filled,
            durationType: durationType
        )
        var limitPrice: Decimal?
        var stopPrice: Decimal?
        let price = last.price ?? latest(\.price)
        switch type {
        case .market: break
        case .limit: limitPrice = price
        case .stop: stopPrice = price
        case .stopLimit:
            stopPrice = price
            limitPrice = last.stopLimitPrice ?? latest(\.stopLimitPrice)
        }
        let placedAt = entries.first { $0.status == "Placed" }?.activityTime.flatMap(SaxoTimestamp.parse)
        let endedAt = last.activityTime.flatMap(SaxoTimestamp.parse)
        let reference = latest(\.externalReference)
        self.init(
            id: brokerOrderId,
            brokerOrderId: brokerOrderId,
            clientOrderId: reference ?? brokerOrderId,
            connectionId: connectionId,
            broker: .saxo,
            accountId: latest(\.accountId) ?? "",
            instrument: instrument,
            side: try OrderSide(saxo: side),
            type: type,
            timeInForce: try TimeInForce(saxo: durationType),
            quantity: amount,
            limitPrice: limitPrice,
            stopPrice: stopPrice,
            status: status,
            filledQuantity: filled,
            averageFillPrice: filled > 0 ? latest(\.averagePrice) : nil,
            createdAt: placedAt,
            updatedAt: entries.last?.activityTime.flatMap(SaxoTimestamp.parse),
            expiresAt: latest { $0.duration?.expirationDateTime }.flatMap(SaxoTimestamp.parse),
            brokerStatus: last.subStatus.map { $0 == "Confirmed" ? rawStatus : "\(rawStatus)/\($0)" } ?? rawStatus,
            submittedAt: placedAt,
            filledAt: status == .filled ? endedAt : nil,
            canceledAt: status == .canceled ? endedAt : nil,
            expiredAt: status == .expired ? endedAt : nil
        )
    }
}

extension OrderStatus {
    /// An audit entry's `Status` and `SubStatus` as an order state (see `Order(saxoActivities:…)`). An unknown
    /// `Status` is a malformed answer rather than a guess.
    init(saxoActivity status: String, subStatus: String?, filledAmount: Decimal, durationType: String) throws {
        let requested = subStatus != nil && subStatus != "Confirmed" && subStatus != "Rejected"
        switch status {
        case "FinalFill": self = .filled
        case "Fill": self = .partiallyFilled
        case "Cancelled": self = requested ? .pendingCancel : .canceled
        case "Expired": self = .expired
        case "DoneForDay": self = durationType == "DayOrder" ? .expired : (filledAmount > 0 ? .partiallyFilled : .open)
        case "Placed" where subStatus == "Rejected": self = .rejected
        case "Placed" where requested: self = .pendingNew
        case "Placed", "Changed", "Working": self = filledAmount > 0 ? .partiallyFilled : .open
        default: throw SaxoErrors.malformed("an order activity status the gateway does not know")
        }
    }
}
