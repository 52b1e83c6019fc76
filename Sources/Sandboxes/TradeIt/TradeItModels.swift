import Foundation
import SandboxKit

/// `orderAction` (wire spelling). Short sales are understood, then refused: the simulated account is a cash account.
enum TradeItOrderAction: String, Sendable {
    case buy, sell, buyToCover, sellShort

    /// The side of an order the account can place; nil for a short sale.
    var side: TradeSide? {
        switch self {
        case .buy: .buy
        case .sell: .sell
        case .buyToCover, .sellShort: nil
        }
    }
}

/// `orderPriceType` (wire spelling).
enum TradeItPriceType: String, Sendable, Codable {
    case market, limit, stopMarket, stopLimit

    /// What a stock or ETF order may be, in the order error messages list them.
    static let equity: [TradeItPriceType] = [.market, .limit, .stopMarket, .stopLimit]
    /// What a crypto order may be.
    static let crypto: [TradeItPriceType] = [.market, .limit]

    var hasLimitPrice: Bool { self == .limit || self == .stopLimit }
    var hasStopPrice: Bool { self == .stopMarket || self == .stopLimit }

    /// The spelling of order status answers (`priceInfo.type`).
    var statusName: String {
        switch self {
        case .market: "MARKET"
        case .limit: "LIMIT"
        case .stopMarket: "STOP"
        case .stopLimit: "STOP_LIMIT"
        }
    }
}

/// `orderExpiration` (wire spelling).
enum TradeItExpiration: String, Sendable, Codable {
    case day, gtc
}

/// `orderStatus` (wire spelling).
enum TradeItOrderStatus: String, Sendable, Codable {
    case preview = "PREVIEW"
    case open = "OPEN"
    case filled = "FILLED"
    case canceled = "CANCELED"
    case expired = "EXPIRED"
}

/// One order at the simulated broker.
struct TradeItOrder: Sendable, Codable {
    var orderNumber: String
    /// Canonical symbol (`AAPL`, `BTC/USD`).
    var symbol: String
    var isCrypto: Bool
    /// Buy or sell (short sales are refused before an order exists).
    var side: TradeSide
    var priceType: TradeItPriceType
    var quantity: Decimal
    var limitPrice: Decimal?
    var stopPrice: Decimal?
    var expiration: TradeItExpiration
    var status: TradeItOrderStatus
    var filledQuantity: Decimal = 0
    var fillPrice: Decimal?
    var fillTime: Date?
    var placedAt: Date
    var resting = OrderMatching.RestingState()

    /// A preview of `request`: no number yet.
    init(previewing request: TradeItOrderRequest, at now: Date) {
        self.orderNumber = ""
        self.symbol = request.symbol
        self.isCrypto = request.isCrypto
        self.side = request.side
        self.priceType = request.priceType
        self.quantity = request.quantity
        self.limitPrice = request.priceType.hasLimitPrice ? request.limitPrice : nil
        self.stopPrice = request.priceType.hasStopPrice ? request.stopPrice : nil
        self.expiration = request.expiration
        self.status = .preview
        self.placedAt = now
    }

    var terms: ExecutionTerms {
        switch priceType {
        case .limit: .limit(limitPrice ?? 0)
        case .stopMarket: .stop(stopPrice ?? 0)
        case .stopLimit: .stopLimit(stop: stopPrice ?? 0, limit: limitPrice ?? 0)
        case .market: .market
        }
    }

    /// The price cash is reserved at while a buy rests.
    var reservationPrice: Decimal { limitPrice ?? stopPrice ?? 0 }
}

/// A previewed order waiting for `order/place...` with its `orderId`.
struct TradeItPreview: Sendable, Codable {
    var order: TradeItOrder
    var expiresAt: Date
    var token: String
}

struct TradeItHolding: Sendable, Codable {
    var quantity: Decimal
    /// Total cost of the quantity held.
    var cost: Decimal
}
