import Foundation
import SandboxKit

/// One simulated account: cash, holdings, orders. A cash account: buys need cash (less what open buys reserve), sells
/// need unreserved holdings, no short sales.
struct TradeItAccountBook: Sendable, Codable {
    var accountNumber: String
    var name: String
    var cash: Decimal
    var holdings: [String: TradeItHolding] = [:]
    /// Oldest first.
    var orders: [TradeItOrder] = []
    /// Previews by `orderId`.
    var previews: [String: TradeItPreview] = [:]

    /// What working buys hold back: the part still to fill, at the order's limit or stop price.
    var reservedCash: Decimal {
        orders.filter { $0.status.isWorking && $0.side == .buy }.reduce(0) { $0 + $1.remainingQuantity * $1.reservationPrice }
    }

    var availableCash: Decimal { cash - reservedCash }

    func reservedQuantity(_ symbol: String) -> Decimal {
        orders.filter { $0.status.isWorking && $0.side == .sell && $0.symbol == symbol }.reduce(0) { $0 + $1.remainingQuantity }
    }

    /// What `balance/getAccountOverview` reports, valued at the market's last prices.
    func valuation(market: MarketEngine) -> TradeItValuation {
        var valuation = TradeItValuation(availableCash: availableCash, totalValue: cash)
        for (symbol, holding) in holdings {
            guard let quote = market.quote(symbol: symbol) else { continue }
            valuation.totalValue += holding.quantity * quote.last
            valuation.dayReturn += holding.quantity * quote.change
            valuation.totalReturn += holding.quantity * quote.last - holding.cost
            valuation.cost += holding.cost
        }
        return valuation
    }
}

/// An account's value: cash and holdings at the last price, and the returns on them.
struct TradeItValuation: Sendable {
    var availableCash: Decimal
    /// Cash plus holdings at the last price.
    var totalValue: Decimal
    /// Today's change of the holdings' value.
    var dayReturn: Decimal = 0
    /// The holdings' value less what they cost.
    var totalReturn: Decimal = 0
    /// What the holdings cost.
    var cost: Decimal = 0
}
