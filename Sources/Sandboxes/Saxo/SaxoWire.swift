import Foundation
import SandboxKit

/// Saxo's JSON shapes for the portfolio and order endpoints: PascalCase members, amounts and prices as JSON numbers,
/// times as `2019-03-07T14:54:17.423333Z`, and absent values left out rather than sent as `null`.
enum SaxoWire {
    // MARK: Building blocks

    /// An object without the members whose value is nil.
    static func object(_ members: [(String, JSON?)]) -> JSON {
        .object(members.compactMap { key, value in value.map { JSON.Member(key: key, value: $0) } })
    }

    static func number(_ value: Decimal, scale: Int) -> JSON {
        .number(DecimalText.format(DecimalText.round(value, scale: scale)))
    }

    static func number(_ value: Decimal) -> JSON { .number(DecimalText.format(value)) }

    /// Money in the account currency: two decimals.
    static func money(_ value: Decimal) -> JSON { number(value, scale: 2) }

    static func price(_ value: Decimal, _ instrument: SaxoInstrument) -> JSON { number(value, scale: instrument.priceDecimals) }

    static func time(_ date: Date) -> JSON { .string(Timestamp.format(date, fractionDigits: 6)) }

    /// `2019-03-06T00:00:00.000000Z`.
    static func date(_ date: Date) -> JSON { .string(Timestamp.formatDate(date) + "T00:00:00.000000Z") }

    static func strings(_ values: [String]) -> JSON { .array(values.map(JSON.string)) }

    static let legalAssetTypes = strings(["FxSpot", "Stock"])

    // MARK: Client, account, user

    /// `GET port/v1/clients/me`.
    static func client(_ client: SaxoSandboxClient) -> JSON {
        object([
            ("AccountValueProtectionLimit", 0),
            ("ClientId", .string(client.clientId)),
            ("ClientKey", .string(client.clientKey)),
            ("CurrencyDecimals", 2),
            ("DefaultAccountId", .string(client.accountId)),
            ("DefaultAccountKey", .string(client.accountKey)),
            ("DefaultCurrency", .string(client.currency)),
            ("IsMarginTradingAllowed", true),
            ("IsVariationMarginEligible", false),
            ("LegalAssetTypes", legalAssetTypes),
            ("LegalAssetTypesAreIndicative", false),
            ("Name", .string(client.name)),
            ("PositionNettingMode", "EndOfDay"),
            ("PositionNettingProfile", "FifoRealTime"),
            ("SupportsAccountValueProtectionLimit", true),
        ])
    }

    /// An element of `GET port/v1/accounts/me`.
    static func account(_ client: SaxoSandboxClient) -> JSON {
        object([
            ("AccountGroupKey", .string(client.accountKey)),
            ("AccountId", .string(client.accountId)),
            ("AccountKey", .string(client.accountKey)),
            ("AccountType", "Normal"),
            ("Active", true),
            ("CanUseCashPositionsAsMarginCollateral", true),
            ("ClientId", .string(client.clientId)),
            ("ClientKey", .string(client.clientKey)),
            ("CreationDate", time(client.createdAt)),
            ("Currency", .string(client.currency)),
            ("CurrencyDecimals", 2),
            ("DirectMarketAccess", false),
            ("IndividualMargining", false),
            ("IsCurrencyConversionAtSettlementTime", true),
            ("IsMarginTradingAllowed", true),
            ("IsShareable", false),
            ("IsTrialAccount", true),
            ("LegalAssetTypes", legalAssetTypes),
            ("Sharing", strings(["NoSharing"])),
            ("SupportsAccountValueProtectionLimit", false),
            ("UseCashPositionsAsMarginCollateral", true),
        ])
    }

    /// `GET port/v1/users/me`.
    static func user(_ client: SaxoSandboxClient, lastLogin: Date) -> JSON {
        object([
            ("ClientKey", .string(client.clientKey)),
            ("Culture", "en-GB"),
            ("Language", "en"),
            ("LastLoginStatus", "Successful"),
            ("LastLoginTime", time(lastLogin)),
            ("LegalAssetTypes", legalAssetTypes),
            ("MarketDataViaOpenApiTermsAccepted", true),
            ("Name", .string(client.name)),
            ("TimeZoneId", 26),
            ("UserId", .string(client.userId)),
            ("UserKey", .string(client.clientKey)),
        ])
    }

    // MARK: Balances

    /// `GET port/v1/balances` (one object, not a list). Saxo reports margin used as a negative number.
    static func balance(_ valuation: SaxoAccountValuation, currency: String, marginRate: Decimal, fieldGroups: Set<String>) -> JSON {
        let marginUsed = -valuation.marginUsed
        let exposureCoverage = valuation.marginNetExposure > 0 ? valuation.totalValue / valuation.marginNetExposure * 100 : 0
        var members: [(String, JSON?)] = [
            ("CalculationReliability", .string(valuation.reliable ? "Ok" : "ApproximatedPrice")),
            ("CashBalance", money(valuation.cashBalance)),
            ("CashBlocked", 0),
            ("ChangesScheduled", false),
            ("ClosedPositionsCount", 0),
            ("CollateralCreditValue", object([("Line", money(valuation.marginAvailable)), ("UtilzationPct", 0)])),
            ("CostToClosePositions", 0),
            ("Currency", .string(currency)),
            ("CurrencyDecimals", 2),
            (
                "InitialMargin",
                object([
                    ("MarginAvailable", money(valuation.marginAvailable)),
                    ("MarginUsedByCurrentPositions", money(marginUsed)),
                    ("MarginUtilizationPct", number(valuation.marginUtilizationPct, scale: 2)),
                    ("NetEquityForMargin", money(valuation.totalValue)),
                ])
            ),
            ("IsPortfolioMarginModelSimple", true),
            ("MarginAvailableForTrading", money(valuation.marginAvailable)),
            ("MarginCollateralNotAvailable", 0),
            ("MarginExposureCoveragePct", number(exposureCoverage, scale: 2)),
            ("MarginNetExposure", money(valuation.marginNetExposure)),
            ("MarginUsedByCurrentPositions", money(marginUsed)),
            ("MarginUtilizationPct", number(valuation.marginUtilizationPct, scale: 2)),
            ("NetEquityForMargin", money(valuation.totalValue)),
            ("NetPositionsCount", .int(valuation.netPositionsCount)),
            ("NonMarginPositionsValue", money(valuation.nonMarginPositionsValue)),
            ("OpenPositionsCount", .int(valuation.openPositionsCount)),
            ("OptionPremiumsMarketValue", 0),
            ("OrdersCount", .int(valuation.ordersCount)),
            ("OtherCollateral", 0),
            ("TotalValue", money(valuation.totalValue)),
            ("TransactionsNotBooked", 0),
            ("UnrealizedMarginClosedProfitLoss", 0),
            ("UnrealizedMarginOpenProfitLoss", money(valuation.unrealizedMarginProfitLoss)),
            ("UnrealizedMarginProfitLoss", money(valuation.unrealizedMarginProfitLoss)),
            ("UnrealizedPositionsValue", money(valuation.unrealizedMarginProfitLoss + valuation.nonMarginPositionsValue)),
        ]
        if fieldGroups.contains("MarginOverview") {
            let contributors: [JSON] = valuation.netPositions.filter(\.instrument.isFX).map { net in
                object([
                    ("AssetTypes", strings([net.instrument.assetType])),
                    ("InstrumentDescription", .string(net.instrument.listing.description)),
                    ("InstrumentSpecifier", .string(net.instrument.listing.symbol)),
                    ("Margin", money(abs(net.exposureInBase) * marginRate)),
                    ("Uic", .int(net.instrument.uic)),
                ])
            }
            members.append(
                (
                    "MarginOverview",
                    object([
                        (
                            "Groups",
                            .array(
                                contributors.isEmpty
                                    ? []
                                    : [
                                        object([
                                            ("Contributors", .array(contributors)), ("GroupType", "FX"), ("TotalMargin", money(valuation.marginUsed)),
                                        ])
                                    ]
                            )
                        )
                    ])
                )
            )
        }
        return object(members)
    }

    // MARK: Positions

    static func displayAndFormat(_ instrument: SaxoInstrument, orderDecimals: Bool = false) -> JSON {
        object([
            ("Currency", .string(instrument.market.currency)),
            ("Decimals", .int(instrument.displayDecimals)),
            ("Description", .string(instrument.listing.description)),
            ("Format", .string(instrument.format)),
            ("OrderDecimals", orderDecimals ? .int(instrument.displayDecimals) : nil),
            ("Symbol", .string(instrument.listing.symbol)),
        ])
    }

    static func exchange(_ instrument: SaxoInstrument) -> JSON {
        object([
            ("Description", .string(instrument.isFX ? "Inter Bank" : instrument.market.exchange)),
            ("ExchangeId", .string(instrument.listing.exchangeId)),
            ("IsOpen", true),
        ])
    }

    /// An element of `GET port/v1/netpositions`, e.g.
    /// `{"NetPositionId":"EURDKK__FxSpot","NetPositionBase":{...},"NetPositionView":{...},"DisplayAndFormat":{...}}`.
    static func netPosition(_ net: SaxoNetPositionValuation, client: SaxoSandboxClient, fieldGroups: Set<String>) -> JSON {
        let instrument = net.instrument
        let single = net.positions.count == 1 ? net.positions.first?.position : nil
        var members: [(String, JSON?)] = []
        if fieldGroups.contains("DisplayAndFormat") { members.append(("DisplayAndFormat", displayAndFormat(instrument))) }
        if fieldGroups.contains("ExchangeInfo") { members.append(("Exchange", exchange(instrument))) }
        if fieldGroups.contains("NetPositionBase") {
            members.append(
                (
                    "NetPositionBase",
                    object([
                        ("AccountId", .string(client.accountId)),
                        ("Amount", number(net.amount)),
                        ("AssetType", .string(instrument.assetType)),
                        ("CanBeClosed", .bool(!net.amount.isZero)),
                        ("ClientId", .string(client.clientId)),
                        ("IsMarketOpen", true),
                        ("NumberOfRelatedOrders", 0),
                        ("OpeningDirection", .string(net.amount >= 0 ? "Buy" : "Sell")),
                        ("PositionsAccount", .string(client.accountId)),
                        ("SinglePositionId", single.map { .string($0.id) }),
                        ("SinglePositionStatus", single.map { _ in "Open" }),
                        ("Uic", .int(instrument.uic)),
                        ("ValueDate", net.positions.first.map { date($0.position.valueDate) }),
                    ])
                )
            )
        }
        members.append(("NetPositionId", .string(instrument.netPositionID)))
        if fieldGroups.contains("NetPositionView") {
            members.append(
                (
                    "NetPositionView",
                    object([
                        ("AverageOpenPrice", number(net.averageOpenPrice, scale: instrument.priceDecimals + 1)),
                        ("CalculationReliability", "Ok"),
                        ("CurrentPrice", price(net.currentPrice, instrument)),
                        ("CurrentPriceDelayMinutes", 0),
                        ("CurrentPriceType", .string(net.currentPriceType)),
                        ("Exposure", money(net.exposure)),
                        ("ExposureCurrency", .string(instrument.exposureCurrency)),
                        ("ExposureInBaseCurrency", money(net.exposureInBase)),
                        ("InstrumentPriceDayPercentChange", number(net.dayPercentChange, scale: 2)),
                        ("MarketValue", instrument.isFX ? nil : money(net.exposure)),
                        ("PositionCount", .int(net.positions.count)),
                        ("PositionsNotClosedCount", .int(net.positions.count)),
                        ("ProfitLossOnTrade", money(net.profitLoss)),
                        ("ProfitLossOnTradeInBaseCurrency", money(net.profitLossInBase)),
                        ("Status", "Open"),
                        ("TradeCostsTotal", 0),
                        ("TradeCostsTotalInBaseCurrency", 0),
                    ])
                )
            )
        }
        return object(members)
    }

    /// An element of `GET port/v1/positions`.
    static func position(_ value: SaxoPositionValuation, client: SaxoSandboxClient, fieldGroups: Set<String>) -> JSON {
        let position = value.position
        let instrument = position.instrument
        if fieldGroups.contains("PositionIdOnly") {
            return object([("NetPositionId", .string(instrument.netPositionID)), ("PositionId", .string(position.id))])
        }
        var members: [(String, JSON?)] = []
        if fieldGroups.contains("DisplayAndFormat") { members.append(("DisplayAndFormat", displayAndFormat(instrument))) }
        if fieldGroups.contains("ExchangeInfo") { members.append(("Exchange", exchange(instrument))) }
        members.append(("NetPositionId", .string(instrument.netPositionID)))
        if fieldGroups.contains("PositionBase") {
            members.append(
                (
                    "PositionBase",
                    object([
                        ("AccountId", .string(client.accountId)),
                        ("AccountKey", .string(client.accountKey)),
                        ("Amount", number(position.amount)),
                        ("AssetType", .string(instrument.assetType)),
                        ("CanBeClosed", true),
                        ("ClientId", .string(client.clientId)),
                        ("CloseConversionRateSettled", false),
                        ("CorrelationKey", .string(position.correlationKey)),
                        ("ExecutionTimeOpen", time(position.openedAt)),
                        ("IsMarketOpen", true),
                        ("OpenPrice", price(position.openPrice, instrument)),
                        ("RelatedOpenOrders", .array([])),
                        ("SourceOrderId", .string(position.sourceOrderID)),
                        ("SpotDate", instrument.isFX ? .string(Timestamp.formatDate(position.valueDate)) : nil),
                        ("Status", "Open"),
                        ("Uic", .int(instrument.uic)),
                        ("ValueDate", date(position.valueDate)),
                    ])
                )
            )
        }
        members.append(("PositionId", .string(position.id)))
        if fieldGroups.contains("PositionView") {
            members.append(
                (
                    "PositionView",
                    object([
                        ("CalculationReliability", "Ok"),
                        ("ConversionRateCurrent", number(value.conversionRateCurrent, scale: 8)),
                        ("ConversionRateOpen", number(position.conversionRateOpen, scale: 8)),
                        ("CurrentPrice", price(value.currentPrice, instrument)),
                        ("CurrentPriceDelayMinutes", 0),
                        ("CurrentPriceType", .string(value.currentPriceType)),
                        ("Exposure", money(value.exposure)),
                        ("ExposureCurrency", .string(instrument.exposureCurrency)),
                        ("ExposureInBaseCurrency", money(value.exposureInBase)),
                        ("InstrumentPriceDayPercentChange", number(value.dayPercentChange, scale: 2)),
                        ("MarketValue", instrument.isFX ? nil : money(value.exposure)),
                        ("ProfitLossOnTrade", money(value.profitLoss)),
                        ("ProfitLossOnTradeInBaseCurrency", money(value.profitLossInBase)),
                        ("TradeCostsTotal", 0),
                        ("TradeCostsTotalInBaseCurrency", 0),
                    ])
                )
            )
        }
        return object(members)
    }

    // MARK: Orders

    /// An element of `GET port/v1/orders/me`: note `Price` (not `OrderPrice`) and `Duration` (not `OrderDuration`).
    static func order(_ order: SaxoOrder, quote: MarketQuote?, client: SaxoSandboxClient, fieldGroups: Set<String>) -> JSON {
        let instrument = order.instrument
        let current = quote.map { order.side == .buy ? $0.ask : $0.bid }
        let showsPrice = order.type != .Market
        var distance: Decimal?
        if showsPrice, let current, let limit = order.price { distance = abs(current - limit) }
        var members: [(String, JSON?)] = [
            ("AccountId", .string(client.accountId)),
            ("AccountKey", .string(client.accountKey)),
            ("Amount", number(order.amount)),
            ("AssetType", .string(instrument.assetType)),
            ("BuySell", .string(order.side == .buy ? "Buy" : "Sell")),
            ("CalculationReliability", "Ok"),
            ("ClientKey", .string(client.clientKey)),
            ("CorrelationKey", .string(order.correlationKey)),
            ("CurrentPrice", current.map { price($0, instrument) }),
            ("CurrentPriceDelayMinutes", 0),
            ("CurrentPriceType", .string(order.side == .buy ? "Ask" : "Bid")),
        ]
        if fieldGroups.contains("DisplayAndFormat") { members.append(("DisplayAndFormat", displayAndFormat(instrument))) }
        members += [
            ("DistanceToMarket", distance.map { price($0, instrument) }),
            (
                "Duration",
                object([
                    ("DurationType", .string(order.duration.type.rawValue)),
                    ("ExpirationDateContainsTime", order.duration.expirationContainsTime.map(JSON.bool)),
                    ("ExpirationDateTime", order.duration.expirationText.map(JSON.string)),
                ])
            ),
        ]
        if fieldGroups.contains("ExchangeInfo") { members.append(("Exchange", exchange(instrument))) }
        members += [
            ("ExternalReference", order.externalReference.map(JSON.string)),
            // Only once something filled (Saxo omits null members): "the amount of the order, which has already been
            // filled, in case of partial fills" (`OrderResponse.FilledAmount`). A partly filled order stays `Working`:
            // Saxo's open-order `Status` has no partly filled value.
            ("FilledAmount", order.filledAmount.map { number($0) }),
            ("IsMarketOpen", true),
            ("MarketPrice", current.map { price($0, instrument) }),
            ("OpenOrderType", .string(order.type.rawValue)),
            ("OrderAmountType", "Quantity"),
            ("OrderId", .string(order.id)),
            ("OrderRelation", "StandAlone"),
            ("OrderTime", time(order.orderTime)),
            ("Price", showsPrice ? order.price.map { price($0, instrument) } : nil),
            ("RelatedOpenOrders", .array([])),
            ("Status", "Working"),
            ("StopLimitPrice", order.type == .StopLimit ? order.stopLimitPrice.map { price($0, instrument) } : nil),
            ("TrailingStopDistanceToMarket", order.trailingStopDistance.map { number($0) }),
            ("TrailingStopStep", order.trailingStopStep.map { number($0) }),
            ("Uic", .int(instrument.uic)),
        ]
        return object(members)
    }
}
