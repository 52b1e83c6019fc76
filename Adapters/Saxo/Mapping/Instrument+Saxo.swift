import Foundation
import GatewayModel

/// Saxo's instrument naming ⇄ the canonical one.
///
/// - FX (`FxSpot`, `FxForwards`, `FxSwap`): `EURDKK` → `EUR/DKK`, asset class `fx`.
/// - Exchange-listed: `AAPL:xnas` → symbol `AAPL`, exchange `XNAS` (the suffix is the ISO 10383 MIC, lower case).
/// - The Saxo identity (`Uic` + `AssetType`) travels in `brokerKey` as `["uic": "16", "assetType": "FxSpot"]`.
enum SaxoSymbol {
    static let fxAssetTypes: Set<String> = ["FxSpot", "FxForwards", "FxSwap", "FxNoTouchOption", "FxOneTouchOption"]

    /// `EURDKK` → `EUR/DKK`; `AAPL:xnas` → (`AAPL`, `XNAS`); anything else unchanged.
    static func canonical(_ saxoSymbol: String, assetType: String) -> (symbol: String, exchange: String?) {
        let raw = saxoSymbol.trimmingCharacters(in: .whitespaces)
        if assetType.hasPrefix("Fx") {
            let letters = raw.uppercased()
            if letters.count == 6, letters.allSatisfy({ $0.isASCII && $0.isLetter }) {
                return ("\(letters.prefix(3))/\(letters.suffix(3))", nil)
            }
            return (letters, nil)
        }
        if let colon = raw.lastIndex(of: ":") {
            let base = String(raw[..<colon])
            let suffix = String(raw[raw.index(after: colon)...])
            if !base.isEmpty, (2...6).contains(suffix.count), suffix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                return (base.uppercased(), suffix.uppercased())
            }
        }
        return (raw.uppercased(), nil)
    }

    /// The symbol from a net position id (`GBPCAD__FxSpot` → `GBPCAD`), for payloads without `DisplayAndFormat`.
    static func fromNetPositionId(_ id: String) -> String? {
        guard let range = id.range(of: "__") else { return nil }
        let symbol = String(id[..<range.lowerBound])
        return symbol.isEmpty ? nil : symbol
    }

    /// For a canonical FX pair without a quote currency elsewhere: `EUR/DKK` → `DKK`.
    static func quoteCurrency(of symbol: String) -> String? {
        let parts = symbol.split(separator: "/")
        return parts.count == 2 && parts[1].count == 3 ? String(parts[1]) : nil
    }

    /// The keyword Saxo's instrument search takes for a canonical symbol (`EUR/USD` → `EURUSD`, `AAPL` → `AAPL`).
    static func keyword(for reference: InstrumentReference) -> String {
        reference.symbol.replacingOccurrences(of: "/", with: "").uppercased()
    }

    /// Whether a search hit is the instrument a canonical reference names.
    static func matches(_ hit: SaxoInstrument, _ reference: InstrumentReference) -> Bool {
        canonical(hit.symbol, assetType: hit.assetType).symbol == reference.symbol.uppercased()
    }
}

extension AssetClass {
    /// Saxo asset types are descriptive here: an unknown one becomes `other` (the `brokerKey` keeps the original).
    // "AssetType": "FxSpot"
    init(saxoAssetType raw: String) {
        switch raw {
        case "FxSpot", "FxForwards", "FxSwap": self = .fx
        case "Stock": self = .equity
        case "Etf", "Etc", "Etn": self = .etf
        case "Fund", "MutualFund": self = .fund
        case "Bond": self = .bond
        case "StockIndex": self = .index
        case "ContractFutures", "Futures": self = .future
        case "CfdOnStock", "CfdOnIndex", "CfdOnFutures", "CfdOnEtf", "CfdOnEtc", "CfdOnEtn", "CfdOnFund", "CfdOnRights",
            "CfdOnCompanyWarrant", "CfdIndexOption", "CfdOnPhysicalBond":
            self = .cfd
        default:
            self = raw.hasSuffix("Option") ? .option : .other
        }
    }

    /// The Saxo asset types searched for a canonical class; empty for classes the adapter cannot trade.
    var saxoAssetTypes: [String] {
        switch self {
        case .fx: ["FxSpot"]
        case .equity: ["Stock"]
        case .etf: ["Etf", "Etc", "Etn"]
        case .fund: ["Fund", "MutualFund"]
        case .bond: ["Bond"]
        case .cfd: ["CfdOnStock", "CfdOnIndex", "CfdOnEtf", "CfdOnFutures"]
        case .future: ["ContractFutures"]
        case .index: ["StockIndex"]
        case .option, .crypto, .other: []
        }
    }
}

extension Instrument {
    /*
     {"AssetType": "FxSpot", "CurrencyCode": "AUD", "Description": "British Pound/Australian Dollar",
      "ExchangeId": "SBFX", "GroupId": 28867, "Identifier": 22, "SummaryType": "Instrument", "Symbol": "GBPAUD",
      "TradableAs": ["FxSpot", "FxForwards", ...]}
     */
    /// A `ref/v1/instruments` hit. The exchange is the MIC from the symbol (`:xnas`); Saxo's own `ExchangeId`
    /// (`SBFX` for its FX desk) is not a MIC and is left out.
    init(saxo hit: SaxoInstrument) {
        self.init(saxoSymbol: hit.symbol, assetType: hit.assetType, uic: hit.identifier, name: hit.description, currency: hit.currencyCode)
    }

    /// An instrument from Saxo's naming: `DisplayAndFormat.Symbol` (or `ref/v1/instruments` `Symbol`), `AssetType`, `Uic`.
    init(saxoSymbol: String, assetType: String, uic: Int?, name: String?, currency: String?) {
        let (symbol, exchange) = SaxoSymbol.canonical(saxoSymbol, assetType: assetType)
        var key = ["assetType": assetType]
        if let uic { key["uic"] = String(uic) }
        self.init(
            symbol: symbol,
            assetClass: AssetClass(saxoAssetType: assetType),
            exchange: exchange,
            name: name,
            currency: currency,
            brokerKey: key
        )
    }

    /// The Saxo identity from `brokerKey`, when the instrument came from this adapter.
    var saxoIdentity: (uic: Int, assetType: String)? {
        guard let key = brokerKey, let uic = key["uic"].flatMap({ Int($0) }), let assetType = key["assetType"] else {
            return nil
        }
        return (uic, assetType)
    }
}
