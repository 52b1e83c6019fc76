import Foundation
import GatewayModel

/// One element of `GET trade/v1/infoprices/list?FieldGroups=DisplayAndFormat,PriceInfo,PriceInfoDetails,Quote`.
struct SaxoInfoPrice: Decodable, Sendable {
    var uic: Int?
    var assetType: String?
    var lastUpdated: String?
    var displayAndFormat: SaxoDisplayAndFormat?
    var quote: QuoteGroup?
    var priceInfo: PriceInfo?
    var priceInfoDetails: PriceInfoDetails?

    enum CodingKeys: String, CodingKey {
        case uic = "Uic"
        case assetType = "AssetType"
        case lastUpdated = "LastUpdated"
        case displayAndFormat = "DisplayAndFormat"
        case quote = "Quote"
        case priceInfo = "PriceInfo"
        case priceInfoDetails = "PriceInfoDetails"
    }

    struct QuoteGroup: Decodable, Sendable {
        var bid: Decimal?
        var ask: Decimal?
        var mid: Decimal?
        var errorCode: String?

        enum CodingKeys: String, CodingKey {
            case bid = "Bid"
            case ask = "Ask"
            case mid = "Mid"
            case errorCode = "ErrorCode"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            bid = try c.decodeDecimalIfPresent(forKey: .bid)
            ask = try c.decodeDecimalIfPresent(forKey: .ask)
            mid = try c.decodeDecimalIfPresent(forKey: .mid)
            errorCode = try c.decodeIfPresent(String.self, forKey: .errorCode)
        }
    }

    struct PriceInfo: Decodable, Sendable {
        var high: Decimal?
        var low: Decimal?
        var netChange: Decimal?
        var percentChange: Decimal?

        enum CodingKeys: String, CodingKey {
            case high = "High"
            case low = "Low"
            case netChange = "NetChange"
            case percentChange = "PercentChange"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            high = try c.decodeDecimalIfPresent(forKey: .high)
            low = try c.decodeDecimalIfPresent(forKey: .low)
            netChange = try c.decodeDecimalIfPresent(forKey: .netChange)
            percentChange = try c.decodeDecimalIfPresent(forKey: .percentChange)
        }
    }

    struct PriceInfoDetails: Decodable, Sendable {
        var lastClose: Decimal?
        var lastTraded: Decimal?
        var open: Decimal?
        var volume: Decimal?

        enum CodingKeys: String, CodingKey {
            case lastClose = "LastClose"
            case lastTraded = "LastTraded"
            case open = "Open"
            case volume = "Volume"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            lastClose = try c.decodeDecimalIfPresent(forKey: .lastClose)
            lastTraded = try c.decodeDecimalIfPresent(forKey: .lastTraded)
            open = try c.decodeDecimalIfPresent(forKey: .open)
            volume = try c.decodeDecimalIfPresent(forKey: .volume)
        }
    }
}
