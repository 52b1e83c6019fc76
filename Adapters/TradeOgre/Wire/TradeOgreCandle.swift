import Foundation
import GatewayModel

/// One row of `GET /chart/{interval}/{market}`: `[time, open, high, low, close, volume]`, time in unix seconds,
/// the rest numbers (strings are accepted too, strictly).
struct TradeOgreCandle: Decodable, Sendable {
    var time: Date
    var open: Decimal
    var high: Decimal
    var low: Decimal
    var close: Decimal
    var volume: Decimal?

    init(from decoder: any Decoder) throws {
        let row = try decoder.singleValueContainer().decode([FlexibleDecimal].self).map(\.value)
        guard row.count >= 5 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a candle needs time, open, high, low and close")
            )
        }
        time = Date(timeIntervalSince1970: NSDecimalNumber(decimal: row[0]).doubleValue)
        open = row[1]
        high = row[2]
        low = row[3]
        close = row[4]
        volume = row.count > 5 ? row[5] : nil
    }
}

/// A decimal written as a JSON number or a string, parsed strictly either way.
struct FlexibleDecimal: Decodable, Sendable {
    var value: Decimal

    init(from decoder: any Decoder) throws {
        // DecimalText's rules: a string read strictly, a number refused where the JSON reader may have rounded it.
        value = try decoder.singleValueContainer().decodeDecimal()
    }
}
