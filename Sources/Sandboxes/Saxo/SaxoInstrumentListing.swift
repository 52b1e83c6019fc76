import Foundation
import SandboxKit

/// How one Saxo instrument (Uic + AssetType) maps onto the shared market.
///
/// Uics 16 (EURDKK), 21 (EURUSD), 23 (GBPCAD), 31 (GBPUSD) and 211 (AAPL:xnas) appear in public Saxo samples;
/// the others are plausible stand-ins: the sandbox is self-consistent, not a copy of Saxo's instrument database.
public struct SaxoInstrumentListing: Sendable, Hashable {
    /// Saxo's universal instrument code (`Uic`), as `ref/v1/instruments` answers it in `Identifier`.
    public var uic: Int
    /// `FxSpot` or `Stock`.
    public var assetType: String
    /// The shared market's canonical symbol (`EUR/DKK`, `AAPL`).
    public var marketSymbol: String
    /// Saxo's symbol: `EURDKK`, `AAPL:xnas`.
    public var symbol: String
    /// Saxo's description: `Euro/Danish Krone`, `Apple Inc.`.
    public var description: String
    /// `SBFX` for FX, the MIC-like code for stocks (`NASDAQ`).
    public var exchangeId: String
    /// Saxo's instrument group (`GroupId` in reference data); 0 where none is modelled.
    public var groupId: Int

    /// Describes a listing; `groupId` is 0 unless given.
    public init(
        uic: Int,
        assetType: String,
        marketSymbol: String,
        symbol: String,
        description: String,
        exchangeId: String,
        groupId: Int = 0
    ) {
        self.uic = uic
        self.assetType = assetType
        self.marketSymbol = marketSymbol
        self.symbol = symbol
        self.description = description
        self.exchangeId = exchangeId
        self.groupId = groupId
    }

    /// The listing's (Uic, AssetType) identity.
    public var key: SaxoInstrumentKey { SaxoInstrumentKey(uic: uic, assetType: assetType) }

    /// The listings the simulator starts with: seven FX spot pairs and three US stocks of the shared market.
    public static let standard: [SaxoInstrumentListing] = [
        fx(16, "EUR/DKK", "Euro/Danish Krone", group: 28_858),
        fx(17, "EUR/GBP", "Euro/British Pound", group: 28_862),
        fx(18, "EUR/JPY", "Euro/Japanese Yen", group: 28_866),
        fx(21, "EUR/USD", "Euro/US Dollar", group: 28_870),
        fx(23, "GBP/CAD", "British Pound/Canadian Dollar", group: 28_871),
        fx(31, "GBP/USD", "British Pound/US Dollar", group: 28_880),
        fx(42, "USD/JPY", "US Dollar/Japanese Yen", group: 28_902),
        stock(211, "AAPL", "Apple Inc."),
        stock(261, "MSFT", "Microsoft Corp."),
        stock(47_556, "TSLA", "Tesla Inc."),
        stock(67_206, "NVDA", "NVIDIA Corp."),
        stock(256, "AMZN", "Amazon.com Inc."),
    ]

    private static func fx(_ uic: Int, _ pair: String, _ description: String, group: Int) -> SaxoInstrumentListing {
        SaxoInstrumentListing(
            uic: uic,
            assetType: "FxSpot",
            marketSymbol: pair,
            symbol: pair.replacingOccurrences(of: "/", with: ""),
            description: description,
            exchangeId: "SBFX",
            groupId: group
        )
    }

    private static func stock(_ uic: Int, _ ticker: String, _ description: String) -> SaxoInstrumentListing {
        SaxoInstrumentListing(
            uic: uic,
            assetType: "Stock",
            marketSymbol: ticker,
            symbol: ticker + ":xnas",
            description: description,
            exchangeId: "NASDAQ",
            groupId: 0
        )
    }
}

/// One listed instrument with its market description.
struct SaxoInstrument: Sendable {
    let listing: SaxoInstrumentListing
    let market: MarketInstrument

    var uic: Int { listing.uic }
    var assetType: String { listing.assetType }
    var isFX: Bool { listing.assetType == "FxSpot" }
    var netPositionID: String { "\(listing.symbol)__\(listing.assetType)" }
    /// The currency exposure is counted in: the base currency of a pair, the quote currency of a stock.
    var exposureCurrency: String { isFX ? (market.baseCurrency ?? market.currency) : market.currency }
    /// Digits Saxo shows; FX pairs add a "decimal pip" beyond these (`AllowDecimalPips`).
    var displayDecimals: Int { isFX ? max(0, DecimalText.fractionDigits(market.tickSize) - 1) : DecimalText.fractionDigits(market.tickSize) }
    var format: String { isFX ? "AllowDecimalPips" : "Normal" }
    /// Digits prices are written with.
    var priceDecimals: Int { DecimalText.fractionDigits(market.tickSize) }
}

/// The part of the shared market that Saxo lists, by Uic.
struct SaxoInstruments: Sendable {
    let all: [SaxoInstrument]
    private let byKey: [SaxoInstrumentKey: Int]

    init(listings: [SaxoInstrumentListing], market: MarketEngine) {
        var all: [SaxoInstrument] = []
        var byKey: [SaxoInstrumentKey: Int] = [:]
        for listing in listings {
            guard byKey[listing.key] == nil, let instrument = market.instrument(symbol: listing.marketSymbol) else { continue }
            byKey[listing.key] = all.count
            all.append(SaxoInstrument(listing: listing, market: instrument))
        }
        self.all = all
        self.byKey = byKey
    }

    func find(uic: Int, assetType: String) -> SaxoInstrument? {
        byKey[SaxoInstrumentKey(uic: uic, assetType: assetType)].map { all[$0] }
    }

    func find(netPositionID: String) -> SaxoInstrument? {
        all.first { $0.netPositionID.caseInsensitiveCompare(netPositionID) == .orderedSame }
    }

    /// Any listing with this Uic (for endpoints that take a Uic without an AssetType).
    func find(uic: Int) -> SaxoInstrument? {
        all.first { $0.uic == uic }
    }
}
