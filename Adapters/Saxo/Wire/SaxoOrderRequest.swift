import Foundation

/// The body of `POST trade/v2/orders` and `POST trade/v2/orders/precheck`. `ManualOrder` is required (Saxo answers
/// 400 without it). Decimals are sent as JSON numbers (Saxo's wire type is a double); `JSONEncoder` writes a
/// `Decimal` as its exact decimal text.
struct SaxoOrderRequest: Encodable, Sendable {
    var accountKey: String
    var uic: Int
    var assetType: String
    var buySell: String
    var amount: Decimal
    var orderType: String
    var orderPrice: Decimal?
    var stopLimitPrice: Decimal?
    var orderDuration: SaxoDuration
    var manualOrder = false
    var externalReference: String?
    /// Precheck only: `["Costs"]` asks for the cost breakdown.
    var fieldGroups: [String]?

    enum CodingKeys: String, CodingKey {
        case accountKey = "AccountKey"
        case uic = "Uic"
        case assetType = "AssetType"
        case buySell = "BuySell"
        case amount = "Amount"
        case orderType = "OrderType"
        case orderPrice = "OrderPrice"
        case stopLimitPrice = "StopLimitPrice"
        case orderDuration = "OrderDuration"
        case manualOrder = "ManualOrder"
        case externalReference = "ExternalReference"
        case fieldGroups = "FieldGroups"
    }
}

/// The body of `PATCH trade/v2/orders`.
struct SaxoOrderChange: Encodable, Sendable {
    var orderId: String
    var accountKey: String
    var assetType: String
    var orderType: String
    var amount: Decimal
    var orderPrice: Decimal?
    var stopLimitPrice: Decimal?
    var orderDuration: SaxoDuration
    var manualOrder = false

    enum CodingKeys: String, CodingKey {
        case orderId = "OrderId"
        case accountKey = "AccountKey"
        case assetType = "AssetType"
        case orderType = "OrderType"
        case amount = "Amount"
        case orderPrice = "OrderPrice"
        case stopLimitPrice = "StopLimitPrice"
        case orderDuration = "OrderDuration"
        case manualOrder = "ManualOrder"
    }
}

/// The answer to `POST`/`PATCH trade/v2/orders`: `{"OrderId": "76288494"}`, possibly with an `ErrorInfo`.
struct SaxoOrderResponse: Decodable, Sendable {
    var orderId: String?
    var errorInfo: SaxoErrorInfo?

    enum CodingKeys: String, CodingKey {
        case orderId = "OrderId"
        case errorInfo = "ErrorInfo"
    }
}

/// The answer to `DELETE trade/v2/orders/{OrderIds}`: `{"Orders": [{"OrderId": "…", "ErrorInfo"?: {…}}]}`.
struct SaxoCancelResponse: Decodable, Sendable {
    var orders: [SaxoOrderResponse]?

    enum CodingKeys: String, CodingKey {
        case orders = "Orders"
    }
}
