import Foundation
import SandboxKit

/// Reference data and prices: `ref/v1/instruments`, `trade/v1/infoprices`, price subscription snapshots.
extension SaxoWire {
    static let supportedOrderTypes = strings(["Market", "Limit", "Stop", "StopIfTraded", "StopLimit", "TrailingStop", "TrailingStopIfTraded"])

    /// An element of `GET ref/v1/instruments`: `Identifier` is the Uic.
    static func instrumentSummary(_ instrument: SaxoInstrument) -> JSON {
        object([
            ("AssetType", .string(instrument.assetType)),
            ("CurrencyCode", .string(instrument.market.currency)),
            ("Description", .string(instrument.listing.description)),
            ("ExchangeId", .string(instrument.listing.exchangeId)),
            ("GroupId", .int(instrument.listing.groupId)),
            ("Identifier", .int(instrument.uic)),
            ("IssuerCountry", instrument.isFX ? nil : "US"),
            ("PrimaryListing", instrument.isFX ? nil : .int(instrument.uic)),
            ("SummaryType", "Instrument"),
            ("Symbol", .string(instrument.listing.symbol)),
            ("TradableAs", strings([instrument.assetType])),
        ])
    }

    /// `GET ref/v1/instruments/details/{Uic}/{AssetType}`.
    static func instrumentDetails(_ instrument: SaxoInstrument, env: SaxoTradingEnvironment) -> JSON {
        let market = instrument.market
        let fx = instrument.isFX
        let amountDecimals = fx ? 0 : DecimalText.fractionDigits(market.lotSize)
        return object([
            ("AmountDecimals", .int(amountDecimals)),
            ("AssetType", .string(instrument.assetType)),
            ("CurrencyCode", .string(market.currency)),
            ("DefaultAmount", fx ? 100_000 : 1),
            ("Description", .string(instrument.listing.description)),
            (
                "Exchange",
                object([
                    ("CountryCode", fx ? "DK" : "US"),
                    ("ExchangeId", .string(instrument.listing.exchangeId)),
                    ("Name", .string(fx ? "Inter Bank" : market.exchange)),
                ])
            ),
            (
                "Format",
                object([
                    ("Decimals", .int(instrument.displayDecimals)),
                    ("Format", .string(instrument.format)),
                    ("OrderDecimals", .int(instrument.displayDecimals)),
                ])
            ),
            ("FxSpotDate", fx ? date(env.valueDate(for: instrument)) : nil),
            ("GroupId", .int(instrument.listing.groupId)),
            ("IncrementSize", fx ? 1000 : 1),
            ("IsTradable", true),
            ("MinimumTradeSize", fx ? 1000 : 1),
            ("StandardAmounts", .array((fx ? [10_000, 50_000, 100_000, 250_000, 500_000, 1_000_000] : [1, 5, 10, 25, 50, 100]).map(JSON.int))),
            ("SupportedOrderTypes", supportedOrderTypes),
            ("Symbol", .string(instrument.listing.symbol)),
            ("TickSize", number(market.tickSize)),
            ("TickSizeLimitOrder", number(market.tickSize)),
            ("TickSizeStopOrder", number(market.tickSize)),
            ("TradableAs", strings([instrument.assetType])),
            ("Uic", .int(instrument.uic)),
        ])
    }

    /// A quote: `{"Amount":100000,"Ask":1.35827,"Bid":1.35754,"DelayedByMinutes":0,"ErrorCode":"None","Mid":1.357905,...}`.
    static func quote(_ quote: MarketQuote, instrument: SaxoInstrument, amount: Decimal?) -> JSON {
        object([
            ("Amount", number(amount ?? (instrument.isFX ? 100_000 : 1))),
            ("Ask", price(quote.ask, instrument)),
            ("Bid", price(quote.bid, instrument)),
            ("DelayedByMinutes", 0),
            ("ErrorCode", "None"),
            ("Mid", number(quote.mid, scale: instrument.priceDecimals + 1)),
            ("PriceSource", instrument.isFX ? "SBFX" : .string(instrument.listing.exchangeId)),
            ("PriceTypeAsk", "Tradable"),
            ("PriceTypeBid", "Tradable"),
        ])
    }

    /// The body of `GET trade/v1/infoprices` and of a price subscription's `Snapshot`, with the requested field groups.
    static func priceSnapshot(
        _ instrument: SaxoInstrument,
        quote marketQuote: MarketQuote,
        amount: Decimal?,
        fieldGroups: Set<String>,
        history: [(String, Decimal)],
        env: SaxoTradingEnvironment
    ) -> JSON {
        var members: [(String, JSON?)] = [("AssetType", .string(instrument.assetType))]
        if fieldGroups.contains("DisplayAndFormat") { members.append(("DisplayAndFormat", displayAndFormat(instrument, orderDecimals: true))) }
        if fieldGroups.contains("HistoricalChanges") {
            members.append(("HistoricalChanges", object(history.map { ($0.0, number($0.1, scale: 2)) })))
        }
        if fieldGroups.contains("InstrumentPriceDetails") {
            members.append(
                (
                    "InstrumentPriceDetails",
                    object([
                        ("IsMarketOpen", true),
                        ("ShortTradeDisabled", .bool(!instrument.isFX)),
                        ("ValueDate", .string(Timestamp.formatDate(env.valueDate(for: instrument)))),
                    ])
                )
            )
        }
        members.append(("LastUpdated", time(marketQuote.timestamp)))
        if fieldGroups.contains("MarketDepth") {
            members.append(
                (
                    "MarketDepth",
                    object([
                        ("Ask", .array([price(marketQuote.ask, instrument)])),
                        ("AskOrders", .array([1])),
                        ("AskSize", .array([number(marketQuote.askSize)])),
                        ("Bid", .array([price(marketQuote.bid, instrument)])),
                        ("BidOrders", .array([1])),
                        ("BidSize", .array([number(marketQuote.bidSize)])),
                        ("NoOfBids", 1),
                        ("NoOfOffers", 1),
                        ("UsingOrders", false),
                    ])
                )
            )
        }
        if fieldGroups.contains("PriceInfo") {
            members.append(
                (
                    "PriceInfo",
                    object([
                        ("High", price(marketQuote.high, instrument)),
                        ("Low", price(marketQuote.low, instrument)),
                        ("NetChange", price(marketQuote.change, instrument)),
                        ("PercentChange", number(marketQuote.changeFraction * 100, scale: 2)),
                    ])
                )
            )
        }
        if fieldGroups.contains("PriceInfoDetails") {
            members.append(
                (
                    "PriceInfoDetails",
                    object([
                        ("AskSize", number(marketQuote.askSize)),
                        ("BidSize", number(marketQuote.bidSize)),
                        ("LastClose", price(marketQuote.previousClose, instrument)),
                        ("LastTraded", price(marketQuote.last, instrument)),
                        ("LastTradedSize", number(marketQuote.lastSize)),
                        ("Open", price(marketQuote.open, instrument)),
                        ("Volume", number(marketQuote.lastSize * Decimal(max(1, marketQuote.tradeID % 997)))),
                    ])
                )
            )
        }
        members.append(("PriceSource", instrument.isFX ? "SBFX" : .string(instrument.listing.exchangeId)))
        if fieldGroups.contains("Quote") { members.append(("Quote", quote(marketQuote, instrument: instrument, amount: amount))) }
        members.append(("Uic", .int(instrument.uic)))
        return object(members)
    }
}
