import Foundation
import SandboxKit

/// Previews, placement, cancellation and the lazy matching tick.
extension TradeItAccountBook {
    /// Keeps a preview under `orderId` after checking the account can afford it.
    mutating func preview(
        _ order: TradeItOrder,
        orderId: String,
        estimatedTotal: Decimal,
        expiresAt: Date,
        token: String
    ) throws(TradeItAPIError) {
        try check(order, estimatedTotal: estimatedTotal)
        previews[orderId] = TradeItPreview(order: order, expiresAt: expiresAt, token: token)
    }

    /// Places the preview `orderId` as `orderNumber`, then runs the tick so a marketable order fills at once.
    /// The preview is spent even when the account can no longer afford it.
    mutating func place(
        orderId: String,
        isCrypto: Bool,
        orderNumber: String,
        market: MarketEngine,
        commission: Decimal,
        now: Date
    ) throws(TradeItAPIError) -> TradeItOrder {
        guard let preview = previews.removeValue(forKey: orderId), preview.expiresAt > now, preview.order.isCrypto == isCrypto
        else {
            throw .parameter("The order \(orderId) was not found or has expired; preview the order again.")
        }
        var order = preview.order
        guard let quote = market.quote(symbol: order.symbol) else { throw .system("No quote for \(order.symbol).") }
        let value = order.quantity * Self.estimatedPrice(order, quote: quote)
        try check(order, estimatedTotal: order.side == .buy ? value + commission : value)
        order.orderNumber = orderNumber
        order.status = .open
        order.placedAt = now
        orders.append(order)
        evaluate(market: market, commission: commission, now: now)
        return orders[orders.count - 1]
    }

    /// The order numbered `number`, cancelled first when `cancel` is set; nil when there is none. A partly filled order
    /// cancels too (TradeItIosTicketSDK2 counts `PART_FILLED` cancellable): what filled stays filled, the rest is
    /// cancelled, and the order reads `CANCELED` with its fills.
    mutating func order(_ number: String, cancel: Bool) throws(TradeItAPIError) -> TradeItOrder? {
        guard let index = orders.firstIndex(where: { $0.orderNumber == number }) else { return nil }
        if cancel {
            guard orders[index].status.isWorking else {
                throw .execution("The order \(number) is \(orders[index].status.rawValue.lowercased()) and cannot be canceled.")
            }
            orders[index].status = .canceled
        }
        return orders[index]
    }

    /// Expires lapsed day orders (a partly filled one keeps its fills) and fills what the market now reaches, as far as
    /// the venue's depth at the touch goes (``MarketEngine/take(upTo:of:)``): an order larger than what is there fills
    /// in part, reads `PART_FILLED`, and works on for the rest at later ticks.
    mutating func evaluate(market: MarketEngine, commission: Decimal, now: Date) {
        for index in orders.indices where orders[index].status.isWorking {
            if orders[index].expiration == .day,
                Timestamp.floorDiv(Timestamp.unixSeconds(now), 86_400)
                    > Timestamp.floorDiv(Timestamp.unixSeconds(orders[index].placedAt), 86_400)
            {
                orders[index].status = .expired
                continue
            }
            guard let quote = market.quote(symbol: orders[index].symbol) else { continue }
            var resting = orders[index].resting
            let price = OrderMatching.evaluate(orders[index].terms, side: orders[index].side, quote: quote, state: &resting)
            orders[index].resting = resting
            guard let price else { continue }
            let quantity = market.take(upTo: orders[index].remainingQuantity, of: orders[index].symbol)
            guard quantity > 0 else { continue }
            fill(index, quantity: quantity, price: price, commission: commission, now: now)
        }
        previews = previews.filter { $0.value.expiresAt > now }
    }

    /// Moves cash and holdings for one fill of `quantity` at `price`. The commission is charged once per order, with
    /// its first fill.
    private mutating func fill(_ index: Int, quantity: Decimal, price: Decimal, commission: Decimal, now: Date) {
        let order = orders[index]
        let value = quantity * price
        let charge = order.filledQuantity > 0 ? 0 : commission
        var holding = holdings[order.symbol] ?? TradeItHolding(quantity: 0, cost: 0)
        if order.side == .buy {
            cash -= value + charge
            holding.quantity += quantity
            holding.cost += value
        } else {
            cash += value - charge
            let remaining = holding.quantity - quantity
            holding.cost = holding.quantity > 0 ? holding.cost * remaining / holding.quantity : 0
            holding.quantity = remaining
        }
        holdings[order.symbol] = holding.quantity > 0 ? holding : nil
        orders[index].record(fill: quantity, price: price, at: now)
    }

    /// The price a preview estimates the order at.
    static func estimatedPrice(_ order: TradeItOrder, quote: MarketQuote) -> Decimal {
        switch order.priceType {
        case .limit, .stopLimit: order.limitPrice ?? quote.last
        case .stopMarket: order.stopPrice ?? quote.last
        case .market: order.side == .buy ? quote.ask : quote.bid
        }
    }

    /// Refuses what the account cannot do (code 200, as a broker's execution error).
    func check(_ order: TradeItOrder, estimatedTotal: Decimal) throws(TradeItAPIError) {
        if order.side == .buy {
            guard estimatedTotal <= availableCash else {
                throw .execution(
                    "Your buying power of $\(DecimalText.format(availableCash)) is not enough for this order of $\(DecimalText.format(estimatedTotal))."
                )
            }
        } else {
            let free = (holdings[order.symbol]?.quantity ?? 0) - reservedQuantity(order.symbol)
            guard order.quantity <= free else {
                throw .execution(
                    "You can sell at most \(DecimalText.format(max(free, 0))) \(order.symbol); short sales are not available in this account."
                )
            }
        }
    }
}
