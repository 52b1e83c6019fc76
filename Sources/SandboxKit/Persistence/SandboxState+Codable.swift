import Foundation

extension CodingUserInfoKey {
    /// The ``MarketEngine`` a saved sandbox state is read against: saved orders and positions name their instrument
    /// by symbol, and it is looked up again in the market (see ``MarketInstrument``'s `Codable` conformance).
    public static let sandboxMarket = CodingUserInfoKey(rawValue: "sandboxMarket")!
}

/// Saved as its canonical symbol (`"AAPL"`) and looked up again in the market when read (the decoder's
/// ``CodingUserInfoKey/sandboxMarket``), so a saved order follows the instrument as this build describes it
/// (tick size, lot size) instead of freezing an old description.
extension MarketInstrument: Codable {
    /// Reads the symbol and looks it up in the decoder's market (``CodingUserInfoKey/sandboxMarket``); a missing market or
    /// a symbol it does not list is a decoding error.
    public init(from decoder: any Decoder) throws {
        let symbol = try decoder.singleValueContainer().decode(String.self)
        guard let market = decoder.userInfo[.sandboxMarket] as? MarketEngine else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no market to read instruments against"))
        }
        guard let instrument = market.instrument(symbol: symbol) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "the instrument \(symbol) is not in this sandbox's market"
                )
            )
        }
        self = instrument
    }

    /// Writes the canonical symbol only.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(symbol)
    }
}

/// Saved as its JSON text, so numbers keep their literal digits and members their order.
extension JSON: Codable {
    /// Reads the JSON text ``encode(to:)`` wrote; text that does not parse is a `dataCorrupted` decoding error.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try JSON(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not JSON: \(error)"))
        }
    }

    /// Writes the value as one string of compact JSON text (``serialized``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(serialized)
    }
}

extension JSON.Member: Codable {
    private enum CodingKeys: String, CodingKey {
        case key, value
    }

    /// Reads `{"key": …, "value": …}`, the value as ``JSON`` text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(key: try container.decode(String.self, forKey: .key), value: try container.decode(JSON.self, forKey: .value))
    }

    /// Writes `{"key": …, "value": …}`, the value as ``JSON`` text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(value, forKey: .value)
    }
}
