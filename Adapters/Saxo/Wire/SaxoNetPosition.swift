import Foundation
import GatewayModel

/// One element of `GET port/v1/netpositions?FieldGroups=DisplayAndFormat,NetPositionBase,NetPositionView`.
struct SaxoNetPosition: Decodable, Sendable {
    var netPositionId: String?
    var base: Base?
    var view: View?
    var displayAndFormat: SaxoDisplayAndFormat?

    enum CodingKeys: String, CodingKey {
        case netPositionId = "NetPositionId"
        case base = "NetPositionBase"
        case view = "NetPositionView"
        case displayAndFormat = "DisplayAndFormat"
    }

    struct Base: Decodable, Sendable {
        var accountId: String?
        var amount: Decimal?
        var assetType: String?
        var uic: Int?

        enum CodingKeys: String, CodingKey {
            case accountId = "AccountId"
            case amount = "Amount"
            case assetType = "AssetType"
            case uic = "Uic"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            accountId = try c.decodeIfPresent(String.self, forKey: .accountId)
            amount = try c.decodeDecimalIfPresent(forKey: .amount)
            assetType = try c.decodeIfPresent(String.self, forKey: .assetType)
            uic = try c.decodeIfPresent(Int.self, forKey: .uic)
        }
    }

    struct View: Decodable, Sendable {
        var averageOpenPrice: Decimal?
        var currentPrice: Decimal?
        /// FX: the signed amount of the pair's base currency; other assets: amount × price. In `ExposureCurrency`.
        var exposure: Decimal?
        var exposureCurrency: String?
        /// `Exposure` in the account currency.
        var exposureInBaseCurrency: Decimal?
        var marketValue: Decimal?
        var profitLossOnTrade: Decimal?
        var status: String?

        enum CodingKeys: String, CodingKey {
            case averageOpenPrice = "AverageOpenPrice"
            case currentPrice = "CurrentPrice"
            case exposure = "Exposure"
            case exposureCurrency = "ExposureCurrency"
            case exposureInBaseCurrency = "ExposureInBaseCurrency"
            case marketValue = "MarketValue"
            case profitLossOnTrade = "ProfitLossOnTrade"
            case status = "Status"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            averageOpenPrice = try c.decodeDecimalIfPresent(forKey: .averageOpenPrice)
            currentPrice = try c.decodeDecimalIfPresent(forKey: .currentPrice)
            exposure = try c.decodeDecimalIfPresent(forKey: .exposure)
            exposureCurrency = try c.decodeIfPresent(String.self, forKey: .exposureCurrency)
            exposureInBaseCurrency = try c.decodeDecimalIfPresent(forKey: .exposureInBaseCurrency)
            marketValue = try c.decodeDecimalIfPresent(forKey: .marketValue)
            profitLossOnTrade = try c.decodeDecimalIfPresent(forKey: .profitLossOnTrade)
            status = try c.decodeIfPresent(String.self, forKey: .status)
        }
    }
}
