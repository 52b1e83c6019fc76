import Foundation
import GatewayModel

/// One entry of `GET cs/v1/audit/orderactivities` (Saxo's `OrderActivitiesResponse`): an event in an order's life
/// (`Status`: `Placed`, `Changed`, `Cancelled`, `Fill`, `FinalFill`, `Expired`, `DoneForDay`, `Working`), whether
/// the request it logs went through (`SubStatus`: `Requested`, `Confirmed`, `Rejected`, …), and the order as it
/// stood after it. Saxo keeps these 2+ years, long after the order has left `port/v1/orders`.
///
/// Sources: developer.saxo/openapi/referencedocs/cs/v1/audit-orderactivities (schema and enums) and a fill row
/// measured on Saxo's SIM (dd-jp/samurai-trading-system, docs `saxo-order-idempotency`, 2026-09):
/// `{"Status":"FinalFill","SubStatus":"Confirmed","FillAmount":1.0,"AveragePrice":709.07,"Amount":1.0,
/// "OrderType":"Limit","PositionId":"5027430598","LogId":"252169181",…}`. Full fills say `FinalFill`, never `Filled`.
struct SaxoOrderActivity: Decodable, Sendable {
    var orderId: String
    var logId: String?
    var activityTime: String?
    var status: String?
    var subStatus: String?
    var accountId: String?
    var uic: Int?
    var assetType: String?
    var buySell: String?
    var amount: Decimal?
    var orderType: String?
    var price: Decimal?
    var stopLimitPrice: Decimal?
    var duration: SaxoDuration?
    var externalReference: String?
    var fillAmount: Decimal?
    var filledAmount: Decimal?
    var averagePrice: Decimal?
    var executionPrice: Decimal?
    var positionId: String?
    var displayAndFormat: SaxoDisplayAndFormat?

    enum CodingKeys: String, CodingKey {
        case orderId = "OrderId"
        case logId = "LogId"
        case activityTime = "ActivityTime"
        case status = "Status"
        case subStatus = "SubStatus"
        case accountId = "AccountId"
        case uic = "Uic"
        case assetType = "AssetType"
        case buySell = "BuySell"
        case amount = "Amount"
        case orderType = "OrderType"
        case price = "Price"
        case stopLimitPrice = "StopLimitPrice"
        case duration = "Duration"
        case externalReference = "ExternalReference"
        case fillAmount = "FillAmount"
        case filledAmount = "FilledAmount"
        case averagePrice = "AveragePrice"
        case executionPrice = "ExecutionPrice"
        case positionId = "PositionId"
        case displayAndFormat = "DisplayAndFormat"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        orderId = try c.decode(String.self, forKey: .orderId)
        logId = try c.decodeIfPresent(String.self, forKey: .logId)
        activityTime = try c.decodeIfPresent(String.self, forKey: .activityTime)
        status = try c.decodeIfPresent(String.self, forKey: .status)
        subStatus = try c.decodeIfPresent(String.self, forKey: .subStatus)
        accountId = try c.decodeIfPresent(String.self, forKey: .accountId)
        uic = try c.decodeIfPresent(Int.self, forKey: .uic)
        assetType = try c.decodeIfPresent(String.self, forKey: .assetType)
        buySell = try c.decodeIfPresent(String.self, forKey: .buySell)
        amount = try c.decodeDecimalIfPresent(forKey: .amount)
        orderType = try c.decodeIfPresent(String.self, forKey: .orderType)
        price = try c.decodeDecimalIfPresent(forKey: .price)
        stopLimitPrice = try c.decodeDecimalIfPresent(forKey: .stopLimitPrice)
        duration = try c.decodeIfPresent(SaxoDuration.self, forKey: .duration)
        externalReference = try c.decodeIfPresent(String.self, forKey: .externalReference)
        fillAmount = try c.decodeDecimalIfPresent(forKey: .fillAmount)
        filledAmount = try c.decodeDecimalIfPresent(forKey: .filledAmount)
        averagePrice = try c.decodeDecimalIfPresent(forKey: .averagePrice)
        executionPrice = try c.decodeDecimalIfPresent(forKey: .executionPrice)
        positionId = try c.decodeIfPresent(String.self, forKey: .positionId)
        displayAndFormat = try c.decodeIfPresent(SaxoDisplayAndFormat.self, forKey: .displayAndFormat)
    }

    /// `LogId`s are in time sequence ("an entry with LogId=x+1 will be entered into the log after an entry with
    /// LogId=x"): numeric order, then `ActivityTime` for entries without one.
    static func chronological(_ a: SaxoOrderActivity, _ b: SaxoOrderActivity) -> Bool {
        if let x = a.logId.flatMap({ Int($0) }), let y = b.logId.flatMap({ Int($0) }) { return x < y }
        return (a.activityTime.flatMap(SaxoTimestamp.parse) ?? .distantPast) < (b.activityTime.flatMap(SaxoTimestamp.parse) ?? .distantPast)
    }
}
