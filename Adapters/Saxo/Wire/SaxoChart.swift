import Foundation
import GatewayModel

/// `GET chart/v3/charts`: `{ChartInfo, Data: [sample], DataVersion, DisplayAndFormat}`. FX samples carry bid and ask
/// sides (`OpenBid`, `OpenAsk`, …); exchange-traded samples carry `Open`, `High`, `Low`, `Close`, `Volume`.
struct SaxoChart: Decodable, Sendable {
    var data: [Sample]

    enum CodingKeys: String, CodingKey {
        case data = "Data"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        data = try c.decodeIfPresent([Sample].self, forKey: .data) ?? []
    }

    struct Sample: Decodable, Sendable {
        var time: String
        var open, high, low, close, volume: Decimal?
        var openBid, openAsk, highBid, highAsk, lowBid, lowAsk, closeBid, closeAsk: Decimal?

        enum CodingKeys: String, CodingKey {
            case time = "Time"
            case open = "Open"
            case high = "High"
            case low = "Low"
            case close = "Close"
            case volume = "Volume"
            case openBid = "OpenBid"
            case openAsk = "OpenAsk"
            case highBid = "HighBid"
            case highAsk = "HighAsk"
            case lowBid = "LowBid"
            case lowAsk = "LowAsk"
            case closeBid = "CloseBid"
            case closeAsk = "CloseAsk"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            time = try c.decode(String.self, forKey: .time)
            open = try c.decodeDecimalIfPresent(forKey: .open)
            high = try c.decodeDecimalIfPresent(forKey: .high)
            low = try c.decodeDecimalIfPresent(forKey: .low)
            close = try c.decodeDecimalIfPresent(forKey: .close)
            volume = try c.decodeDecimalIfPresent(forKey: .volume)
            openBid = try c.decodeDecimalIfPresent(forKey: .openBid)
            openAsk = try c.decodeDecimalIfPresent(forKey: .openAsk)
            highBid = try c.decodeDecimalIfPresent(forKey: .highBid)
            highAsk = try c.decodeDecimalIfPresent(forKey: .highAsk)
            lowBid = try c.decodeDecimalIfPresent(forKey: .lowBid)
            lowAsk = try c.decodeDecimalIfPresent(forKey: .lowAsk)
            closeBid = try c.decodeDecimalIfPresent(forKey: .closeBid)
            closeAsk = try c.decodeDecimalIfPresent(forKey: .closeAsk)
        }
    }
}
