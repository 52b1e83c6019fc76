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

/// `orderStatus` (wire spelling; TradeItIosTicketSDK2 `TradeItOrderStatusDetails.OrderStatus`). `PART_FILLED` is an
/// order that filled in part and still works for the rest: the SDK counts it cancellable (`isCancellable`), and its
/// leg's `filledQuantity` and `fills` say what filled so far.
enum TradeItOrderStatus: String, Sendable, Codable {
    case preview = "PREVIEW"
    case open = "OPEN"
    case partFilled = "PART_FILLED"
    case filled = "FILLED"
    case canceled = "CANCELED"
    case expired = "EXPIRED"

    /// Still working at the broker: it may fill, be cancelled or expire.
    var isWorking: Bool { self == .open || self == .partFilled }
}

/// One execution of an order: a leg's `fills` entry (TradeItIosEmsApi `TradeItOrderFill`: `price`, `quantity`,
/// `timestamp`).
struct TradeItExecution: Sendable, Codable, Equatable {
    var quantity: Decimal
    var price: Decimal
    var time: Date
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
    /// What filled so far (the leg's `filledQuantity`).
    var filledQuantity: Decimal = 0
    /// The volume-weighted average price of what filled so far.
    var fillPrice: Decimal?
    /// When the last fill happened.
    var fillTime: Date?
    /// Each fill, oldest first. Optional because state files written before partial fills have none: an order filled
    /// then had one fill, which ``executions`` rebuilds from `filledQuantity`, `fillPrice` and `fillTime`.
    var fills: [TradeItExecution]?
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

    /// What is left to fill.
    var remainingQuantity: Decimal { max(quantity - filledQuantity, 0) }

    /// Every fill of the order, oldest first.
    var executions: [TradeItExecution] {
        if let fills { return fills }
        guard filledQuantity > 0, let fillPrice, let fillTime else { return [] }
        return [TradeItExecution(quantity: filledQuantity, price: fillPrice, time: fillTime)]
    }

    /// Records a fill of `quantity` at `price`: the cumulative quantity, the average price and the status follow.
    mutating func record(fill quantity: Decimal, price: Decimal, at time: Date) {
        let previous = executions
        let value = previous.reduce(Decimal(0)) { $0 + $1.quantity * $1.price } + quantity * price
        fills = previous + [TradeItExecution(quantity: quantity, price: price, time: time)]
        filledQuantity += quantity
        fillPrice = filledQuantity > 0 ? value / filledQuantity : nil
        fillTime = time
        status = filledQuantity >= self.quantity ? .filled : .partFilled
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
