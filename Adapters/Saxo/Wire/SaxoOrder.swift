import Foundation
import GatewayModel

/// One open order from `GET port/v1/orders/me` or `GET port/v1/orders/{ClientKey}/{OrderId}`. Note the read side
/// says `Price` and `Duration` where the write side says `OrderPrice` and `OrderDuration`.
struct SaxoOrder: Decodable, Sendable {
    var orderId: String
    var accountId: String?
    var accountKey: String?
    var clientKey: String?
    var uic: Int?
    var assetType: String?
    var buySell: String?
    var amount: Decimal?
    var filledAmount: Decimal?
    var price: Decimal?
    var stopLimitPrice: Decimal?
    var openOrderType: String?
    var duration: SaxoDuration?
    var status: String?
    var orderTime: String?
    var externalReference: String?
    var displayAndFormat: SaxoDisplayAndFormat?

    enum CodingKeys: String, CodingKey {
        case orderId = "OrderId"
        case accountId = "AccountId"
        case accountKey = "AccountKey"
        case clientKey = "ClientKey"
        case uic = "Uic"
        case assetType = "AssetType"
        case buySell = "BuySell"
        case amount = "Amount"
        case filledAmount = "FilledAmount"
        case price = "Price"
        case stopLimitPrice = "StopLimitPrice"
        case openOrderType = "OpenOrderType"
        case duration = "Duration"
        case status = "Status"
        case orderTime = "OrderTime"
        case externalReference = "ExternalReference"
        case displayAndFormat = "DisplayAndFormat"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        orderId = try c.decode(String.self, forKey: .orderId)
        accountId = try c.decodeIfPresent(String.self, forKey: .accountId)
        accountKey = try c.decodeIfPresent(String.self, forKey: .accountKey)
        clientKey = try c.decodeIfPresent(String.self, forKey: .clientKey)
        uic = try c.decodeIfPresent(Int.self, forKey: .uic)
        assetType = try c.decodeIfPresent(String.self, forKey: .assetType)
        buySell = try c.decodeIfPresent(String.self, forKey: .buySell)
        amount = try c.decodeDecimalIfPresent(forKey: .amount)
        filledAmount = try c.decodeDecimalIfPresent(forKey: .filledAmount)
        price = try c.decodeDecimalIfPresent(forKey: .price)
        stopLimitPrice = try c.decodeDecimalIfPresent(forKey: .stopLimitPrice)
        openOrderType = try c.decodeIfPresent(String.self, forKey: .openOrderType)
        duration = try c.decodeIfPresent(SaxoDuration.self, forKey: .duration)
        status = try c.decodeIfPresent(String.self, forKey: .status)
        orderTime = try c.decodeIfPresent(String.self, forKey: .orderTime)
        externalReference = try c.decodeIfPresent(String.self, forKey: .externalReference)
        displayAndFormat = try c.decodeIfPresent(SaxoDisplayAndFormat.self, forKey: .displayAndFormat)
    }
}

/// `{"DurationType": "GoodTillDate", "ExpirationDateTime": "2022-01-01T13:00", "ExpirationDateContainsTime": true}`.
struct SaxoDuration: Codable, Sendable, Hashable {
    var durationType: String
    var expirationDateTime: String?
    var expirationDateContainsTime: Bool?

    enum CodingKeys: String, CodingKey {
        case durationType = "DurationType"
        case expirationDateTime = "ExpirationDateTime"
        case expirationDateContainsTime = "ExpirationDateContainsTime"
    }

    init(durationType: String, expirationDateTime: String? = nil, expirationDateContainsTime: Bool? = nil) {
        self.durationType = durationType
        self.expirationDateTime = expirationDateTime
        self.expirationDateContainsTime = expirationDateContainsTime
    }
}
