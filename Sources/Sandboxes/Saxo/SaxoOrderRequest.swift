import Foundation
import SandboxKit

/// A validated order body for `POST trade/v2/orders`, `POST trade/v1/orders` and `POST trade/v2/orders/precheck`.
///
/// ```json
/// {"AccountKey":"Lp3/xQ+8bW9nHt2YcR5sEw==","Uic":16,"AssetType":"FxSpot","BuySell":"Buy","Amount":100000,
///  "OrderType":"Limit","OrderPrice":7.1,"OrderDuration":{"DurationType":"GoodTillCancel"},"ManualOrder":false,
///  "ExternalReference":"my-ref-1"}
/// ```
struct SaxoPlaceOrderRequest: Sendable {
    var instrument: SaxoInstrument
    var side: TradeSide
    var amount: Decimal
    var type: SaxoOrderType
    var price: Decimal?
    var stopLimitPrice: Decimal?
    var trailingStopDistance: Decimal?
    var trailingStopStep: Decimal?
    var duration: SaxoDuration
    var accountKey: String?
    var externalReference: String?
    var manualOrder: Bool

    /// - Parameter requireManualOrder: `trade/v2/orders` requires `ManualOrder` (400 without it); the legacy
    ///   `trade/v1/orders` (the seed app's) and precheck do not.
    static func parse(
        _ json: JSON,
        instruments: SaxoInstruments,
        requireManualOrder: Bool,
        now: Date
    ) throws(SaxoAPIError) -> SaxoPlaceOrderRequest {
        var fields = try SaxoFields(json)
        let uic = fields.required("Uic") { $0.int($1) }
        let assetType = fields.required("AssetType") { f, key -> String? in
            guard let text = f.string(key) else { return nil }
            guard let canonical = SaxoAssetType.canonical(text) else {
                f.problem(key, "Error converting value \"\(text)\" to type 'AssetType'. Path '\(key)'.")
                return nil
            }
            return canonical
        }
        let side = fields.required("BuySell") { $0.enumeration($1, SaxoBuySell.self) }
        let amount = fields.required("Amount") { $0.decimal($1) }
        let type = fields.required("OrderType") { $0.enumeration($1, SaxoOrderType.self) }
        let price = fields.decimal("OrderPrice")
        let stopLimitPrice = fields.decimal("StopLimitPrice")
        let trailingDistance = fields.decimal("TrailingStopDistanceToMarket")
        let trailingStep = fields.decimal("TrailingStopStep")
        let manualOrder = requireManualOrder ? fields.required("ManualOrder") { $0.bool($1) } : fields.bool("ManualOrder")
        let accountKey = fields.string("AccountKey")
        let externalReference = fields.string("ExternalReference")
        if let externalReference, externalReference.count > 50 {
            fields.problem("ExternalReference", "The field ExternalReference must be a string with a maximum length of 50.")
        }
        _ = fields.string("OrderRelation")
        if let legs = fields.value("Orders"), legs.arrayValue?.isEmpty == false {
            fields.problem("Orders", "Related orders are not supported by the sandbox.")
        }
        var duration: SaxoDuration?
        if fields.has("OrderDuration") {
            if var nested = fields.object("OrderDuration") {
                duration = parseDuration(&nested, now: now)
                fields.merge(nested)
            }
        } else if type == .Market || !requireManualOrder && type != nil {
            // Saxo's samples place market orders (and precheck any order) without a duration: a day order.
            duration = SaxoDuration(type: type == .Market ? .DayOrder : .GoodTillCancel)
        } else {
            fields.problem("OrderDuration", SaxoFields.mustNotBeEmpty("OrderDuration"))
        }
        if let type, type.needsPrice, price == nil {
            fields.problem("OrderPrice", "OrderPrice is required for \(type.rawValue) orders.")
        }
        if type == .StopLimit, stopLimitPrice == nil {
            fields.problem("StopLimitPrice", "StopLimitPrice is required for StopLimit orders.")
        }
        if type == .TrailingStop || type == .TrailingStopIfTraded {
            if trailingDistance == nil {
                fields.problem("TrailingStopDistanceToMarket", "TrailingStopDistanceToMarket is required for trailing stops.")
            }
            if trailingStep == nil { fields.problem("TrailingStopStep", "TrailingStopStep is required for trailing stops.") }
        }
        guard fields.problems.isEmpty, let uic, let assetType, let side, let amount, let type, let duration else {
            throw .invalidModelState(fields.problems)
        }
        guard let instrument = instruments.find(uic: uic, assetType: assetType) else {
            throw .trading("IllegalInstrumentId", "Instrument ID is invalid")
        }
        return SaxoPlaceOrderRequest(
            instrument: instrument,
            side: side.side,
            amount: amount,
            type: type,
            price: price,
            stopLimitPrice: stopLimitPrice,
            trailingStopDistance: trailingDistance,
            trailingStopStep: trailingStep,
            duration: duration,
            accountKey: accountKey,
            externalReference: externalReference,
            manualOrder: manualOrder ?? false
        )
    }

    /// `{"DurationType":"GoodTillDate","ExpirationDateTime":"2025-01-10T13:00","ExpirationDateContainsTime":true}`.
    static func parseDuration(_ fields: inout SaxoFields, now: Date) -> SaxoDuration? {
        guard let type = fields.required("DurationType", { $0.enumeration($1, SaxoDurationType.self) }) else { return nil }
        var duration = SaxoDuration(type: type)
        guard type == .GoodTillDate else { return duration }
        guard let text = fields.required("ExpirationDateTime", { $0.string($1) }) else { return nil }
        let containsTime = fields.bool("ExpirationDateContainsTime")
        // Saxo takes `2022-01-01`, `2022-01-01T13:00` or `2022-01-01T13:00:00` in exchange time; the sandbox reads UTC.
        var date: Date?
        if text.count == 10 {
            date = Timestamp.parse(text).map { $0.addingTimeInterval(86_400) }
        } else if text.count == 16 {
            date = Timestamp.parse(text + ":00Z")
        } else {
            date = Timestamp.parse(text) ?? Timestamp.parse(text + "Z")
        }
        guard let date else {
            fields.problem("ExpirationDateTime", "Could not convert string to DateTime: \(text).")
            return nil
        }
        guard date > now else {
            fields.problem("ExpirationDateTime", "ExpirationDateTime must be in the future.")
            return nil
        }
        duration.expirationText = text
        duration.expirationDate = date
        duration.expirationContainsTime = containsTime
        return duration
    }
}

/// A validated change: `PATCH trade/v2/orders` (`OrderId` in the body) or the seed's `PATCH trade/v1/orders/{OrderId}`.
///
/// ```json
/// {"AccountKey":"Lp3/xQ+8bW9nHt2YcR5sEw==","OrderId":"76300001","AssetType":"FxSpot","Amount":100000,"OrderType":"Limit",
///  "OrderPrice":7.1,"OrderDuration":{"DurationType":"GoodTillCancel"},"ManualOrder":false}
/// ```
struct SaxoChangeOrderRequest: Sendable {
    var orderID: String
    var amount: Decimal?
    var type: SaxoOrderType?
    var price: Decimal?
    var stopLimitPrice: Decimal?
    var trailingStopDistance: Decimal?
    var trailingStopStep: Decimal?
    var duration: SaxoDuration?
    var accountKey: String?

    static func parse(
        _ json: JSON,
        orderID pathOrderID: String?,
        requireManualOrder: Bool,
        now: Date
    ) throws(SaxoAPIError)
        -> SaxoChangeOrderRequest
    {
        var fields = try SaxoFields(json)
        let orderID: String? = pathOrderID ?? fields.required("OrderId") { $0.string($1) }
        if requireManualOrder {
            _ = fields.required("ManualOrder") { $0.bool($1) }
            _ = fields.required("AssetType") { $0.string($1) }
        }
        let amount = fields.decimal("Amount")
        let type = fields.enumeration("OrderType", SaxoOrderType.self)
        let price = fields.decimal("OrderPrice")
        let stopLimitPrice = fields.decimal("StopLimitPrice")
        let trailingDistance = fields.decimal("TrailingStopDistanceToMarket")
        let trailingStep = fields.decimal("TrailingStopStep")
        let accountKey = fields.string("AccountKey")
        var duration: SaxoDuration?
        if var nested = fields.object("OrderDuration") {
            duration = SaxoPlaceOrderRequest.parseDuration(&nested, now: now)
            fields.merge(nested)
        }
        guard fields.problems.isEmpty, let orderID else { throw .invalidModelState(fields.problems) }
        return SaxoChangeOrderRequest(
            orderID: orderID,
            amount: amount,
            type: type,
            price: price,
            stopLimitPrice: stopLimitPrice,
            trailingStopDistance: trailingDistance,
            trailingStopStep: trailingStep,
            duration: duration,
            accountKey: accountKey
        )
    }
}
