import Foundation
import SandboxKit

/// A validated `order/previewStockOrEtfOrder` or `order/previewCryptoOrder` body.
///
/// Validates in the order TradeIt reports problems: the symbol, the action, the quantity, the price type and its
/// prices, the expiration. Unknown values are code 500 (PARAMETER_ERROR); what the account cannot trade (a short
/// sale, fractional shares, an unknown symbol) is code 200 (BROKER_EXECUTION_ERROR).
struct TradeItOrderRequest: Sendable {
    /// The symbol as the request spelt it (error messages quote it).
    var enteredSymbol: String
    /// Canonical symbol (`AAPL`, `BTC/USD`).
    var symbol: String
    var isCrypto: Bool
    var side: TradeSide
    var quantity: Decimal
    var priceType: TradeItPriceType
    var limitPrice: Decimal?
    var stopPrice: Decimal?
    var expiration: TradeItExpiration

    init(_ fields: TradeItFields, crypto: Bool, market: MarketEngine) throws(TradeItAPIError) {
        let symbolKey = crypto ? "orderPair" : "orderSymbol"
        guard let entered = fields.string(symbolKey), !entered.isEmpty else { throw .parameter("\(symbolKey) is required.") }
        let symbol = entered.uppercased()
        guard let instrument = market.instrument(symbol: symbol),
            instrument.assetClass == (crypto ? .crypto : .equity)
        else {
            throw .execution("The symbol \(entered) was not found.")
        }
        guard let action = fields.string("orderAction").flatMap(TradeItOrderAction.init(rawValue:)) else {
            throw .parameter("orderAction must be buy, sell, buyToCover or sellShort.")
        }
        guard let side = action.side else { throw .execution("Short sales are not available in this account.") }
        guard let quantity = try fields.decimal("orderQuantity"), quantity > 0 else {
            throw .parameter("orderQuantity must be greater than 0.")
        }
        if crypto {
            guard (fields.string("orderQuantityType") ?? "BASE_CURRENCY") == "BASE_CURRENCY" else {
                throw .parameter("orderQuantityType must be BASE_CURRENCY.")
            }
            guard quantity >= instrument.minQuantity else {
                throw .execution("The minimum quantity for \(entered) is \(DecimalText.format(instrument.minQuantity)).")
            }
        } else {
            if let type = fields.string("orderQuantityType"), type != "SHARES" {
                throw .parameter("orderQuantityType must be SHARES.")
            }
            guard DecimalText.isMultiple(quantity, of: 1) else { throw .execution("Orders must be for whole shares.") }
        }
        let priceTypes = crypto ? TradeItPriceType.crypto : TradeItPriceType.equity
        guard let priceType = fields.string("orderPriceType").flatMap(TradeItPriceType.init(rawValue:)),
            priceTypes.contains(priceType)
        else {
            throw .parameter("orderPriceType must be one of \(priceTypes.map(\.rawValue).joined(separator: ", ")).")
        }
        let limit = try fields.decimal("orderLimitPrice")
        let stop = try fields.decimal("orderStopPrice")
        if priceType.hasLimitPrice {
            guard let limit, limit > 0 else { throw .parameter("orderLimitPrice must be greater than 0.") }
        }
        if priceType.hasStopPrice {
            guard let stop, stop > 0 else { throw .parameter("orderStopPrice must be greater than 0.") }
        }
        guard let expiration = TradeItExpiration(rawValue: fields.string("orderExpiration") ?? "") else {
            throw .parameter("orderExpiration must be day or gtc.")
        }
        self.enteredSymbol = entered
        self.symbol = symbol
        self.isCrypto = crypto
        self.side = side
        self.quantity = quantity
        self.priceType = priceType
        self.limitPrice = limit
        self.stopPrice = stop
        self.expiration = expiration
    }
}
