/// One element of `GET ref/v1/instruments`. `Identifier` is the Uic (for `SummaryType` `Instrument`).
struct SaxoInstrument: Decodable, Sendable {
    var identifier: Int
    var summaryType: String?
    var assetType: String
    var symbol: String
    var description: String?
    var currencyCode: String?
    var exchangeId: String?
    var primaryListing: Int?

    enum CodingKeys: String, CodingKey {
        case identifier = "Identifier"
        case summaryType = "SummaryType"
        case assetType = "AssetType"
        case symbol = "Symbol"
        case description = "Description"
        case currencyCode = "CurrencyCode"
        case exchangeId = "ExchangeId"
        case primaryListing = "PrimaryListing"
    }
}
