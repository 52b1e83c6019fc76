import Foundation
import SandboxKit

/// One order at the simulated broker.
struct TradeItSandboxOrder: Sendable {
    var orderNumber: String
    /// Canonical symbol (`AAPL`, `BTC/USD`).
    var symbol: String
    var isCrypto: Bool
    /// `buy` or `sell` (short sales are refused).
    var action: String
    /// `market`, `limit`, `stopMarket`, `stopLimit`.
    var priceType: String
    var quantity: Decimal
    var limitPrice: Decimal?
    var stopPrice: Decimal?
    /// `day` or `gtc`.
    var expiration: String
    /// `OPEN`, `FILLED`, `CANCELED`, `EXPIRED`.
    var status: String
    var filledQuantity: Decimal = 0
    var fillPrice: Decimal?
    var fillTime: Date?
    var placedAt: Date
    var resting = OrderMatching.RestingState()

    var side: TradeSide { action == "buy" ? .buy : .sell }

    var terms: ExecutionTerms {
        switch priceType {
        case "limit": .limit(limitPrice ?? 0)
        case "stopMarket": .stop(stopPrice ?? 0)
        case "stopLimit": .stopLimit(stop: stopPrice ?? 0, limit: limitPrice ?? 0)
        default: .market
        }
    }

    /// The price cash is reserved at while a buy rests.
    var reservationPrice: Decimal { limitPrice ?? stopPrice ?? 0 }
}

/// A previewed order waiting for `order/place...` with its `orderId`.
struct TradeItPreview: Sendable {
    var order: TradeItSandboxOrder
    var expiresAt: Date
    var token: String
}

struct TradeItHolding: Sendable {
    var quantity: Decimal
    /// Total cost of the quantity held.
    var cost: Decimal
}

/// One simulated account: cash, holdings, orders. A cash account: buys need cash (less what open buys reserve), sells
/// need unreserved holdings, no short sales.
struct TradeItAccountBook: Sendable {
    var accountNumber: String
    var name: String
    var cash: Decimal
    var holdings: [String: TradeItHolding] = [:]
    /// Oldest first.
    var orders: [TradeItSandboxOrder] = []
    var previews: [String: TradeItPreview] = [:]

    var reservedCash: Decimal {
        orders.filter { $0.status == "OPEN" && $0.side == .buy }.reduce(0) { $0 + $1.quantity * $1.reservationPrice }
    }

    var availableCash: Decimal { cash - reservedCash }

    func reservedQuantity(_ symbol: String) -> Decimal {
        orders.filter { $0.status == "OPEN" && $0.side == .sell && $0.symbol == symbol }.reduce(0) { $0 + $1.quantity }
    }

    /// Expires lapsed day orders and fills what the market now reaches.
    mutating func evaluate(market: MarketEngine, commission: Decimal, now: Date) {
        for index in orders.indices where orders[index].status == "OPEN" {
            if orders[index].expiration == "day",
                Timestamp.floorDiv(Timestamp.unixSeconds(now), 86_400)
                    > Timestamp.floorDiv(Timestamp.unixSeconds(orders[index].placedAt), 86_400)
            {
                orders[index].status = "EXPIRED"
                continue
            }
            guard let quote = market.quote(symbol: orders[index].symbol) else { continue }
            var resting = orders[index].resting
            let price = OrderMatching.evaluate(orders[index].terms, side: orders[index].side, quote: quote, state: &resting)
            orders[index].resting = resting
            guard let price else { continue }
            fill(index, price: price, commission: commission, now: now)
        }
        previews = previews.filter { $0.value.expiresAt > now }
    }

    private mutating func fill(_ index: Int, price: Decimal, commission: Decimal, now: Date) {
        let order = orders[index]
        let value = order.quantity * price
        var holding = holdings[order.symbol] ?? TradeItHolding(quantity: 0, cost: 0)
        if order.side == .buy {
            cash -= value + commission
            holding.quantity += order.quantity
            holding.cost += value
        } else {
            cash += value - commission
            let remaining = holding.quantity - order.quantity
            holding.cost = holding.quantity > 0 ? holding.cost * remaining / holding.quantity : 0
            holding.quantity = remaining
        }
        holdings[order.symbol] = holding.quantity > 0 ? holding : nil
        orders[index].status = "FILLED"
        orders[index].filledQuantity = order.quantity
        orders[index].fillPrice = price
        orders[index].fillTime = now
    }

    /// The price a preview estimates the order at.
    static func estimatedPrice(_ order: TradeItSandboxOrder, quote: MarketQuote) -> Decimal {
        switch order.priceType {
        case "limit", "stopLimit": order.limitPrice ?? quote.last
        case "stopMarket": order.stopPrice ?? quote.last
        default: order.side == .buy ? quote.ask : quote.bid
        }
    }

    /// Refuses what the account cannot do (code 200, as a broker's execution error).
    func check(_ order: TradeItSandboxOrder, estimatedTotal: Decimal) throws(TradeItAPIError) {
        if order.side == .buy {
            guard estimatedTotal <= availableCash else {
                throw .execution(
                    "Your buying power of $\(DecimalText.format(availableCash)) is not enough for this order of $\(DecimalText.format(estimatedTotal)).")
            }
        } else {
            let free = (holdings[order.symbol]?.quantity ?? 0) - reservedQuantity(order.symbol)
            guard order.quantity <= free else {
                throw .execution("You can sell at most \(DecimalText.format(max(free, 0))) \(order.symbol); short sales are not available in this account.")
            }
        }
    }
}
